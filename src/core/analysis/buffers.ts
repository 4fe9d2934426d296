/**
 * Registered buffers stored beside the parameters: tensors a module keeps with `register_buffer` (PyTorch's
 * nn.Module docs) that `model.parameters()` does not list. transformers before 4.31 saved its causal masks, rotary
 * frequencies and position ids into every checkpoint (GPT-2's `attn.bias` is a [1, 1, 1024, 1024] mask per layer,
 * 12.6 M values beside 124.4 M parameters), plain `torch.save(model.state_dict())` saves every persistent buffer
 * (BatchNorm's running statistics, a lecture GPT's `tril`), and the parameter count must leave them out.
 *
 * Each rule is a name's last segment and the shape that module registers; a name alone is not enough where a
 * parameter shares it (`bias` is a parameter everywhere but in a [1, 1, P, P] mask).
 */
import { elementBits } from '../dtypes';
import type { TensorColumns } from '../model';
import { shadowedMask } from '../stats';
import type { TensorIndex } from './tensor-index';

export type BufferKind =
  | 'causal-mask'
  | 'mask-fill'
  | 'rotary-frequencies'
  | 'position-ids'
  | 'batch-norm-statistics'
  /** Any other tensor a whole pickled nn.Module registered in `_buffers` (the pickle says so, not the name). */
  | 'module-buffer'
  /** A tensor a pickled nn.Module holds as a plain attribute: outside its state_dict and its parameters. */
  | 'module-attribute'
  /** A gradient pickled beside its parameter (`<name>.grad` beside `<name>.data`, an autograd object's two arrays). */
  | 'gradient'
  /** A torch.ao quantized module's output `scale` and `zero_point`, scalars beside its quantized weights. */
  | 'quantized-output';

/** Plural phrases for the kinds, as the parameter basis and the finding list them. */
export const BUFFER_KIND_LABEL: Readonly<Record<BufferKind, [string, string]>> = {
  'causal-mask': ['causal attention mask', 'causal attention masks'],
  'mask-fill': ['attention mask fill value', 'attention mask fill values'],
  'rotary-frequencies': ['rotary frequency table', 'rotary frequency tables'],
  'position-ids': ['position id table', 'position id tables'],
  'batch-norm-statistics': ['batch-norm running statistic', 'batch-norm running statistics'],
  'module-buffer': ['other buffer the pickled module registered', 'other buffers the pickled module registered'],
  'module-attribute': [
    'tensor the pickled module holds as a plain attribute',
    'tensors the pickled module holds as plain attributes',
  ],
  gradient: ['gradient kept beside its parameter', 'gradients kept beside their parameters'],
  'quantized-output': [
    'output scale or zero point of a quantized module',
    'output scales and zero points of quantized modules',
  ],
};

/**
 * Whether a loader rebuilds this kind from the config rather than reading it (transformers 4.31 and later skips the
 * stored copies): the memory a model needs and a comparison of weights leave these out. Statistics and a module's
 * own buffers are state it uses.
 */
export function isRebuiltBuffer(kind: BufferKind): boolean {
  return (
    kind !== 'batch-norm-statistics' &&
    kind !== 'module-buffer' &&
    kind !== 'module-attribute' &&
    kind !== 'gradient' &&
    kind !== 'quantized-output'
  );
}

/** Dimension i of a tensor's shape; NaN past its rank. */
export type Dim = (i: number) => number;

interface BufferRule {
  kind: BufferKind;
  /** Whether a row with this last segment and shape is the buffer (given its rank, elements and dims). */
  matches(rank: number, elements: number, dim: Dim, shapeText: string): boolean;
}

const squareMask = (rank: number, dim: Dim): boolean =>
  rank === 4 && dim(0) === 1 && dim(1) === 1 && dim(2) >= 2 && dim(2) === dim(3);
const squareMatrix = (rank: number, dim: Dim): boolean => rank === 2 && dim(0) >= 2 && dim(0) === dim(1);
const scalar = (rank: number, elements: number): boolean => rank <= 1 && elements <= 1;

/** Rules by a name's last segment. */
const RULES: ReadonlyMap<string, BufferRule> = new Map<string, BufferRule>([
  // GPT-2, GPT-J, GPT-Neo, GPT-NeoX, nanoGPT: register_buffer("bias", tril(ones(P, P)).view(1, 1, P, P)).
  ['bias', { kind: 'causal-mask', matches: (rank, _e, dim) => squareMask(rank, dim) }],
  // CodeGen's attn.causal_mask.
  [
    'causal_mask',
    { kind: 'causal-mask', matches: (rank, _e, dim) => squareMask(rank, dim) || squareMatrix(rank, dim) },
  ],
  // The "GPT from scratch" lecture's Head: register_buffer('tril', tril(ones(block, block))).
  ['tril', { kind: 'causal-mask', matches: (rank, _e, dim) => squareMatrix(rank, dim) }],
  // GPT-2 / GPT-J / GPT-NeoX: the value masked scores were set to, a scalar.
  ['masked_bias', { kind: 'mask-fill', matches: (rank, elements) => scalar(rank, elements) }],
  ['inv_freq', { kind: 'rotary-frequencies', matches: (rank) => rank === 1 }],
  ['original_inv_freq', { kind: 'rotary-frequencies', matches: (rank) => rank === 1 }],
  ['cos_cached', { kind: 'rotary-frequencies', matches: (rank, _e, _d, text) => rank >= 1 && text.includes('rotary') }],
  ['sin_cached', { kind: 'rotary-frequencies', matches: (rank, _e, _d, text) => rank >= 1 && text.includes('rotary') }],
  // GPT-J and CodeGen keep their sin/cos table as attn.embed_positions (no `.weight`: a parameter would have one).
  [
    'embed_positions',
    {
      kind: 'rotary-frequencies',
      matches: (rank, _e, _d, text) => rank === 2 && /(^|\.)attn\.embed_positions$/.test(text),
    },
  ],
  // BERT, CLIP, RoBERTa: arange(P).expand(1, -1), and BERT's zero token types.
  ['position_ids', { kind: 'position-ids', matches: (rank, _e, dim) => rank === 1 || (rank === 2 && dim(0) === 1) }],
  ['token_type_ids', { kind: 'position-ids', matches: (rank, _e, dim) => rank === 1 || (rank === 2 && dim(0) === 1) }],
  ['running_mean', { kind: 'batch-norm-statistics', matches: (rank) => rank === 1 }],
  ['running_var', { kind: 'batch-norm-statistics', matches: (rank) => rank === 1 }],
  ['num_batches_tracked', { kind: 'batch-norm-statistics', matches: (rank, elements) => scalar(rank, elements) }],
]);

/** The rule for a name's (or name shape's) last segment, if any. */
function ruleOf(name: string): BufferRule | undefined {
  return RULES.get(name.slice(name.lastIndexOf('.') + 1));
}

export interface BufferRows {
  /** Rows taken as buffers, in row order (a repeated name's shadowed rows left out). */
  rows: Int32Array;
  /** Kind of each entry of `rows`. */
  kinds: BufferKind[];
}

const found = new WeakMap<TensorIndex, BufferRows>();

/**
 * The rows of `index` that are registered buffers, found per name shape (a million rows cost a pass over shapes),
 * once per index: the parameter count and the Memory tab's weights both leave them out.
 */
export function findBufferRows(index: TensorIndex): BufferRows {
  let rows = found.get(index);
  if (rows === undefined) {
    rows = matchBufferRows(index);
    found.set(index, rows);
  }
  return rows;
}

/**
 * The buffer kind of one tensor, or null: its name (or name shape: the rules read only the last segment and, for
 * two of them, the name's text), rank, elements and dims.
 */
export function bufferKindOf(name: string, rank: number, elements: number, dim: Dim): BufferKind | null {
  const rule = ruleOf(name);
  return rule !== undefined && rule.matches(rank, elements, dim, name) ? rule.kind : null;
}

/** bufferKindOf for row `row` of a header's columns. */
export function bufferKindOfRow(columns: TensorColumns, name: string, row: number): BufferKind | null {
  const start = columns.shapeStarts[row];
  const rank = columns.shapeStarts[row + 1] - start;
  return bufferKindOf(name, rank, columns.elements[row], (i) => (i < rank ? columns.dims[start + i] : NaN));
}

interface BufferMatch {
  row: number;
  kind: BufferKind;
}

function matchBufferRows(index: TensorIndex): BufferRows {
  const shapes = index.shapes();
  const matched: BufferMatch[] = [];
  const shadowed = shadowedMask(index.count, index.header.shadowedRows);
  for (let s = 0; s < shapes.count; s++) {
    const text = shapes.text[s];
    const rule = ruleOf(text);
    if (rule === undefined) {
      continue;
    }
    for (let at = shapes.rowStart[s]; at < shapes.rowStart[s + 1]; at++) {
      const row = shapes.rowList[at];
      if (shadowed !== null && shadowed[row] === 1) {
        continue;
      }
      const dim: Dim = (i) => index.dim(row, i);
      if (rule.matches(index.rank(row), index.elements(row), dim, text)) {
        matched.push({ row, kind: rule.kind });
      }
    }
  }
  matched.push(...gradientRows(index, shapes, shadowed), ...quantizedOutputRows(index, shapes, shadowed));
  // A pickled module's own word for the rest of its buffers.
  const named = new Set(matched.map((entry) => entry.row));
  const held = index.header.checkpoint?.moduleBuffers;
  held?.rows.forEach((row, i) => {
    if (!named.has(row) && (shadowed === null || shadowed[row] === 0)) {
      matched.push({ row, kind: held.roles[i] === 'buffer' ? 'module-buffer' : 'module-attribute' });
    }
  });
  matched.sort((a, b) => a.row - b.row);
  return { rows: Int32Array.from(matched, (entry) => entry.row), kinds: matched.map((entry) => entry.kind) };
}

type Shapes = ReturnType<TensorIndex['shapes']>;

/**
 * Each row whose name ends with `suffix` and the row named the same with `siblingSuffix` instead, found by name
 * shape (a pass over the shapes, rows only of the shapes that end so); shadowed rows left out on either side.
 */
function siblingPairs(
  index: TensorIndex,
  shapes: Shapes,
  shadowed: Uint8Array | null,
  suffix: string,
  siblingSuffix: string,
): Array<[row: number, sibling: number]> {
  const live = (row: number) => shadowed === null || shadowed[row] === 0;
  const pairs: Array<[number, number]> = [];
  for (let s = 0; s < shapes.count; s++) {
    if (!shapes.text[s].endsWith(suffix)) {
      continue;
    }
    for (let at = shapes.rowStart[s]; at < shapes.rowStart[s + 1]; at++) {
      const row = shapes.rowList[at];
      const sibling = index.sibling(row, suffix, siblingSuffix);
      if (sibling >= 0 && live(row) && live(sibling)) {
        pairs.push([row, sibling]);
      }
    }
  }
  return pairs;
}

/**
 * Gradients an autograd library's pickled parameter objects keep beside their values (a NumPy micrograd-style
 * `Tensor` with `.data` and `.grad` arrays): `<name>.grad` where `<name>.data` has the same shape. They are not
 * parameters, as PyTorch's `.grad` is not; a `.grad` alone, or of another shape, stays counted.
 */
function gradientRows(index: TensorIndex, shapes: Shapes, shadowed: Uint8Array | null): BufferMatch[] {
  return siblingPairs(index, shapes, shadowed, '.grad', '.data')
    .filter(([grad, value]) => sameShape(index, grad, value))
    .map(([row]) => ({ row, kind: 'gradient' }));
}

/** torch.ao's quantized tensor dtypes (the reader keeps torch's names for them). */
const TORCH_QUANTIZED_DTYPES = new Set(['QINT8', 'QUINT8', 'QINT32', 'QUINT4X2', 'QUINT2X4']);

/**
 * A torch.ao quantized model's state dict keeps each quantized module's output `scale` and `zero_point` (and the
 * input stub's) as one-element tensors beside its quantized weights: quantization settings, not parameters. Only in a
 * file holding torch.ao quantized tensors, and only as a pair, so a learnt `scale` elsewhere stays counted.
 */
function quantizedOutputRows(index: TensorIndex, shapes: Shapes, shadowed: Uint8Array | null): BufferMatch[] {
  const pairs = siblingPairs(index, shapes, shadowed, '.zero_point', '.scale').filter(
    ([zeroPoint, scale]) => index.elements(zeroPoint) <= 1 && index.elements(scale) <= 1,
  );
  if (pairs.length === 0 || !hasTorchQuantizedTensor(index)) {
    return [];
  }
  return pairs.flatMap(([zeroPoint, scale]): BufferMatch[] => [
    { row: scale, kind: 'quantized-output' },
    { row: zeroPoint, kind: 'quantized-output' },
  ]);
}

function hasTorchQuantizedTensor(index: TensorIndex): boolean {
  for (let row = 0; row < index.count; row++) {
    if (TORCH_QUANTIZED_DTYPES.has(index.dtype(row))) {
      return true;
    }
  }
  return false;
}

function sameShape(index: TensorIndex, a: number, b: number): boolean {
  const rank = index.rank(a);
  if (rank !== index.rank(b)) {
    return false;
  }
  for (let i = 0; i < rank; i++) {
    if (index.dim(a, i) !== index.dim(b, i)) {
      return false;
    }
  }
  return true;
}

/** Registered buffers the parameter count left out, as the quantization section reports them. */
export interface BufferSummary {
  tensors: number;
  /** Their stored elements. */
  elements: number;
  /**
   * What they would add to `parameters.model`: their elements, or in a checkpoint what its weights section counts
   * of them (each storage region once, nothing outside that section).
   */
  modelElements: number;
  /** Their stored bytes, and what they add to a checkpoint's model bytes (= bytes elsewhere). */
  bytes: number;
  modelBytes: number;
  /** Per kind, in order of first row: its tensors, elements and first name. */
  kinds: Array<{ kind: BufferKind; tensors: number; elements: number; example: string }>;
}

/** The summary of `buffers` (rows the count left out), or null when there are none. */
export function summarizeBuffers(index: TensorIndex, buffers: BufferRows): BufferSummary | null {
  if (buffers.rows.length === 0) {
    return null;
  }
  const modelRows = index.header.checkpoint?.rows.model;
  const byKind = new Map<BufferKind, BufferSummary['kinds'][number]>();
  let elements = 0;
  let modelElements = 0;
  let bytes = 0;
  let modelBytes = 0;
  buffers.rows.forEach((row, i) => {
    const stored = index.elements(row);
    const finite = Number.isFinite(stored) ? stored : 0;
    elements += finite;
    bytes += index.bytes(row);
    if (modelRows) {
      const counted = modelRows[row] ?? 0;
      modelElements += counted;
      modelBytes += (counted * elementBits(index.header.tensors, row)) / 8;
    } else {
      modelElements += finite;
      modelBytes += index.bytes(row);
    }
    const kind = buffers.kinds[i];
    const entry = byKind.get(kind);
    if (entry) {
      entry.tensors++;
      entry.elements += finite;
    } else {
      byKind.set(kind, { kind, tensors: 1, elements: finite, example: index.names[row] });
    }
  });
  return { tensors: buffers.rows.length, elements, modelElements, bytes, modelBytes, kinds: [...byKind.values()] };
}

/** "4 causal attention masks and 2 attention mask fill values". */
export function bufferKindsPhrase(summary: BufferSummary): string {
  const parts = summary.kinds.map(({ kind, tensors }) => {
    const [one, many] = BUFFER_KIND_LABEL[kind];
    return `${tensors} ${tensors === 1 ? one : many}`;
  });
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}
