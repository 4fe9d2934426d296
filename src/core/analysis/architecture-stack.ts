/**
 * The architecture analysis' one pass over the layer stack: per layer, its experts (numbered or packed), MTP
 * tensors, router and shared experts, found by testing each name shape once rather than each name.
 */
import type { NameShapes, TensorIndex } from './tensor-index';

/**
 * A layer stack that is an encoder's (BERT's kin `bert.encoder.layer.N`, ALBERT's shared
 * `albert.encoder.albert_layer_groups.N`, T5's `encoder.block.N`, CLIP's `text_model.encoder.layers.N`, wav2vec2's
 * `encoder.layers.N`, DistilBERT's `distilbert.transformer.layer.N`): it reads its whole input at once.
 */
export const ENCODER_STACK_PREFIX = /(?:^|\.)(?:encoder\.[a-z_]+|distilbert\.transformer\.layer)\.$/;

const RE_MTP_TENSOR = /(?:^|\.)(?:eh_proj|enorm|hnorm|shared_head)\./;
/** Routers; llama.cpp's GGUF names it `blk.N.ffn_gate_inp`, GraniteMoE `block_sparse_moe.router.layer`. */
const RE_ROUTER =
  /\.(?:mlp|block_sparse_moe|feed_forward)\.(?:gate|router|router\.layer)\.weight$|(?:^|\.)ffn_gate_inp\.weight$/;
/** llama.cpp's GGUF names for packed experts (`blk.N.ffn_gate_exps` [E, I, H]) and shared ones (`ffn_up_shexp`). */
const RE_GGUF_PACKED_EXPERTS = /(?:^|\.)ffn_(?:gate|up|down|gate_up)_exps\./;
const RE_GGUF_SHARED_EXPERT = /(?:^|\.)ffn_(?:gate|up|down)_shexp\./;
/**
 * transformers' GraniteMoE family (Granite 3 MoE, Granite 4.0-H): every expert's gate and up rows in one
 * `block_sparse_moe.input_linear.weight [E, 2I, H]`, their down rows in `output_linear.weight [E, H, I]`.
 */
const RE_GRANITE_PACKED_EXPERTS = /\.block_sparse_moe\.(?:input|output)_linear\./;
/** The first expert's gate/up weight, whose module gives the expert FFN width. */
const RE_EXPERT_MODULE = /\.experts\.0\.(?:gate_proj|w1|up_proj|fc1)\.(?:weight|qweight|weight_packed)$/;
/** RE_EXPERT_MODULE with the index written as a shape writes it: which shapes can hold such a name. */
const RE_EXPERT_MODULE_SHAPE = /\.experts\.#\.(?:gate_proj|w1|up_proj|fc1)\.(?:weight|qweight|weight_packed)$/;

/** `expertSlotOf` for shapes with neither `.experts.` nor `.switch_mlp.`. */
const NOT_EXPERT = -2;

/**
 * Where a shape's expert index is: the index-tuple position of the segment after the first `.experts.` when that
 * segment is an index followed by more name (`experts.17.up_proj`), -1 for other expert tensors (packed
 * `experts.gate_up_proj`, MLX `switch_mlp.*`), NOT_EXPERT for the rest.
 */
function expertSlotOf(pieces: readonly string[], text: string): number {
  for (let j = 0; j < pieces.length; j++) {
    // '.experts.' holds no digits, so it lies inside one literal piece; the first piece holding it is the first
    // occurrence in every name of the shape.
    const at = pieces[j].indexOf('.experts.');
    if (at >= 0) {
      const slotFollows = at + '.experts.'.length === pieces[j].length && j + 1 < pieces.length;
      return slotFollows && pieces[j + 1] !== '' ? j : -1;
    }
  }
  return isOtherPackedExperts(text) ? -1 : NOT_EXPERT;
}

/**
 * Whether tensor `name` of rank `rank` stacks a layer's experts along its first dim, as the stack scan below counts
 * them: `experts.` followed by a module rather than an index (gpt-oss `experts.gate_up_proj`), MLX `switch_mlp.*`,
 * llama.cpp's `ffn_*_exps`.
 */
export function isPackedExpertTensor(name: string, rank: number): boolean {
  if (rank < 3) {
    return false;
  }
  const at = name.indexOf('.experts.');
  if (at >= 0) {
    return !/^\d+\./.test(name.slice(at + '.experts.'.length));
  }
  return isOtherPackedExperts(name);
}

/** Packed experts named without `.experts.`: MLX `switch_mlp.*`, llama.cpp's `ffn_*_exps`, GraniteMoE's linears. */
function isOtherPackedExperts(text: string): boolean {
  return text.includes('.switch_mlp.') || RE_GGUF_PACKED_EXPERTS.test(text) || RE_GRANITE_PACKED_EXPERTS.test(text);
}

/** One flag per shape. */
export function shapeFlags(shapes: NameShapes, test: (text: string, shape: number) => boolean): Uint8Array {
  const flags = new Uint8Array(shapes.count);
  for (let s = 0; s < shapes.count; s++) {
    flags[s] = test(shapes.text[s], s) ? 1 : 0;
  }
  return flags;
}

/** What the expert / MTP / shared-expert checks need from every layer of the stack, gathered in one pass. */
export interface StackScan {
  /** Layer indices in order of first appearance. */
  layers: number[];
  /** Per layer (same order): holds MTP tensors. */
  mtp: boolean[];
  /** Largest expert index + 1 and packed expert counts (shape[0]); 0 when none. */
  count: number[];
  /** Holds packed (rank ≥ 3) expert tensors. */
  packed: boolean[];
  /** First non-null packedExpertWidth in header order. */
  packedWidth: Array<number | null>;
  /** First row naming expert 0's gate/up weight, or -1. */
  expertModuleRow: number[];
  /** First 2-D router weight, or -1. */
  routerRow: number[];
  shared: boolean[];
  /** Numbers of `shared_experts.<n>.` modules. */
  numberedShared: Array<Set<number> | null>;
  /** Rows of one layer, in header order. */
  rowsOf(layer: number): number[];
}

/**
 * One pass over the rows of the layer stack (shapes flagged in `inStack`), in header order: per layer, what a
 * loop over that layer's rows would find first or at most. Name tests are per shape (see tensor-index.ts); the
 * two regexes that read digits run only on the few names their shape lets through.
 */
export function scanStack(index: TensorIndex, inStack: Uint8Array, hidden: number | null): StackScan {
  const shapes = index.shapes();
  const { rowShape, indexStart, indexValues } = shapes;
  const names = index.names;
  const isMtp = shapeFlags(shapes, (text) => RE_MTP_TENSOR.test(text));
  const expertSlot = Int32Array.from(shapes.pieces, (pieces, s) => expertSlotOf(pieces, shapes.text[s]));
  // Candidates for the first expert's gate/up weight; the regex itself still runs on their names.
  const mayBeExpertModule = shapeFlags(shapes, (text) => RE_EXPERT_MODULE_SHAPE.test(text));
  const isRouter = shapeFlags(shapes, (text) => RE_ROUTER.test(text));
  const isShared = shapeFlags(shapes, (text) => /\.shared_experts?\./.test(text) || RE_GGUF_SHARED_EXPERT.test(text));
  const mayBeNumberedShared = shapeFlags(shapes, (text) => text.includes('.shared_experts.'));
  const scan: StackScan = {
    layers: [],
    mtp: [],
    count: [],
    packed: [],
    packedWidth: [],
    expertModuleRow: [],
    routerRow: [],
    shared: [],
    numberedShared: [],
    rowsOf(layer) {
      // Between the layer's first and last row in header order: one short run when the header keeps each layer
      // together, as writers do, and never more than one pass (sorting every stack shape to find them cost more).
      const id = ids.get(layer);
      const rows: number[] = [];
      if (id === undefined) {
        return rows;
      }
      for (let row = firstRow[id]; row <= lastRow[id]; row++) {
        if (inStack[rowShape[row]] === 1 && indexValues[indexStart[row]] === layer) {
          rows.push(row);
        }
      }
      return rows;
    },
  };
  const ids = new Map<number, number>();
  // Per layer id: its first and last row in header order (rowsOf reads between them).
  const firstRow: number[] = [];
  const lastRow: number[] = [];
  let lastLayer = -1;
  let id = -1;
  // The loop keeps what most rows need; a new layer, a shared expert and a packed expert tensor are the helpers'
  // (the optimizing compiler compiles this loop once per load: docs/performance.md, "What V8 compiles per load").
  for (let row = 0; row < index.count; row++) {
    const shape = rowShape[row];
    if (inStack[shape] === 0) {
      continue;
    }
    const layer = indexValues[indexStart[row]];
    if (layer !== lastLayer) {
      id = layerId(scan, ids, layer, row, firstRow, lastRow);
      lastLayer = layer;
    }
    lastRow[id] = row;
    if (isMtp[shape] === 1) {
      scan.mtp[id] = true;
    }
    if (isShared[shape] === 1) {
      noteShared(scan, id, mayBeNumberedShared[shape] === 1 ? names[row] : null);
    }
    if (scan.routerRow[id] < 0 && isRouter[shape] === 1 && index.rank(row) === 2) {
      scan.routerRow[id] = row;
    }
    const slot = expertSlot[shape];
    if (slot === NOT_EXPERT) {
      continue;
    }
    if (slot >= 0) {
      scan.count[id] = Math.max(scan.count[id], indexValues[indexStart[row] + slot] + 1);
      if (
        scan.expertModuleRow[id] < 0 &&
        mayBeExpertModule[shape] === 1 &&
        indexValues[indexStart[row + 1] - 1] === 0 &&
        RE_EXPERT_MODULE.test(names[row])
      ) {
        scan.expertModuleRow[id] = row;
      }
      continue;
    }
    if (index.rank(row) >= 3) {
      notePacked(scan, id, index, row, hidden);
    }
  }
  return scan;
}

/** The id of `layer` in `scan`, adding it (with `row` as its first row) when it is new. */
function layerId(
  scan: StackScan,
  ids: Map<number, number>,
  layer: number,
  row: number,
  firstRow: number[],
  lastRow: number[],
): number {
  const known = ids.get(layer);
  if (known !== undefined) {
    return known;
  }
  const id = scan.layers.length;
  ids.set(layer, id);
  scan.layers.push(layer);
  scan.mtp.push(false);
  scan.count.push(0);
  scan.packed.push(false);
  scan.packedWidth.push(null);
  scan.expertModuleRow.push(-1);
  scan.routerRow.push(-1);
  scan.shared.push(false);
  scan.numberedShared.push(null);
  firstRow.push(row);
  lastRow.push(row);
  return id;
}

/** Layer `id` holds a shared expert; `name` is given when its shape may number it (`shared_experts.<n>.`). */
function noteShared(scan: StackScan, id: number, name: string | null): void {
  scan.shared[id] = true;
  const match = name === null ? null : /\.shared_experts\.(\d+)\./.exec(name);
  if (match) {
    (scan.numberedShared[id] ??= new Set()).add(Number(match[1]));
  }
}

/** Layer `id` holds packed (rank ≥ 3) expert tensor `row`: experts along its first dim. */
function notePacked(scan: StackScan, id: number, index: TensorIndex, row: number, hidden: number | null): void {
  scan.count[id] = Math.max(scan.count[id], index.dim(row, 0));
  scan.packed[id] = true;
  scan.packedWidth[id] ??= packedExpertWidth(index, row, hidden);
}

/**
 * Per-expert FFN width from a packed expert tensor: gpt-oss MXFP4 `gate_up_proj_blocks [E, 2I, G, 16]`, BF16
 * `gate_up_proj [E, H, 2I]` (in-major) or `[E, 2I, H]`, MLX `switch_mlp.gate_proj.weight [E, I, packed]`, llama.cpp
 * `ffn_gate_exps.weight [E, I, H]` (GGUF's ne reversed into PyTorch order), GraniteMoE
 * `block_sparse_moe.input_linear.weight [E, 2I, H]`.
 */
function packedExpertWidth(index: TensorIndex, row: number, hidden: number | null): number | null {
  const name = index.names[row];
  if (/gate_up_proj_blocks$|block_sparse_moe\.input_linear\.weight$/.test(name)) {
    return index.dim(row, 1) / 2;
  }
  if (/gate_up_proj$/.test(name) && index.rank(row) === 3) {
    const width = index.dim(row, 1) === hidden ? index.dim(row, 2) : index.dim(row, 1);
    return width / 2;
  }
  if (/switch_mlp\.(?:gate_proj|up_proj)\.weight$/.test(name) || /ffn_(?:gate|up)_exps\.weight$/.test(name)) {
    return index.dim(row, 1);
  }
  return null;
}
