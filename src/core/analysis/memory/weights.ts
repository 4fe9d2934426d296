/**
 * Weight bytes per dtype and per part of the model (embeddings, attention, MLP, experts, towers, MTP layers), and
 * logical parameter counts, from the header alone. Bytes are exact (data_offsets spans); parameters unpack the
 * packed containers (MXFP4 blocks, GPTQ/AWQ int32 words) and skip scales and zero points, which are not parameters.
 * Name tests run once per name shape (tensor-index.ts), so a 250,000-tensor MoE header costs a dozen regex runs.
 */
import { dtypeCode, dtypeName } from '../../dtypes';
import { AUDIO_HEADS, VISION_HEADS } from '../architecture-family';
import { MAX_GROUPED_FIRST_INDEX, shapeGroupsOf, type ShapeGroups } from '../shape-groups';
import { storedBytes, type TensorIndex } from '../tensor-index';
import { findBufferRows, isRebuiltBuffer } from '../buffers';
import { plural } from '../../number-format';
import type { WeightPart, WeightPartTotal, WeightsSummary } from './memory-types';

/** Name segments of vision / audio towers (first segment, or second under `model.`): the architecture's tower heads,
 * plus Gemma 3n's multimodal embedders. */
const TOWERS = new Set([...VISION_HEADS, ...AUDIO_HEADS, 'embed_vision', 'embed_audio']);

const EMBEDDING_SEGMENTS = new Set([
  'embed_tokens',
  // llama.cpp's (GGUF) token embedding; its LM head is `output.weight`.
  'token_embd',
  // Karpathy's lecture GPT and small hand-written models.
  'token_embedding_table',
  'position_embedding_table',
  'token_embedding',
  'wte',
  'wpe',
  'word_embeddings',
  'lm_head',
  'embed_out',
  'tok_embeddings',
  'embeddings',
  'shared',
]);

/** Sidecars of quantized weights: stored bytes, not parameters. */
const NOT_PARAMS =
  /(?:_scales?|\.scales?|_scale_inv|\.qzeros|\.zeros|\.g_idx|\.absmax|\.quant_map|\.quant_state\..*|_zero_point|\.input_scale|\.k_scale|\.v_scale|\.weight_scale|\.weight_global_scale|\.input_global_scale|\.nested_absmax|\.nested_quant_map|\.SCB|\.weight_format)$/;

export const PART_LABELS: Readonly<Record<WeightPart, string>> = {
  embeddings: 'Embeddings and LM head',
  attention: 'Attention / token mixers',
  mlp: 'Dense MLP and routers',
  experts: 'Routed experts',
  'shared-experts': 'Shared experts',
  vision: 'Vision / audio towers',
  mtp: 'MTP layers',
  other: 'Norms and other',
};

export function partOfName(shapeText: string): WeightPart {
  const segments = shapeText.split('.');
  const head = segments[0] === 'model' || segments[0] === 'language_model' ? segments[1] : segments[0];
  if (TOWERS.has(segments[0]) || TOWERS.has(head ?? '')) {
    return 'vision';
  }
  if (/(^|\.)(mtp|nextn)(_|\.|$)/.test(shapeText)) {
    return 'mtp';
  }
  // llama.cpp's names (GGUF) say the same with suffixes: ffn_up_shexp, ffn_gate_exps, ffn_gate_inp (the router).
  if (/\.shared_experts?[._]|shared_expert_gate|\.ffn_\w+_shexp\./.test(shapeText)) {
    return 'shared-experts';
  }
  if (/\.experts[._]|\.switch_mlp\.|\.block_sparse_moe\.(?:input|output)_linear\.|\.ffn_\w+_exps\./.test(shapeText)) {
    return 'experts';
  }
  if (segments.some((segment) => EMBEDDING_SEGMENTS.has(segment)) || shapeText === 'output.weight') {
    return 'embeddings';
  }
  if (/(layernorm|_norm|\.norm)(\.|$)/.test(shapeText)) {
    return 'other';
  }
  if (/attn|attention|\.mixer\.|\.mamba\.|\.ssm[._]/.test(shapeText)) {
    return 'attention';
  }
  // GraniteMoE's `shared_mlp` is its shared expert, and the whole MLP of its dense models (Granite 4.0 Micro).
  if (
    /\.(mlp|shared_mlp|feed_forward|ffn|ff|block_sparse_moe|moe)\.|\.ffn_(?:gate|up|down)(?:_inp)?\./.test(shapeText)
  ) {
    return 'mlp';
  }
  return 'other';
}

const U8 = dtypeCode('U8');
const I32 = dtypeCode('I32');
const U32 = dtypeCode('U32');

/**
 * How a name's elements become parameters: `none` for quantization sidecars, `blocks` for MXFP4 `*_blocks` (two
 * per U8 byte), `words` for GPTQ/AWQ/compressed-tensors int32 words (32 / bits each), else `plain`. Decided on
 * the name shape: none of these tests can match an index segment.
 */
const RULE_NONE = 1;
const RULE_BLOCKS = 2;
const RULE_WORDS = 3;
/** paramRule's answers as the codes the row loop compares. */
const RULE_CODES = { plain: 0, none: RULE_NONE, blocks: RULE_BLOCKS, words: RULE_WORDS } as const;

function paramRule(name: string): 'none' | 'blocks' | 'words' | 'plain' {
  if (NOT_PARAMS.test(name)) {
    return 'none';
  }
  if (name.endsWith('_blocks')) {
    return 'blocks';
  }
  return /\.(qweight|weight_packed)$/.test(name) ? 'words' : 'plain';
}

/** Layer stacks whose indices past the model's layer count are MTP layers (DeepSeek-V3 `model.layers.61`). */
const LAYER_STACK = /(^|\.)layers\.$/;

/** Name segments of an LM head (the unembedding), as opposed to the input embedding. */
const OUTPUT_EMBEDDING_SEGMENTS = new Set(['lm_head', 'embed_out']);

function isOutputEmbedding(shapeText: string): boolean {
  return (
    shapeText === 'output.weight' || shapeText.split('.').some((segment) => OUTPUT_EMBEDDING_SEGMENTS.has(segment))
  );
}

export interface WeightsResult {
  summary: WeightsSummary;
  /** Parameters per part, for the MoE arithmetic. */
  params: Record<WeightPart, number>;
  /** The embeddings part split into the input embedding (token and position) and the LM head. */
  embeddingParams: { input: number; output: number };
}

/** Per name shape, what the row pass needs as typed columns, and the ids and factors it applies. */
interface WeightRules {
  mtpCandidate: Uint8Array;
  rule: Uint8Array;
  partOf: Int32Array;
  outputEmbedding: Uint8Array;
  partCount: number;
  mtpId: number;
  embeddingsId: number;
  mtpFrom: number;
  wordFactor: number;
}

/** Bytes, parameters and tensors summed per part and per dtype code. */
interface WeightSums {
  bytes: number;
  params: number;
  packed: number;
  sidecars: number;
  outputEmbeddingParams: number;
  partTensors: Float64Array;
  partBytes: Float64Array;
  partParams: Float64Array;
  dtypeTensors: Float64Array;
  dtypeBytes: Float64Array;
}

function emptySums(partCount: number): WeightSums {
  return {
    bytes: 0,
    params: 0,
    packed: 0,
    sidecars: 0,
    outputEmbeddingParams: 0,
    partTensors: new Float64Array(partCount),
    partBytes: new Float64Array(partCount),
    partParams: new Float64Array(partCount),
    dtypeTensors: new Float64Array(256),
    dtypeBytes: new Float64Array(256),
  };
}

/**
 * Every row's bytes and parameters, summed per part and per dtype code. It runs once per load, mostly in V8's
 * interpreter, so it reads typed columns and locals with no call per row, and it is a function of its own: V8
 * compiles a loop sooner the smaller the function around it (docs/performance.md, "Loops that run once").
 */
function sumWeightRows(
  index: TensorIndex,
  modelElements: ArrayLike<number> | undefined,
  rules: WeightRules,
): WeightSums {
  const { mtpCandidate, rule, partOf, outputEmbedding, mtpId, embeddingsId, mtpFrom, wordFactor } = rules;
  const sums = emptySums(rules.partCount);
  const { partTensors, partBytes, partParams, dtypeTensors, dtypeBytes } = sums;
  let bytes = 0;
  let params = 0;
  let packed = 0;
  let sidecars = 0;
  let outputEmbeddingParams = 0;
  const columns = index.header.tensors;
  const { rowShape, indexStart, indexValues } = index.shapes();
  const { elements: elementColumn, begin, end, dtype: dtypeColumn } = columns;
  const count = index.count;
  for (let row = 0; row < count; row++) {
    const s = rowShape[row];
    const part = mtpCandidate[s] === 1 && indexValues[indexStart[row]] >= mtpFrom ? mtpId : partOf[s];
    // x - x === 0 exactly when x is finite.
    const value = elementColumn[row];
    const stored = value - value === 0 ? value : 0;
    let share = 1;
    if (modelElements !== undefined) {
      share = stored > 0 ? (modelElements[row] ?? 0) / stored : 0;
      if (share === 0) {
        continue;
      }
    }
    const span = end[row] - begin[row];
    const rowBytes = (span - span === 0 && span >= 0 ? span : storedBytes(columns, row)) * share;
    const code = dtypeColumn[row];
    const elements = stored * share;
    let rowParams = elements;
    const rowRule = rule[s];
    if (rowRule === RULE_NONE) {
      rowParams = 0;
      sidecars += elements > 0 ? 1 : 0;
    } else if (rowRule === RULE_BLOCKS && code === U8) {
      rowParams = elements * 2; // MXFP4: two 4-bit values per byte.
      packed++;
    } else if (rowRule === RULE_WORDS && (code === I32 || code === U32)) {
      rowParams = elements * wordFactor;
      packed++;
    }
    bytes += rowBytes;
    params += rowParams;
    partTensors[part]++;
    partBytes[part] += rowBytes;
    partParams[part] += rowParams;
    if (part === embeddingsId && outputEmbedding[s] === 1) {
      outputEmbeddingParams += rowParams;
    }
    dtypeTensors[code]++;
    dtypeBytes[code] += rowBytes;
  }
  return { ...sums, bytes, params, packed, sidecars, outputEmbeddingParams };
}

/**
 * sumWeightRows' answer from the table's shape groups (core/analysis/shape-groups.ts): every figure it sums depends
 * only on a row's shape, dtype, first index value, bytes and elements, and the groups hold those sums.
 */
function sumWeightGroups(groups: ShapeGroups, rules: WeightRules): WeightSums {
  const { mtpCandidate, rule, partOf, outputEmbedding, mtpId, embeddingsId, mtpFrom, wordFactor } = rules;
  const sums = emptySums(rules.partCount);
  const { partTensors, partBytes, partParams, dtypeTensors, dtypeBytes } = sums;
  for (let g = 0; g < groups.count; g++) {
    const s = groups.shape[g];
    const part = mtpCandidate[s] === 1 && groups.first[g] >= mtpFrom ? mtpId : partOf[s];
    const tensors = groups.tensors[g];
    const groupBytes = groups.bytes[g];
    const elements = groups.elements[g];
    const code = groups.dtype[g];
    let groupParams = elements;
    const groupRule = rule[s];
    if (groupRule === RULE_NONE) {
      groupParams = 0;
      sums.sidecars += groups.nonEmpty[g];
    } else if (groupRule === RULE_BLOCKS && code === U8) {
      groupParams = elements * 2;
      sums.packed += tensors;
    } else if (groupRule === RULE_WORDS && (code === I32 || code === U32)) {
      groupParams = elements * wordFactor;
      sums.packed += tensors;
    }
    sums.bytes += groupBytes;
    sums.params += groupParams;
    partTensors[part] += tensors;
    partBytes[part] += groupBytes;
    partParams[part] += groupParams;
    if (part === embeddingsId && outputEmbedding[s] === 1) {
      sums.outputEmbeddingParams += groupParams;
    }
    dtypeTensors[code] += tensors;
    dtypeBytes[code] += groupBytes;
  }
  return sums;
}

export function weightsSummary(index: TensorIndex, mainLayers: number | null, quantBits: number | null): WeightsResult {
  const shapes = index.shapes();
  const parts: WeightPart[] = shapes.text.map((text) => partOfName(text));
  const totals = new Map<WeightPart, WeightPartTotal>();
  const byDtype = new Map<string, { tensors: number; bytes: number }>();
  const partIds = Object.keys(PART_LABELS) as WeightPart[];
  // A checkpoint's model: its weights section, each storage once (a tied name or a view adds nothing; optimizer
  // moments are not weights a GPU holds to serve the model).
  const modelElements = index.header.checkpoint?.rows.model;
  const groups = modelElements === undefined ? shapeGroupsOf(shapes) : undefined;
  const rules: WeightRules = {
    mtpCandidate: Uint8Array.from(shapes.pieces, (pieces, s) =>
      mainLayers !== null && shapes.slots[s] > 0 && LAYER_STACK.test(pieces[0]) ? 1 : 0,
    ),
    rule: Uint8Array.from(shapes.text, (text) => RULE_CODES[paramRule(text)]),
    partOf: Int32Array.from(parts, (part) => partIds.indexOf(part)),
    outputEmbedding: Uint8Array.from(shapes.text, (text, s) =>
      parts[s] === 'embeddings' && isOutputEmbedding(text) ? 1 : 0,
    ),
    partCount: partIds.length,
    mtpId: partIds.indexOf('mtp'),
    embeddingsId: partIds.indexOf('embeddings'),
    mtpFrom: mainLayers ?? Infinity,
    wordFactor: 32 / (quantBits ?? 4),
  };
  // Grouped first indices are capped: past the cap only rows can tell MTP layers from the main stack.
  const mtpPastCap = Number.isFinite(rules.mtpFrom) && rules.mtpFrom > MAX_GROUPED_FIRST_INDEX;
  const sums =
    groups !== undefined && !mtpPastCap ? sumWeightGroups(groups, rules) : sumWeightRows(index, modelElements, rules);
  const buffers = leaveOutBuffers(index, modelElements, rules, sums);
  const { bytes, params, packed, sidecars, outputEmbeddingParams, partTensors, partBytes, partParams } = sums;
  const { dtypeTensors, dtypeBytes } = sums;
  partIds.forEach((part, id) => {
    if (partTensors[id] > 0) {
      totals.set(part, { part, tensors: partTensors[id], bytes: partBytes[id], params: partParams[id] });
    }
  });
  for (let code = 0; code < 256; code++) {
    if (dtypeTensors[code] > 0) {
      byDtype.set(dtypeName(code) ?? 'unknown', { tensors: dtypeTensors[code], bytes: dtypeBytes[code] });
    }
  }
  const paramsByPart = Object.fromEntries(
    (Object.keys(PART_LABELS) as WeightPart[]).map((part) => [part, totals.get(part)?.params ?? 0]),
  ) as Record<WeightPart, number>;
  const notes: string[] = ['Parameters are tensor elements'];
  if (packed > 0) {
    notes.push(
      `${packed} packed tensors unpacked (MXFP4 blocks × 2, int32 words × ${32 / (quantBits ?? 4)} at ${quantBits ?? 4} bits)`,
    );
  }
  if (sidecars > 0) {
    notes.push(`${sidecars} quantization scale / zero-point tensors not counted as parameters`);
  }
  if (buffers > 0) {
    notes.push(
      `${plural(buffers, 'registered buffer')} not counted as parameters (masks, rotary tables and position ids, which loaders rebuild, not as bytes either)`,
    );
  }
  return {
    summary: {
      bytes,
      params,
      byDtype: [...byDtype.entries()].map(([dtype, total]) => ({ dtype, ...total })).sort((a, b) => b.bytes - a.bytes),
      byPart: [...totals.values()].sort((a, b) => b.bytes - a.bytes),
      paramsNote: `${notes.join('; ')}.`,
      bytesBasis:
        modelElements === undefined
          ? "every tensor's bytes as stored in the header"
          : "the model-weights section's storages, each counted once (tied names and views add nothing; optimizer and other sections left out)",
    },
    params: paramsByPart,
    embeddingParams: { input: paramsByPart.embeddings - outputEmbeddingParams, output: outputEmbeddingParams },
  };
}

/**
 * Takes registered buffers (analysis/buffers.ts) out of the sums, as the headline count leaves them out: out of the
 * parameters all of them; out of the bytes and tensors too the ones a loader rebuilds from the config rather than
 * reads (causal masks, rotary tables, position ids: transformers 4.31 and later skips the stored copies), while
 * batch-norm statistics stay held. Returns how many buffers there were.
 */
function leaveOutBuffers(
  index: TensorIndex,
  modelElements: readonly number[] | undefined,
  rules: WeightRules,
  sums: WeightSums,
): number {
  const { rows, kinds } = findBufferRows(index);
  const { rowShape, indexStart, indexValues } = index.shapes();
  const columns = index.header.tensors;
  rows.forEach((row, i) => {
    const s = rowShape[row];
    const part =
      rules.mtpCandidate[s] === 1 && indexValues[indexStart[row]] >= rules.mtpFrom ? rules.mtpId : rules.partOf[s];
    const value = index.elements(row);
    const stored = Number.isFinite(value) ? value : 0;
    // A checkpoint's share of the row its weights section counts, as sumWeightRows takes it.
    const share = modelElements === undefined ? 1 : stored > 0 ? (modelElements[row] ?? 0) / stored : 0;
    if (share === 0) {
      return;
    }
    sums.params -= stored * share;
    sums.partParams[part] -= stored * share;
    if (isRebuiltBuffer(kinds[i])) {
      const rowBytes = storedBytes(columns, row) * share;
      const code = columns.dtype[row];
      sums.bytes -= rowBytes;
      sums.partBytes[part] -= rowBytes;
      sums.partTensors[part]--;
      sums.dtypeBytes[code] -= rowBytes;
      sums.dtypeTensors[code]--;
    }
  });
  return rows.length;
}
