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
import { tensorIndex, type TensorIndex } from './tensor-index';
import type { Analysis, AnalysisInput } from './types';

/** Longest digit run treated as an index; longer ones (hashes, dates) stay literal names. */
const MAX_INDEX_DIGITS = 9;

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
  /** For `#` nodes: instance statistics grouped by parent prefix key. */
  instances: Map<number | string, Instance[]> | null;
}

interface Instance {
  index: number;
  tensors: number;
  elements: number;
  bytes: number;
  h1: number;
  h2: number;
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
  const parsed = parseNames(index.names);
  const root = buildTemplateTree(parsed.templates);
  const groups = groupRows(index, parsed);
  hashInstances(root, groups, index.header.tensors);
  const state: RenderState = { index, groups, nodes: 0 };
  const tree = render(state, root, [], '', 1, null, true);
  return {
    root: tree,
    nodeCount: state.nodes,
    bytesByTopLevel: topLevelSeries(tree),
    bytesByLayer: layerSeries(root),
  };
}

interface ParsedNames {
  /** Distinct templates, by id. */
  templates: string[];
  rowTemplate: Int32Array;
  /** count + 1 offsets into `indexValues`. */
  indexStart: Uint32Array;
  indexValues: Int32Array;
}

/**
 * One pass over the names: template id and index tuple per row. The template is hashed while scanning and only
 * materialised as a string the first time it is seen, so the pass allocates almost nothing per row.
 */
function parseNames(names: readonly string[]): ParsedNames {
  const byHash = new Map<number, Array<{ id: number; template: string }>>();
  const templates: string[] = [];
  const rowTemplate = new Int32Array(names.length);
  const indexStart = new Uint32Array(names.length + 1);
  let values = new Int32Array(Math.max(16, names.length * 2));
  let used = 0;
  for (let row = 0; row < names.length; row++) {
    const name = names[row];
    indexStart[row] = used;
    let hash = 0x811c9dc5;
    let start = 0;
    while (start <= name.length) {
      let end = name.indexOf('.', start);
      if (end < 0) {
        end = name.length;
      }
      const value = segmentIndex(name, start, end);
      if (value >= 0) {
        if (used === values.length) {
          const grown = new Int32Array(values.length * 2);
          grown.set(values);
          values = grown;
        }
        values[used++] = value;
        hash = Math.imul(hash ^ 35, 0x01000193); // '#'
      } else {
        for (let i = start; i < end; i++) {
          hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
        }
      }
      if (end < name.length) {
        hash = Math.imul(hash ^ 46, 0x01000193); // '.'
      }
      start = end + 1;
    }
    let bucket = byHash.get(hash);
    let id = -1;
    if (bucket) {
      for (const entry of bucket) {
        if (matchesTemplate(name, entry.template)) {
          id = entry.id;
          break;
        }
      }
    } else {
      bucket = [];
      byHash.set(hash, bucket);
    }
    if (id < 0) {
      id = templates.length;
      const template = templateOf(name);
      templates.push(template);
      bucket.push({ id, template });
    }
    rowTemplate[row] = id;
  }
  indexStart[names.length] = used;
  return { templates, rowTemplate, indexStart, indexValues: values };
}

/** The segment's index value, or -1 when it is not a short run of ASCII digits. */
function segmentIndex(name: string, start: number, end: number): number {
  const length = end - start;
  if (length === 0 || length > MAX_INDEX_DIGITS) {
    return -1;
  }
  let value = 0;
  for (let i = start; i < end; i++) {
    const c = name.charCodeAt(i);
    if (c < 48 || c > 57) {
      return -1;
    }
    value = value * 10 + (c - 48);
  }
  return value;
}

function templateOf(name: string): string {
  return name
    .split('.')
    .map((segment) => (segmentIndex(segment, 0, segment.length) >= 0 ? '#' : segment))
    .join('.');
}

/** Whether `name` has template `template`, compared segment by segment without allocating. */
function matchesTemplate(name: string, template: string): boolean {
  let n = 0;
  let t = 0;
  while (n <= name.length && t <= template.length) {
    let nEnd = name.indexOf('.', n);
    if (nEnd < 0) {
      nEnd = name.length;
    }
    let tEnd = template.indexOf('.', t);
    if (tEnd < 0) {
      tEnd = template.length;
    }
    const isHash = tEnd - t === 1 && template.charCodeAt(t) === 35;
    const numeric = segmentIndex(name, n, nEnd) >= 0;
    if (isHash !== numeric) {
      return false;
    }
    if (!isHash) {
      if (nEnd - n !== tEnd - t) {
        return false;
      }
      for (let i = 0; i < nEnd - n; i++) {
        if (name.charCodeAt(n + i) !== template.charCodeAt(t + i)) {
          return false;
        }
      }
    }
    const nDone = nEnd === name.length;
    const tDone = tEnd === template.length;
    if (nDone || tDone) {
      return nDone && tDone;
    }
    n = nEnd + 1;
    t = tEnd + 1;
  }
  return false;
}

function newTemplateNode(segment: string, depth: number): TemplateNode {
  const numeric = segment === '#';
  return { segment, numeric, children: [], depth, template: -1, below: [], instances: numeric ? new Map() : null };
}

function buildTemplateTree(templates: readonly string[]): TemplateNode {
  const root = newTemplateNode('', 0);
  templates.forEach((template, id) => {
    let node = root;
    node.below.push(id);
    for (const segment of template.split('.')) {
      let child = node.children.find((c) => c.segment === segment);
      if (!child) {
        child = newTemplateNode(segment, node.depth + (segment === '#' ? 1 : 0));
        node.children.push(child);
      }
      node = child;
      node.below.push(id);
    }
    node.template = id;
  });
  return root;
}

/** Rows per template, sorted by index tuple, with prefix sums. */
function groupRows(index: TensorIndex, parsed: ParsedNames): TemplateRows[] {
  const counts = new Int32Array(parsed.templates.length);
  for (let row = 0; row < index.count; row++) {
    counts[parsed.rowTemplate[row]]++;
  }
  const buckets = Array.from(counts, (count) => new Int32Array(count));
  const fill = new Int32Array(parsed.templates.length);
  for (let row = 0; row < index.count; row++) {
    const t = parsed.rowTemplate[row];
    buckets[t][fill[t]++] = row;
  }
  const { indexStart, indexValues } = parsed;
  const columns = index.header.tensors;
  return buckets.map((rows) => {
    const depth = rows.length > 0 ? indexStart[rows[0] + 1] - indexStart[rows[0]] : 0;
    if (depth > 0 && rows.length > 1) {
      sortByIndexTuple(rows, depth, indexStart, indexValues);
    }
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
      bytes[i + 1] = bytes[i] + index.bytes(row);
    }
    return { depth, rows, keys, elements, bytes };
  });
}

/** Largest index for which the counting sort is used; beyond it a comparison sort takes over. */
const MAX_COUNTING_SORT_INDEX = 1 << 20;

/**
 * Sorts rows by their index tuple. LSD counting sort, one stable pass per tuple position: linear in rows, which
 * matters for 250,000 expert tensors whose names arrive in lexicographic (0, 1, 10, 100…) order.
 */
function sortByIndexTuple(rows: Int32Array, depth: number, indexStart: Uint32Array, indexValues: Int32Array): void {
  let max = 0;
  for (let i = 0; i < rows.length; i++) {
    for (let d = 0; d < depth; d++) {
      max = Math.max(max, indexValues[indexStart[rows[i]] + d]);
    }
  }
  if (max >= MAX_COUNTING_SORT_INDEX) {
    rows.sort((a, b) => {
      for (let d = 0; d < depth; d++) {
        const diff = indexValues[indexStart[a] + d] - indexValues[indexStart[b] + d];
        if (diff !== 0) {
          return diff;
        }
      }
      return 0;
    });
    return;
  }
  const counts = new Int32Array(max + 2);
  let source: Int32Array = rows;
  let target: Int32Array = new Int32Array(rows.length);
  for (let d = depth - 1; d >= 0; d--) {
    counts.fill(0);
    for (let i = 0; i < source.length; i++) {
      counts[indexValues[indexStart[source[i]] + d] + 1]++;
    }
    for (let v = 1; v < counts.length; v++) {
      counts[v] += counts[v - 1];
    }
    for (let i = 0; i < source.length; i++) {
      const value = indexValues[indexStart[source[i]] + d];
      target[counts[value]++] = source[i];
    }
    [source, target] = [target, source];
  }
  if (source !== rows) {
    rows.set(source);
  }
}

/** Index-tuple prefix → a Map key: exact numbers for the common short prefixes, text beyond. */
function prefixKey(keys: Int32Array, at: number, length: number): number | string {
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
  return (h ^ (h >>> 16)) >>> 0;
}

/** Per-instance totals and content hashes for every `#` node. */
function hashInstances(root: TemplateNode, groups: readonly TemplateRows[], columns: TensorColumns): void {
  const visit = (node: TemplateNode): void => {
    if (node.numeric && node.instances) {
      const k = node.depth;
      const flat = new Map<number | string, Instance & { parent: number | string }>();
      for (const t of node.below) {
        const group = groups[t];
        const depth = group.depth;
        let current: (Instance & { parent: number | string }) | null = null;
        let currentKey: number | string | null = null;
        for (let i = 0; i < group.rows.length; i++) {
          const at = i * depth;
          const key = prefixKey(group.keys, at, k);
          if (key !== currentKey) {
            currentKey = key;
            current = flat.get(key) ?? null;
            if (!current) {
              current = {
                index: group.keys[at + k - 1],
                parent: prefixKey(group.keys, at, k - 1),
                tensors: 0,
                elements: 0,
                bytes: 0,
                h1: 0,
                h2: 0,
              };
              flat.set(key, current);
            }
          }
          if (!current) {
            continue;
          }
          // The row's identity relative to its instance: template, deeper indices, dtype, dims.
          const row = group.rows[i];
          let h1 = mix(t + 0x9e3779b9);
          let h2 = mix(t * 31 + 7);
          for (let d = k; d < depth; d++) {
            h1 = mix(h1 ^ group.keys[at + d]);
            h2 = mix(h2 + group.keys[at + d] * 0x27d4eb2d);
          }
          h1 = mix(h1 ^ columns.dtype[row]);
          h2 = mix(h2 + columns.dtype[row]);
          for (let d = columns.shapeStarts[row]; d < columns.shapeStarts[row + 1]; d++) {
            const dim = columns.dims[d];
            h1 = mix(h1 ^ (dim >>> 0) ^ Math.floor(dim / 2 ** 32));
            h2 = mix(h2 + Math.imul(dim >>> 0, 0x165667b1));
          }
          current.h1 = (current.h1 + h1) >>> 0;
          current.h2 = (current.h2 + h2) >>> 0;
          current.tensors++;
          current.elements += group.elements[i + 1] - group.elements[i];
          current.bytes += group.bytes[i + 1] - group.bytes[i];
        }
      }
      for (const instance of flat.values()) {
        const list = node.instances.get(instance.parent);
        if (list) {
          list.push(instance);
        } else {
          node.instances.set(instance.parent, [instance]);
        }
      }
      for (const list of node.instances.values()) {
        list.sort((a, b) => a.index - b.index);
      }
    }
    node.children.forEach(visit);
  };
  visit(root);
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

/** Runs of consecutive indices with equal content hashes. */
function runsOf(instances: readonly Instance[]): Run[] {
  const runs: Run[] = [];
  let i = 0;
  while (i < instances.length) {
    const start = instances[i];
    const run: Run = {
      first: start.index,
      last: start.index,
      count: 1,
      tensors: start.tensors,
      elements: start.elements,
      bytes: start.bytes,
    };
    let j = i + 1;
    while (
      j < instances.length &&
      instances[j].index === run.last + 1 &&
      instances[j].h1 === start.h1 &&
      instances[j].h2 === start.h2
    ) {
      run.last++;
      run.count++;
      run.tensors += instances[j].tensors;
      run.elements += instances[j].elements;
      run.bytes += instances[j].bytes;
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
    const key = prefixKey(Int32Array.from(inner), 0, inner.length);
    for (const r of runsOf(child.instances.get(key) ?? [])) {
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
  const found: Array<{ prefix: string; instances: Instance[]; bytes: number }> = [];
  const visit = (node: TemplateNode, path: string): void => {
    for (const child of node.children) {
      if (child.numeric) {
        const instances = child.instances?.get(0) ?? [];
        if (instances.length >= 2) {
          found.push({ prefix: path, instances, bytes: instances.reduce((sum, i) => sum + i.bytes, 0) });
        }
      } else {
        visit(child, `${path}${child.segment}.`);
      }
    }
  };
  visit(root, '');
  found.sort((a, b) => b.bytes - a.bytes);
  return found.slice(0, MAX_LAYER_SERIES).map(({ prefix, instances }) => ({
    prefix,
    points: instances.map((i) => ({ index: i.index, bytes: i.bytes, elements: i.elements, tensors: i.tensors })),
  }));
}
