/**
 * The module tree: tensors grouped by dotted name into a hierarchy with element and byte totals per subtree.
 * Runs of numbered siblings that are structurally identical (same names below them, same dtypes and shapes)
 * collapse into one node (`layers.{3-60}` ×58), so a 250,000-tensor MoE header becomes a tree of a few dozen
 * nodes. Siblings that differ (dense vs MoE layers, an MTP layer) stay separate runs.
 *
 * Why not a plain trie: a trie of 250,000 names holds ~600,000 long-lived nodes, and building it costs seconds of
 * garbage collection. Instead the templates are the name shapes of the shared index (tensor-index.ts: every name
 * parsed once, numeric segments written `#`, plus its index tuple). Templates are few (hundreds), so the
 * structural tree is small; per-row data lives in typed arrays. Each numbered instance (layer 3, expert (3, 17))
 * gets exact totals and an order-independent 64-bit content hash (sum of per-row hashes over template,
 * sub-indices, dtype and shape); equal hashes on consecutive indices collapse. Instances are computed per parent
 * and only for the parents the tree shows: a run of 93 identical layers shows the experts of its first layer, so
 * the experts of the other 92 are never gathered. A crafted header could in principle force a hash collision and
 * merge two different layers in this VIEW; totals stay exact and no finding depends on it.
 *
 * Nodes identify their rows by a name pattern, not index arrays: see modulePatternMatcher (module-pattern.ts).
 */
import type { TensorColumns } from '../model';
import { MAX_TENSOR_RANK } from '../limits';
import {
  MAX_LAYER_POINTS,
  MAX_LAYER_SERIES,
  SUMMED_LAYER_POINTS,
  MAX_TOP_LEVEL_SERIES,
  MAX_TREE_CHILDREN,
  MAX_TREE_NODES,
  MAX_TREE_TEMPLATES,
} from './analysis-limits';
import type { LayerSeries, ModuleNode, ModuleTreeSection, SeriesPoint } from './report-sections';
import { storedBytes, tensorIndex, tupleRange, type NameShapes, type TensorIndex } from './tensor-index';
import type { Analysis, AnalysisInput } from './analysis-types';
import { compareNatural } from '../natural-order';

/** One node of the template tree: a literal segment, or `#` standing for every numbered sibling. */
interface TemplateNode {
  segment: string;
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
interface Instances {
  index: Int32Array;
  tensors: Float64Array;
  elements: Float64Array;
  bytes: Float64Array;
  h1: Int32Array;
  h2: Int32Array;
}

/** Rows of one template, sorted by their index tuple, with prefix sums for range totals. */
interface TemplateRows {
  depth: number;
  rows: Int32Array;
  /** Flattened index tuples (depth per row), in `rows` order. */
  keys: Int32Array;
  /** Plain arrays: typed arrays cost far more to allocate, and a header of distinct paths has a template per row. */
  elements: number[];
  bytes: number[];
}

export const moduleTreeAnalysis: Analysis<'moduleTree', ModuleTreeSection> = {
  id: 'moduleTree',
  run: (input: AnalysisInput) => ({ section: buildModuleTree(tensorIndex(input.header, input.names)), findings: [] }),
};

export function buildModuleTree(index: TensorIndex): ModuleTreeSection | null {
  if (index.count === 0) {
    return null;
  }
  // Templates are the shared name shapes (tensor-index.ts): one pass over the names serves every analysis.
  const shapes = index.shapes();
  if (shapes.count > MAX_TREE_TEMPLATES) {
    return gaveUp(index, shapes.count);
  }
  const root = buildTemplateTree(shapes);
  const state: RenderState = { index, shapes, totals: templateTotals(index, shapes), groups: [], nodes: 0 };
  const tree = render(state, root, [], '', 1, null, true);
  return {
    root: tree,
    nodeCount: state.nodes,
    nodeBudgetReached: !underBudget(state),
    bytesByTopLevel: topLevelSeries(tree),
    bytesByLayer: layerSeries(state, root),
  };
}

/**
 * The tree for a header with more distinct name shapes than MAX_TREE_TEMPLATES: no repeated structure to fold, and
 * building it would cost seconds per 100,000 paths. The section keeps the exact totals and says why it stopped.
 */
function gaveUp(index: TensorIndex, templates: number): ModuleTreeSection {
  const columns = index.header.tensors;
  let elements = 0;
  let bytes = 0;
  for (let row = 0; row < columns.count; row++) {
    const e = columns.elements[row];
    elements += Number.isFinite(e) ? e : 0;
    bytes += storedBytes(columns, row);
  }
  return {
    root: { label: '', pattern: '', prefix: '', tensors: columns.count, elements, bytes },
    nodeCount: 1,
    bytesByTopLevel: [],
    bytesByLayer: [],
    gaveUp: { distinctPaths: templates, limit: MAX_TREE_TEMPLATES },
  };
}

/**
 * A shape's segments in order, null standing for an index segment. Built from the literal pieces rather than by
 * splitting the shape text, so a literal `#` segment stays a named segment.
 */
function segmentsOf(pieces: readonly string[]): Array<string | null> {
  const segments: Array<string | null> = [];
  const last = pieces.length - 1;
  for (let j = 0; j <= last; j++) {
    let piece = pieces[j];
    // Pieces between index segments start with the dot after the previous index and end with the dot before the
    // next one.
    if (j > 0 && piece.length > 0) {
      piece = piece.slice(1);
    }
    if (j < last) {
      if (piece.length > 0) {
        segments.push(...piece.slice(0, -1).split('.'));
      }
      segments.push(null);
    } else if (j === 0 || pieces[j].length > 0) {
      segments.push(...piece.split('.'));
    }
  }
  return segments;
}

/**
 * Children a node looks through one by one before it indexes them in a Map: most nodes have a handful, and a Map
 * per node cost 50,000 distinct paths most of their tree's time in garbage collection.
 */
const MAX_SCANNED_CHILDREN = 8;

function childOf(node: TemplateNode, segment: string, numeric: boolean): TemplateNode | undefined {
  if (node.childIndex !== null) {
    // A literal segment spelled `#` and the numeric child must stay apart: the key carries the kind.
    return node.childIndex.get(numeric ? '#' : `.${segment}`);
  }
  for (const child of node.children) {
    if (child.numeric === numeric && child.segment === segment) {
      return child;
    }
  }
  return undefined;
}

function newTemplateNode(segment: string, numeric: boolean, depth: number): TemplateNode {
  return {
    segment,
    numeric,
    children: [],
    depth,
    template: -1,
    below: [],
    instances: numeric ? new Map() : null,
    childIndex: null,
  };
}

function buildTemplateTree(shapes: NameShapes): TemplateNode {
  const root = newTemplateNode('', false, 0);
  for (let id = 0; id < shapes.count; id++) {
    let node = root;
    node.below.push(id);
    for (const part of segmentsOf(shapes.pieces[id])) {
      const numeric = part === null;
      const segment = part ?? '#';
      let child = childOf(node, segment, numeric);
      if (!child) {
        child = newTemplateNode(segment, numeric, node.depth + (numeric ? 1 : 0));
        node.children.push(child);
        if (node.childIndex !== null) {
          node.childIndex.set(numeric ? '#' : `.${segment}`, child);
        } else if (node.children.length > MAX_SCANNED_CHILDREN) {
          node.childIndex = new Map();
          for (const each of node.children) {
            node.childIndex.set(each.numeric ? '#' : `.${each.segment}`, each);
          }
        }
      }
      node = child;
      node.below.push(id);
    }
    node.template = id;
  }
  return root;
}

/**
 * Rows of template t sorted by index tuple (shared with the index's lookups), with prefix sums; built when a node
 * first needs a part of the template's rows (under one layer, one expert), so a header whose templates have no
 * index segment, or whose tree never opens them, builds none.
 */
function groupOf(state: RenderState, t: number): TemplateRows {
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
interface TemplateTotals {
  elements: Float64Array;
  bytes: Float64Array;
}

function templateTotals(index: TensorIndex, shapes: NameShapes): TemplateTotals {
  const columns = index.header.tensors;
  const elements = new Float64Array(shapes.count);
  const bytes = new Float64Array(shapes.count);
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
  }
  return { elements, bytes };
}

/** Whether rows of template t under index prefix `context` are all its rows (no index segment narrows them). */
function wholeTemplate(state: RenderState, t: number, context: readonly number[]): boolean {
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
function instancesOf(state: RenderState, node: TemplateNode, context: readonly number[]): Instances {
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
    const group = groupOf(state, t);
    const [from, to] = range(group, context);
    if (to > from) {
      ranges.push({ group, from, to, t });
    }
  }
  // Usually one template has every instance (every layer has an input_layernorm, every expert a gate_proj): its
  // distinct indices are the instances, unless another template turns out to have one it lacks.
  const out =
    accumulate(state, ranges, at, largestIndices(ranges, at)) ?? accumulate(state, ranges, at, allIndices(ranges, at));
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
function accumulate(state: RenderState, ranges: readonly Range[], at: number, indices: Int32Array): Instances | null {
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
  const { h1: outH1, h2: outH2, tensors: outTensors, elements: outElements, bytes: outBytes } = out;
  for (const { group, from, to, t } of ranges) {
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
          return null;
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
  }
  return out;
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

interface RenderState {
  index: TensorIndex;
  shapes: NameShapes;
  totals: TemplateTotals;
  /** groupOf's cache, by template. */
  groups: Array<TemplateRows | undefined>;
  nodes: number;
}

/** Whether the tree may still grow: past MAX_TREE_NODES every further child folds into its parent's `more`. */
function underBudget(state: RenderState): boolean {
  return state.nodes < MAX_TREE_NODES;
}

/** Row range of a template whose index tuple starts with `context`. */
function range(group: TemplateRows, context: readonly number[]): [number, number] {
  const depth = group.depth;
  const length = Math.min(context.length, depth);
  if (length === 0) {
    return [0, group.rows.length];
  }
  return tupleRange(group.keys, depth, context);
}

function totalsOf(
  state: RenderState,
  node: TemplateNode,
  context: readonly number[],
): { tensors: number; elements: number; bytes: number } {
  let tensors = 0;
  let elements = 0;
  let bytes = 0;
  for (const t of node.below) {
    if (wholeTemplate(state, t, context)) {
      tensors += state.shapes.rowStart[t + 1] - state.shapes.rowStart[t];
      elements += state.totals.elements[t];
      bytes += state.totals.bytes[t];
      continue;
    }
    const group = groupOf(state, t);
    const [from, to] = range(group, context);
    tensors += to - from;
    elements += group.elements[to] - group.elements[from];
    bytes += group.bytes[to] - group.bytes[from];
  }
  return { tensors, elements, bytes };
}

interface Run {
  first: number;
  last: number;
  count: number;
  tensors: number;
  elements: number;
  bytes: number;
}

/** Runs of consecutive indices with equal content hashes, over instances [from, to). */
function runsOf(instances: Instances, from: number, to: number): Run[] {
  const runs: Run[] = [];
  const { index, h1, h2 } = instances;
  let i = from;
  while (i < to) {
    const run: Run = {
      first: index[i],
      last: index[i],
      count: 1,
      tensors: instances.tensors[i],
      elements: instances.elements[i],
      bytes: instances.bytes[i],
    };
    let j = i + 1;
    while (j < to && index[j] === run.last + 1 && h1[j] === h1[i] && h2[j] === h2[i]) {
      run.last++;
      run.count++;
      run.tensors += instances.tensors[j];
      run.elements += instances.elements[j];
      run.bytes += instances.bytes[j];
      j++;
    }
    runs.push(run);
    i = j;
  }
  return runs;
}

/**
 * Renders template node `node` for the rows whose index tuple starts with `context`. `scale` multiplies totals
 * inside collapsed runs (every member is identical, so template × count is exact). `run` is set when `node` is a
 * `#` node rendered as one run of instances.
 */
function render(
  state: RenderState,
  node: TemplateNode,
  context: readonly number[],
  parentPattern: string,
  scale: number,
  run: Run | null,
  isRoot = false,
): ModuleNode {
  state.nodes++;
  const collapsed = run !== null && run.count > 1;
  const segment = run === null ? node.segment : collapsed ? `{${run.first}-${run.last}}` : String(run.first);
  const isTensor = node.template >= 0 && node.children.length === 0;
  const pattern = isRoot ? '' : isTensor ? parentPattern + segment : `${parentPattern}${segment}.`;
  const totals = run ?? totalsOf(state, node, context);
  const brace = pattern.indexOf('{');
  const out: ModuleNode = {
    label: run === null ? node.segment : collapsed ? `${run.first}–${run.last}` : String(run.first),
    pattern,
    prefix: brace < 0 ? pattern : pattern.slice(0, brace),
    tensors: totals.tensors * scale,
    elements: totals.elements * scale,
    bytes: totals.bytes * scale,
  };
  if (collapsed && run) {
    out.repeat = { count: run.count, first: run.first, last: run.last };
  }
  const inner = run === null ? context : [...context, run.first];
  const innerScale = scale * (run?.count ?? 1);
  if (node.template >= 0) {
    const t = node.template;
    let single = -1;
    if (wholeTemplate(state, t, inner)) {
      single =
        state.shapes.rowStart[t + 1] - state.shapes.rowStart[t] === 1
          ? state.shapes.rowList[state.shapes.rowStart[t]]
          : -1;
    } else {
      const group = groupOf(state, t);
      const [from, to] = range(group, inner);
      single = to - from === 1 ? group.rows[from] : -1;
    }
    if (single >= 0) {
      const row = single;
      out.dtype = state.index.dtype(row);
      const columns = state.index.header.tensors;
      // A hostile rank (20,000,000 dims) would make this section as large as the header: the table shows it.
      if (columns.shapeStarts[row + 1] - columns.shapeStarts[row] <= MAX_TENSOR_RANK) {
        out.shape = state.index.shape(row);
      }
    }
  }
  const childPattern = isRoot ? '' : pattern.endsWith('.') ? pattern : `${pattern}.`;
  const children: ModuleNode[] = [];
  let hidden = 0;
  const more = { nodes: 0, tensors: 0, elements: 0, bytes: 0 };
  const named = node.children.filter((c) => !c.numeric).sort((a, b) => compareNatural(a.segment, b.segment));
  const fold = (t: { tensors: number; elements: number; bytes: number }): void => {
    more.nodes++;
    more.tensors += t.tensors * innerScale;
    more.elements += t.elements * innerScale;
    more.bytes += t.bytes * innerScale;
  };
  for (const child of named) {
    const totalsHere = totalsOf(state, child, inner);
    if (totalsHere.tensors === 0) {
      continue; // This template branch exists for other instances only.
    }
    if (children.length >= MAX_TREE_CHILDREN || !underBudget(state)) {
      fold(totalsHere);
      hidden++;
      continue;
    }
    children.push(render(state, child, inner, childPattern, innerScale, null));
  }
  for (const child of node.children) {
    if (!child.numeric) {
      continue;
    }
    const instances = instancesOf(state, child, inner);
    for (const r of runsOf(instances, 0, instances.index.length)) {
      if (children.length >= MAX_TREE_CHILDREN || !underBudget(state)) {
        fold(r);
        hidden++;
        continue;
      }
      // A run's own totals are exact sums; only an enclosing run's count still multiplies them.
      children.push(render(state, child, inner, childPattern, innerScale, r));
    }
  }
  if (children.length > 0) {
    out.children = children;
  }
  if (hidden > 0) {
    out.more = more;
  }
  return out;
}

function point(node: ModuleNode): SeriesPoint {
  return {
    label: node.pattern.endsWith('.') ? node.pattern.slice(0, -1) : node.pattern,
    prefix: node.prefix,
    bytes: node.bytes,
    elements: node.elements,
    tensors: node.tensors,
  };
}

/**
 * Top-level modules for the "bytes by module" chart. A wrapper holding nearly everything (`model`,
 * `model.diffusion_model`) is opened up, so the chart shows embed_tokens / layers / norm / lm_head rather than one
 * bar for `model`. Numbered containers are not opened (their children are layers, charted separately).
 */
function topLevelSeries(root: ModuleNode): SeriesPoint[] {
  let entries = [...(root.children ?? [])];
  const all = root.bytes || 1;
  for (let expansions = 0; expansions < 3; expansions++) {
    const big = entries.find(
      (node) =>
        node.children !== undefined && node.bytes / all >= 0.8 && !node.children.every((c) => /^\d/.test(c.label)),
    );
    if (!big || !big.children) {
      break;
    }
    entries = [...entries.filter((node) => node !== big), ...big.children];
  }
  entries.sort((a, b) => b.bytes - a.bytes);
  const points = entries.slice(0, MAX_TOP_LEVEL_SERIES).map(point);
  const rest = entries.slice(MAX_TOP_LEVEL_SERIES);
  if (rest.length > 0) {
    points.push({
      label: `${rest.length} more`,
      prefix: '',
      bytes: rest.reduce((sum, n) => sum + n.bytes, 0),
      elements: rest.reduce((sum, n) => sum + n.elements, 0),
      tensors: rest.reduce((sum, n) => sum + n.tensors, 0),
    });
  }
  return points;
}

/** Numbered containers not nested in another one (layers, blocks), largest first, with bytes per index. */
function layerSeries(state: RenderState, root: TemplateNode): LayerSeries[] {
  const found: Array<{ prefix: string; instances: Instances; bytes: number }> = [];
  const visit = (node: TemplateNode, path: string): void => {
    for (const child of node.children) {
      if (child.numeric) {
        const instances = instancesOf(state, child, []);
        if (instances.index.length >= 2) {
          let bytes = 0;
          for (let i = 0; i < instances.index.length; i++) {
            bytes += instances.bytes[i];
          }
          found.push({ prefix: path, instances, bytes });
        }
      } else {
        visit(child, `${path}${child.segment}.`);
      }
    }
  };
  visit(root, '');
  found.sort((a, b) => b.bytes - a.bytes);
  return found.slice(0, MAX_LAYER_SERIES).map(({ prefix, instances }) => {
    const count = instances.index.length;
    const layersPerPoint = count > MAX_LAYER_POINTS ? Math.ceil(count / SUMMED_LAYER_POINTS) : 1;
    const points = layerPoints(instances, layersPerPoint);
    return layersPerPoint > 1 ? { prefix, points, layersPerPoint } : { prefix, points };
  });
}

/** One point per `perPoint` consecutive layers. */
function layerPoints(instances: Instances, perPoint: number): LayerSeries['points'] {
  const count = instances.index.length;
  const points: LayerSeries['points'] = [];
  for (let first = 0; first < count; first += perPoint) {
    const end = Math.min(count, first + perPoint);
    let bytes = 0;
    let elements = 0;
    let tensors = 0;
    for (let i = first; i < end; i++) {
      bytes += instances.bytes[i];
      elements += instances.elements[i];
      tensors += instances.tensors[i];
    }
    const point = { index: instances.index[first], bytes, elements, tensors };
    points.push(perPoint > 1 ? { ...point, last: instances.index[end - 1] } : point);
  }
  return points;
}
