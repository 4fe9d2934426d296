/**
 * The module tree: tensors grouped by dotted name into a hierarchy with element and byte totals per subtree.
 * Runs of numbered siblings that are structurally identical (same names below them, same dtypes and shapes)
 * collapse into one node (`layers.{3-60}` ×58), so a 250,000-tensor MoE header becomes a tree of a few dozen
 * nodes. Siblings that differ (dense vs MoE layers, an MTP layer) stay separate runs.
 *
 * Why not a plain trie: a trie of 250,000 names holds ~600,000 long-lived nodes, and building it costs seconds of
 * garbage collection. Instead every name is parsed once into a TEMPLATE (numeric segments replaced by `#`) plus
 * its index tuple. Templates are few (hundreds), so the structural tree is small; per-row data lives in typed
 * arrays. Each numbered instance (layer 3, expert (3, 17)) gets exact totals and an order-independent 64-bit
 * content hash (sum of per-row hashes over template, sub-indices, dtype and shape); equal hashes on consecutive
 * indices collapse. A crafted header could in principle force a hash collision and merge two different layers in
 * this VIEW; totals stay exact and no finding depends on it.
 *
 * Nodes identify their rows by a name pattern, not index arrays: see modulePatternMatcher.
 */
import type { TensorColumns } from '../model';
import { MAX_LAYER_SERIES, MAX_TOP_LEVEL_SERIES, MAX_TREE_CHILDREN } from './limits';
import type { LayerSeries, ModuleNode, ModuleTreeSection, SeriesPoint } from './report-sections';
import { sortByIndexTuple, storedBytes, tensorIndex, type NameShapes, type TensorIndex } from './tensor-index';
import type { Analysis, AnalysisInput } from './types';

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
  /** For `#` nodes: per-instance statistics, grouped by parent prefix key. */
  instances: Instances | null;
}

/**
 * The numbered instances under one `#` node (layer 3; expert (3, 17)) as columns, sorted by parent prefix then
 * index, so each parent's instances are one contiguous range.
 */
interface Instances {
  index: Int32Array;
  tensors: Float64Array;
  elements: Float64Array;
  bytes: Float64Array;
  h1: Int32Array;
  h2: Int32Array;
  /** Parent prefix key → [from, to) into the columns. */
  byParent: Map<number | string, [number, number]>;
}

/** Rows of one template, sorted by their index tuple, with prefix sums for range totals. */
interface TemplateRows {
  depth: number;
  rows: Int32Array;
  /** Flattened index tuples (depth per row), in `rows` order. */
  keys: Int32Array;
  elements: Float64Array;
  bytes: Float64Array;
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
  const root = buildTemplateTree(shapes);
  const groups = groupRows(index, shapes);
  hashInstances(root, groups, index.header.tensors, shapes);
  const state: RenderState = { index, groups, nodes: 0 };
  const tree = render(state, root, [], '', 1, null, true);
  return {
    root: tree,
    nodeCount: state.nodes,
    bytesByTopLevel: topLevelSeries(tree),
    bytesByLayer: layerSeries(root),
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

function newTemplateNode(segment: string, numeric: boolean, depth: number): TemplateNode {
  return { segment, numeric, children: [], depth, template: -1, below: [], instances: null };
}

function buildTemplateTree(shapes: NameShapes): TemplateNode {
  const root = newTemplateNode('', false, 0);
  for (let id = 0; id < shapes.count; id++) {
    let node = root;
    node.below.push(id);
    for (const part of segmentsOf(shapes.pieces[id])) {
      const numeric = part === null;
      const segment = part ?? '#';
      let child = node.children.find((c) => c.segment === segment && c.numeric === numeric);
      if (!child) {
        child = newTemplateNode(segment, numeric, node.depth + (numeric ? 1 : 0));
        node.children.push(child);
      }
      node = child;
      node.below.push(id);
    }
    node.template = id;
  }
  return root;
}

/** Rows per template, sorted by index tuple, with prefix sums. */
function groupRows(index: TensorIndex, shapes: NameShapes): TemplateRows[] {
  const { indexStart, indexValues } = shapes;
  const columns = index.header.tensors;
  const groups: TemplateRows[] = [];
  for (let t = 0; t < shapes.count; t++) {
    const rows = index.sortedShapeRows(t);
    const depth = shapes.slots[t];
    const keys = new Int32Array(rows.length * depth);
    const elements = new Float64Array(rows.length + 1);
    const bytes = new Float64Array(rows.length + 1);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      for (let d = 0; d < depth; d++) {
        keys[i * depth + d] = indexValues[indexStart[row] + d];
      }
      const e = columns.elements[row];
      elements[i + 1] = elements[i] + (Number.isFinite(e) ? e : 0);
      bytes[i + 1] = bytes[i] + storedBytes(columns, row);
    }
    groups.push({ depth, rows, keys, elements, bytes });
  }
  return groups;
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
 * Per-instance totals and content hashes for every `#` node. A row's identity relative to its instance is its
 * template, its deeper indices, dtype and shape; the template/dtype/shape part is hashed once per row, and only
 * the deeper indices are mixed in per `#` ancestor. Instances are found by sorting the rows below the node by
 * their index prefix (linear counting sort) instead of a Map lookup per row: a 250,000-tensor MoE has 83,000
 * expert instances.
 */
function hashInstances(
  root: TemplateNode,
  groups: readonly TemplateRows[],
  columns: TensorColumns,
  shapes: NameShapes,
): void {
  const count = columns.count;
  const base1 = new Int32Array(count);
  const base2 = new Int32Array(count);
  for (let t = 0; t < groups.length; t++) {
    const rows = groups[t].rows;
    const seed1 = mix(t + 0x9e3779b9);
    const seed2 = mix(Math.imul(t, 31) + 7);
    let previous = -1;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (previous >= 0 && sameDtypeAndShape(columns, row, previous)) {
        // Repeated structure (896 experts of one shape): equal inputs, equal hash.
        base1[row] = base1[previous];
        base2[row] = base2[previous];
        continue;
      }
      let h1 = mix(seed1 ^ columns.dtype[row]);
      let h2 = mix(seed2 + columns.dtype[row]);
      for (let d = columns.shapeStarts[row]; d < columns.shapeStarts[row + 1]; d++) {
        const dim = columns.dims[d];
        h1 = mix(h1 ^ (dim >>> 0) ^ Math.floor(dim / 2 ** 32));
        h2 = mix(h2 + Math.imul(dim >>> 0, 0x165667b1));
      }
      base1[row] = h1;
      base2[row] = h2;
      previous = row;
    }
  }
  const slotOfRow = new Int32Array(count);
  const { indexStart, indexValues } = shapes;

  const visit = (node: TemplateNode): void => {
    if (node.numeric) {
      node.instances = collectInstances(node, groups, base1, base2, slotOfRow, indexStart, indexValues);
    }
    node.children.forEach(visit);
  };
  visit(root);
}

function collectInstances(
  node: TemplateNode,
  groups: readonly TemplateRows[],
  base1: Int32Array,
  base2: Int32Array,
  slotOfRow: Int32Array,
  indexStart: Uint32Array,
  indexValues: Int32Array,
): Instances {
  const k = node.depth;
  const reps =
    slotsFromLargestGroup(node, groups, slotOfRow, indexStart, indexValues) ??
    slotsBySorting(node, groups, slotOfRow, indexStart, indexValues);
  const instances = reps.length;
  const out: Instances = {
    index: new Int32Array(instances),
    tensors: new Float64Array(instances),
    elements: new Float64Array(instances),
    bytes: new Float64Array(instances),
    h1: new Int32Array(instances),
    h2: new Int32Array(instances),
    byParent: new Map(),
  };
  let parentFrom = 0;
  for (let slot = 0; slot < instances; slot++) {
    const start = indexStart[reps[slot]];
    out.index[slot] = indexValues[start + k - 1];
    if (slot + 1 === instances || comparePrefix(reps[slot], reps[slot + 1], k - 1, indexStart, indexValues) !== 0) {
      out.byParent.set(prefixKey(indexValues, start, k - 1), [parentFrom, slot + 1]);
      parentFrom = slot + 1;
    }
  }
  // Totals in the same order as before (template by template, rows in index order), so sums round the same way.
  for (const t of node.below) {
    const group = groups[t];
    const depth = group.depth;
    for (let i = 0; i < group.rows.length; i++) {
      const row = group.rows[i];
      const slot = slotOfRow[row];
      let h1 = base1[row];
      let h2 = base2[row];
      for (let d = k; d < depth; d++) {
        const key = group.keys[i * depth + d];
        h1 = mix(h1 ^ key);
        h2 = mix(h2 + Math.imul(key, 0x27d4eb2d));
      }
      out.h1[slot] = (out.h1[slot] + h1) | 0;
      out.h2[slot] = (out.h2[slot] + h2) | 0;
      out.tensors[slot]++;
      out.elements[slot] += group.elements[i + 1] - group.elements[i];
      out.bytes[slot] += group.bytes[i + 1] - group.bytes[i];
    }
  }
  return out;
}

/**
 * The usual case, in linear time: one template below the node has every instance (every layer has an
 * input_layernorm, every expert a gate_proj). Its rows, sorted by index tuple, list the instances in order; the
 * other templates' rows are matched against that list in one merge step each. Returns the instances'
 * representative rows (sorted by index prefix) and fills slotOfRow, or null when some template has an instance
 * the largest one lacks.
 */
function slotsFromLargestGroup(
  node: TemplateNode,
  groups: readonly TemplateRows[],
  slotOfRow: Int32Array,
  indexStart: Uint32Array,
  indexValues: Int32Array,
): Int32Array | null {
  const k = node.depth;
  let largest = node.below[0];
  for (const t of node.below) {
    if (groups[t].rows.length > groups[largest].rows.length) {
      largest = t;
    }
  }
  const baseRows = groups[largest].rows;
  const reps = new Int32Array(baseRows.length);
  let count = 0;
  for (let i = 0; i < baseRows.length; i++) {
    if (i === 0 || comparePrefix(baseRows[i], baseRows[i - 1], k, indexStart, indexValues) !== 0) {
      reps[count++] = baseRows[i];
    }
    slotOfRow[baseRows[i]] = count - 1;
  }
  for (const t of node.below) {
    if (t === largest) {
      continue;
    }
    const rows = groups[t].rows;
    let slot = -1;
    for (let i = 0; i < rows.length; i++) {
      if (i === 0 || comparePrefix(rows[i], rows[i - 1], k, indexStart, indexValues) !== 0) {
        // The next instance of this template: advance through the base list (both are sorted) until it is found.
        let order = 1;
        while (slot + 1 < count && (order = comparePrefix(reps[slot + 1], rows[i], k, indexStart, indexValues)) < 0) {
          slot++;
        }
        if (slot + 1 === count || order !== 0) {
          return null;
        }
        slot++;
      }
      slotOfRow[rows[i]] = slot;
    }
  }
  return reps.subarray(0, count);
}

/** The general case: every row below the node sorted by its index prefix (linear counting sort). */
function slotsBySorting(
  node: TemplateNode,
  groups: readonly TemplateRows[],
  slotOfRow: Int32Array,
  indexStart: Uint32Array,
  indexValues: Int32Array,
): Int32Array {
  const k = node.depth;
  let total = 0;
  for (const t of node.below) {
    total += groups[t].rows.length;
  }
  const rows = new Int32Array(total);
  let at = 0;
  for (const t of node.below) {
    rows.set(groups[t].rows, at);
    at += groups[t].rows.length;
  }
  sortByIndexTuple(rows, k, indexStart, indexValues);
  const reps = new Int32Array(total);
  let count = 0;
  for (let i = 0; i < total; i++) {
    if (i === 0 || comparePrefix(rows[i], rows[i - 1], k, indexStart, indexValues) !== 0) {
      reps[count++] = rows[i];
    }
    slotOfRow[rows[i]] = count - 1;
  }
  return reps.subarray(0, count);
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

/** Compares the first `length` indices of two rows. */
function comparePrefix(a: number, b: number, length: number, indexStart: Uint32Array, indexValues: Int32Array): number {
  const at = indexStart[a];
  const bt = indexStart[b];
  for (let d = 0; d < length; d++) {
    const diff = indexValues[at + d] - indexValues[bt + d];
    if (diff !== 0) {
      return diff;
    }
  }
  return 0;
}

interface RenderState {
  index: TensorIndex;
  groups: readonly TemplateRows[];
  nodes: number;
}

/** Row range of a template whose index tuple starts with `context`. */
function range(group: TemplateRows, context: readonly number[]): [number, number] {
  const depth = group.depth;
  const length = Math.min(context.length, depth);
  if (length === 0) {
    return [0, group.rows.length];
  }
  const compare = (i: number): number => {
    for (let d = 0; d < length; d++) {
      const diff = group.keys[i * depth + d] - context[d];
      if (diff !== 0) {
        return diff;
      }
    }
    return 0;
  };
  let lo = 0;
  let hi = group.rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(mid) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const from = lo;
  hi = group.rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(mid) <= 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return [from, lo];
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
    const group = state.groups[t];
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
    const group = state.groups[node.template];
    const [from, to] = range(group, inner);
    if (to - from === 1) {
      const row = group.rows[from];
      out.dtype = state.index.dtype(row);
      out.shape = state.index.shape(row);
    }
  }
  const childPattern = isRoot ? '' : pattern.endsWith('.') ? pattern : `${pattern}.`;
  const children: ModuleNode[] = [];
  let hidden = 0;
  const more = { nodes: 0, tensors: 0, elements: 0, bytes: 0 };
  const named = node.children
    .filter((c) => !c.numeric)
    .sort((a, b) => (a.segment < b.segment ? -1 : a.segment > b.segment ? 1 : 0));
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
    if (children.length >= MAX_TREE_CHILDREN) {
      fold(totalsHere);
      hidden++;
      continue;
    }
    children.push(render(state, child, inner, childPattern, innerScale, null));
  }
  for (const child of node.children) {
    if (!child.numeric || !child.instances) {
      continue;
    }
    const [from, to] = child.instances.byParent.get(prefixKey(inner, 0, inner.length)) ?? [0, 0];
    for (const r of runsOf(child.instances, from, to)) {
      if (children.length >= MAX_TREE_CHILDREN) {
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

/** Builds a test for names covered by a node pattern (`{a-b}` matches a decimal index in that range). */
export function modulePatternMatcher(pattern: string): (name: string) => boolean {
  if (pattern === '') {
    return () => true;
  }
  const ranges: Array<[number, number]> = [];
  const source = pattern
    .split(/(\{\d+-\d+\})/)
    .map((part) => {
      const match = /^\{(\d+)-(\d+)\}$/.exec(part);
      if (match) {
        ranges.push([Number(match[1]), Number(match[2])]);
        return '(\\d+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  const regex = new RegExp(`^${source}${pattern.endsWith('.') ? '' : '$'}`);
  return (name) => {
    const match = regex.exec(name);
    if (!match) {
      return false;
    }
    return ranges.every(([low, high], i) => {
      const value = Number(match[i + 1]);
      return value >= low && value <= high;
    });
  };
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
function layerSeries(root: TemplateNode): LayerSeries[] {
  const found: Array<{ prefix: string; instances: Instances; from: number; to: number; bytes: number }> = [];
  const visit = (node: TemplateNode, path: string): void => {
    for (const child of node.children) {
      if (child.numeric) {
        const instances = child.instances;
        const [from, to] = instances?.byParent.get(0) ?? [0, 0];
        if (instances && to - from >= 2) {
          let bytes = 0;
          for (let i = from; i < to; i++) {
            bytes += instances.bytes[i];
          }
          found.push({ prefix: path, instances, from, to, bytes });
        }
      } else {
        visit(child, `${path}${child.segment}.`);
      }
    }
  };
  visit(root, '');
  found.sort((a, b) => b.bytes - a.bytes);
  return found.slice(0, MAX_LAYER_SERIES).map(({ prefix, instances, from, to }) => {
    const points = [];
    for (let i = from; i < to; i++) {
      points.push({
        index: instances.index[i],
        bytes: instances.bytes[i],
        elements: instances.elements[i],
        tensors: instances.tensors[i],
      });
    }
    return { prefix, points };
  });
}
