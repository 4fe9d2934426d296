/**
 * The module tree's per-row work (module-tree.ts): each template's rows sorted by index tuple with prefix sums, and
 * the numbered instances of a `#` node under one parent with their totals and content hashes. The steps that touch
 * every row of a template are generators: the worker builds the tree in slices (core/steps.ts), so a file dropped
 * while a large tree is built is read within a slice, not after the whole tree.
 */
import type { TensorColumns } from '../model';
import { storedBytes, tupleRange, type NameShapes, type TensorIndex } from './tensor-index';
import { MAX_TREE_NODES, TREE_ROWS_PER_STEP } from './analysis-limits';
import type { Steps } from '../steps';

/** One node of the template tree: a literal segment, or `#` standing for every numbered sibling. */
export interface TemplateNode {
  segment: string;
  /** What follows the segment in the names below it: `.`, or `_` in a path written with underscores. */
  separator: string;
  numeric: boolean;
  children: TemplateNode[];
  /** Number of `#` nodes from the root down to and including this one. */
  depth: number;
  /** Template id when a tensor name ends here, else -1. */
  template: number;
  /** Every template id at or below this node. */
  below: number[];
  /** For `#` nodes: the instances under each parent (keyed by its index prefix), computed when first needed. */
  instances: Map<number | string, Instances> | null;
  /** Children by segment (`#` for the numeric child), created past MAX_SCANNED_CHILDREN children: a million distinct
   * paths must not scan long sibling lists, and short lists should not pay for a Map. */
  childIndex: Map<string, TemplateNode> | null;
}

/** The numbered instances of one `#` node under one parent (layer 3 of `layers.#`; expert 17 of layer 3), as columns sorted by index. */
export interface Instances {
  index: Int32Array;
  tensors: Float64Array;
  elements: Float64Array;
  bytes: Float64Array;
  h1: Int32Array;
  h2: Int32Array;
}

/** Rows of one template, sorted by their index tuple, with prefix sums for range totals. */
export interface TemplateRows {
  depth: number;
  rows: Int32Array;
  /** Flattened index tuples (depth per row), in `rows` order. */
  keys: Int32Array;
  /** Plain arrays: typed arrays cost far more to allocate, and a header of distinct paths has a template per row. */
  elements: number[];
  bytes: number[];
}

/**
 * Rows of template t sorted by index tuple (shared with the index's lookups), with prefix sums; built when a node
 * first needs a part of the template's rows (under one layer, one expert), so a header whose templates have no
 * index segment, or whose tree never opens them, builds none.
 */
export function groupOf(state: RenderState, t: number): TemplateRows {
  let group = state.groups[t];
  if (group !== undefined) {
    return group;
  }
  const columns = state.index.header.tensors;
  const { rows, keys, depth } = state.index.sortedShape(t);
  const elements = new Array<number>(rows.length + 1);
  const bytes = new Array<number>(rows.length + 1);
  elements[0] = 0;
  bytes[0] = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const e = columns.elements[row];
    elements[i + 1] = elements[i] + (Number.isFinite(e) ? e : 0);
    bytes[i + 1] = bytes[i] + storedBytes(columns, row);
  }
  group = { depth, rows, keys, elements, bytes };
  state.groups[t] = group;
  return group;
}

/** Each template's totals over all its rows, from one pass over the rows. */
export interface TemplateTotals {
  elements: Float64Array;
  bytes: Float64Array;
}

export function* templateTotals(index: TensorIndex, shapes: NameShapes): Steps<TemplateTotals> {
  const columns = index.header.tensors;
  const elements = new Float64Array(shapes.count);
  const bytes = new Float64Array(shapes.count);
  let sinceStep = 0;
  // Summed in each template's sorted-row order, as the groups' prefix sums are, so a total reads the same whether
  // it comes from here or from a group.
  for (let t = 0; t < shapes.count; t++) {
    const { rows } = shapes.slots[t] === 0 ? { rows: null } : index.sortedShape(t);
    const from = shapes.rowStart[t];
    const to = shapes.rowStart[t + 1];
    let e = 0;
    let b = 0;
    for (let i = from; i < to; i++) {
      const row = rows === null ? shapes.rowList[i] : rows[i - from];
      const value = columns.elements[row];
      e += Number.isFinite(value) ? value : 0;
      b += storedBytes(columns, row);
    }
    elements[t] = e;
    bytes[t] = b;
    sinceStep += to - from + 1;
    if (sinceStep >= TREE_ROWS_PER_STEP) {
      sinceStep = 0;
      yield;
    }
  }
  return { elements, bytes };
}

/** Whether rows of template t under index prefix `context` are all its rows (no index segment narrows them). */
export function wholeTemplate(state: RenderState, t: number, context: readonly number[]): boolean {
  return context.length === 0 || state.shapes.slots[t] === 0;
}

/** Index-tuple prefix → a Map key: exact numbers for the common short prefixes, text beyond. */
function prefixKey(keys: ArrayLike<number>, at: number, length: number): number | string {
  if (length === 0) {
    return 0;
  }
  if (length === 1) {
    return keys[at];
  }
  if (length === 2 && keys[at] < 2 ** 26 && keys[at + 1] < 2 ** 26) {
    return keys[at] * 2 ** 26 + keys[at + 1];
  }
  let text = '';
  for (let i = 0; i < length; i++) {
    text += `${keys[at + i]},`;
  }
  return text;
}

/** 32-bit mix (murmur3 finalizer) so sums of row hashes do not cancel structurally. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * The instances of `#` node `node` under one parent (index prefix `context`): totals and a content hash each.
 * Computed only for the parents the tree renders — a collapsed run of 93 layers renders the experts of its
 * first layer, so the other 92 × 896 expert instances are never built. A row's identity relative to its instance
 * is its template, its deeper indices, dtype and shape; an instance's hash is the sum over its rows.
 */
export function* instancesOf(state: RenderState, node: TemplateNode, context: readonly number[]): Steps<Instances> {
  const cache = node.instances ?? new Map<number | string, Instances>();
  node.instances = cache;
  const key = prefixKey(context, 0, context.length);
  const cached = cache.get(key);
  if (cached) {
    return cached;
  }
  const at = node.depth - 1;
  // Each template's rows under this parent, sorted by index tuple: their instance index (tuple position `at`)
  // never decreases within a range.
  const ranges: Range[] = [];
  for (const t of node.below) {
    const built = state.groups[t] !== undefined;
    const group = groupOf(state, t);
    const [from, to] = range(group, context);
    if (to > from) {
      ranges.push({ group, from, to, t });
    }
    if (!built) {
      yield;
    }
  }
  // Usually one template has every instance (every layer has an input_layernorm, every expert a gate_proj): its
  // distinct indices are the instances, unless another template turns out to have one it lacks.
  const out =
    (yield* accumulate(state, ranges, at, largestIndices(ranges, at))) ??
    (yield* accumulate(state, ranges, at, allIndices(ranges, at)));
  if (out === null) {
    throw new Error('module tree: an instance index went missing'); // Unreachable: allIndices holds every index.
  }
  cache.set(key, out);
  return out;
}

type Range = { group: TemplateRows; from: number; to: number; t: number };

/**
 * Totals and content hashes of the instances `indices` over the ranges, or null when a row's instance index is
 * not among `indices`. Sums run in template order, rows in index order, as they always have (so they round
 * alike); an instance's running totals live in locals while its rows go by.
 */
function* accumulate(
  state: RenderState,
  ranges: readonly Range[],
  at: number,
  indices: Int32Array,
): Steps<Instances | null> {
  const columns = state.index.header.tensors;
  const count = indices.length;
  const out: Instances = {
    index: indices,
    tensors: new Float64Array(count),
    elements: new Float64Array(count),
    bytes: new Float64Array(count),
    h1: new Int32Array(count),
    h2: new Int32Array(count),
  };
  for (const range of ranges) {
    // A part at a time: a part ends by storing its sums, and the next one starts by reading them back.
    for (let from = range.from; from < range.to; from += TREE_ROWS_PER_STEP) {
      if (!accumulateRows(columns, range, from, Math.min(range.to, from + TREE_ROWS_PER_STEP), at, out)) {
        return null;
      }
      yield;
    }
  }
  return out;
}

/**
 * accumulate() over rows [from, to) of one template's range, in a plain function V8 optimizes as one loop; false
 * on a missing index.
 */
function accumulateRows(
  columns: TensorColumns,
  range: Range,
  from: number,
  to: number,
  at: number,
  out: Instances,
): boolean {
  const { group, t } = range;
  const { index: indices, h1: outH1, h2: outH2, tensors: outTensors, elements: outElements, bytes: outBytes } = out;
  const count = indices.length;
  const { depth, rows, keys } = group;
  const elementSums = group.elements;
  const byteSums = group.bytes;
  const seed1 = mix(t + 0x9e3779b9);
  const seed2 = mix(Math.imul(t, 31) + 7);
  let slot = -1;
  let value = -1;
  let previous = -1;
  let base1 = 0;
  let base2 = 0;
  let h1Sum = 0;
  let h2Sum = 0;
  let tensors = 0;
  let elements = 0;
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const row = rows[i];
    const index = keys[i * depth + at];
    if (index !== value) {
      slot = lowerBound(indices, index, slot < 0 ? 0 : slot);
      if (slot === count || indices[slot] !== index) {
        return false;
      }
      value = index;
      h1Sum = outH1[slot];
      h2Sum = outH2[slot];
      tensors = outTensors[slot];
      elements = outElements[slot];
      bytes = outBytes[slot];
    }
    if (previous < 0 || !sameDtypeAndShape(columns, row, previous)) {
      // Repeated structure (896 experts of one shape) reuses the hash: equal inputs, equal hash.
      base1 = mix(seed1 ^ columns.dtype[row]);
      base2 = mix(seed2 + columns.dtype[row]);
      for (let d = columns.shapeStarts[row]; d < columns.shapeStarts[row + 1]; d++) {
        const dim = columns.dims[d];
        base1 = mix(base1 ^ (dim >>> 0) ^ Math.floor(dim / 2 ** 32));
        base2 = mix(base2 + Math.imul(dim >>> 0, 0x165667b1));
      }
      previous = row;
    }
    let h1 = base1;
    let h2 = base2;
    for (let d = at + 1; d < depth; d++) {
      const deeper = keys[i * depth + d];
      h1 = mix(h1 ^ deeper);
      h2 = mix(h2 + Math.imul(deeper, 0x27d4eb2d));
    }
    h1Sum = (h1Sum + h1) | 0;
    h2Sum = (h2Sum + h2) | 0;
    tensors++;
    elements += elementSums[i + 1] - elementSums[i];
    bytes += byteSums[i + 1] - byteSums[i];
    // The last row of this index's run stores the run's sums.
    if (i + 1 === to || keys[(i + 1) * depth + at] !== index) {
      outH1[slot] = h1Sum;
      outH2[slot] = h2Sum;
      outTensors[slot] = tensors;
      outElements[slot] = elements;
      outBytes[slot] = bytes;
    }
  }
  return true;
}

/** The distinct instance indices (tuple position `at`) of the largest range, ascending. */
function largestIndices(ranges: readonly Range[], at: number): Int32Array {
  let largest: Range | null = null;
  for (const r of ranges) {
    if (largest === null || r.to - r.from > largest.to - largest.from) {
      largest = r;
    }
  }
  return largest === null ? new Int32Array(0) : distinctIndices([largest], at);
}

/** Every distinct instance index (tuple position `at`) over all ranges, ascending. */
function allIndices(ranges: readonly Range[], at: number): Int32Array {
  const all = distinctIndices(ranges, at).sort();
  let count = 0;
  for (let i = 0; i < all.length; i++) {
    if (count === 0 || all[count - 1] !== all[i]) {
      all[count++] = all[i];
    }
  }
  return all.slice(0, count);
}

/** Index `at` of every row of the ranges, consecutive repeats dropped (one range's are ascending). */
function distinctIndices(ranges: readonly Range[], at: number): Int32Array {
  let total = 0;
  for (const r of ranges) {
    total += r.to - r.from;
  }
  const out = new Int32Array(total);
  let count = 0;
  for (const { group, from, to } of ranges) {
    for (let i = from; i < to; i++) {
      const index = group.keys[i * group.depth + at];
      if (count === 0 || out[count - 1] !== index) {
        out[count++] = index;
      }
    }
  }
  return out.slice(0, count);
}

/** First position ≥ `from` in sorted `values` whose value is ≥ `value`. */
function lowerBound(values: Int32Array, value: number, from: number): number {
  let lo = from;
  let hi = values.length;
  // Instances are usually visited in order: try the next slot before bisecting.
  if (lo < hi && values[lo] >= value) {
    return lo;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

function sameDtypeAndShape(columns: TensorColumns, a: number, b: number): boolean {
  const from = columns.shapeStarts[a];
  const rank = columns.shapeStarts[a + 1] - from;
  const other = columns.shapeStarts[b];
  if (columns.dtype[a] !== columns.dtype[b] || columns.shapeStarts[b + 1] - other !== rank) {
    return false;
  }
  for (let d = 0; d < rank; d++) {
    if (columns.dims[from + d] !== columns.dims[other + d]) {
      return false;
    }
  }
  return true;
}

export interface RenderState {
  index: TensorIndex;
  shapes: NameShapes;
  totals: TemplateTotals;
  /** groupOf's cache, by template. */
  groups: Array<TemplateRows | undefined>;
  nodes: number;
}

/** Whether the tree may still grow: past MAX_TREE_NODES every further child folds into its parent's `more`. */
export function underBudget(state: RenderState): boolean {
  return state.nodes < MAX_TREE_NODES;
}

/** Row range of a template whose index tuple starts with `context`. */
export function range(group: TemplateRows, context: readonly number[]): [number, number] {
  const depth = group.depth;
  const length = Math.min(context.length, depth);
  if (length === 0) {
    return [0, group.rows.length];
  }
  return tupleRange(group.keys, depth, context);
}
