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
import { MAX_TENSOR_RANK } from '../limits';
import {
  MAX_LAYER_POINTS,
  MAX_LAYER_SERIES,
  SUMMED_LAYER_POINTS,
  MAX_TOP_LEVEL_SERIES,
  MAX_TREE_CHILDREN,
  MAX_TREE_TEMPLATES,
  TREE_TEMPLATES_PER_STEP,
} from './analysis-limits';
import type { LayerSeries, ModuleNode, ModuleTreeSection, SeriesPoint } from './report-sections';
import { storedBytes, tensorIndex, uncachedTensorIndex, type NameShapes, type TensorIndex } from './tensor-index';
import type { Analysis, AnalysisInput, AnalysisOutput } from './analysis-types';
import { compareNatural } from '../natural-order';
import { runSteps, type Steps } from '../steps';
import { underscorePathNames } from './underscore-paths';
import {
  groupOf,
  instancesOf,
  range,
  templateTotals,
  underBudget,
  wholeTemplate,
  type Instances,
  type RenderState,
  type TemplateNode,
} from './module-instances';

export const moduleTreeAnalysis: Analysis<'moduleTree', ModuleTreeSection> = {
  id: 'moduleTree',
  run: (input: AnalysisInput) => runSteps(moduleTreeOutput(input)),
  steps: moduleTreeOutput,
};

function* moduleTreeOutput(input: AnalysisInput): Steps<AnalysisOutput<ModuleTreeSection>> {
  return { section: yield* moduleTreeSteps(tensorIndex(input.header, input.names)), findings: [] };
}

export function buildModuleTree(index: TensorIndex): ModuleTreeSection | null {
  return runSteps(moduleTreeSteps(index));
}

/**
 * The tree in steps (core/steps.ts): after each template group built, each part of a pass over templates or rows
 * and each rendered node, the worker may pause it for a task, and drops it when the load was released.
 */
export function* moduleTreeSteps(index: TensorIndex): Steps<ModuleTreeSection | null> {
  if (index.count === 0) {
    return null;
  }
  // Templates are the shared name shapes (tensor-index.ts): one pass over the names serves every analysis.
  const sharedShapes = index.shapes();
  if (sharedShapes.count > MAX_TREE_TEMPLATES) {
    return gaveUp(index, sharedShapes.count);
  }
  // Paths written with underscores (kohya) get shapes of their own, from their names cut at the underscores that
  // stand for dots; the index the other analyses share keeps the names as stored.
  const paths = underscorePathNames(index.names, sharedShapes);
  const treeIndex = paths === null ? index : uncachedTensorIndex(index.header, paths);
  const shapes = treeIndex.shapes();
  yield;
  const root = yield* buildTemplateTree(shapes, paths === null ? null : { cut: paths, stored: index.names });
  const totals = yield* templateTotals(treeIndex, shapes);
  const state: RenderState = { index: treeIndex, shapes, totals, groups: [], nodes: 0 };
  const tree = yield* render(state, root, [], '', 1, null, true);
  return {
    root: tree,
    nodeCount: state.nodes,
    nodeBudgetReached: !underBudget(state),
    bytesByTopLevel: topLevelSeries(tree),
    bytesByLayer: yield* layerSeries(state, root),
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
    separator: '.',
    numeric,
    children: [],
    depth,
    template: -1,
    below: [],
    instances: numeric ? new Map() : null,
    childIndex: null,
  };
}

/** The names the tree cuts at dots, and the names as stored when those differ (a path written with underscores). */
interface TreeNames {
  readonly cut: readonly string[];
  readonly stored: readonly string[];
}

/**
 * The character after each segment of template `id`'s names as stored: in a path written with underscores some of
 * the dots the tree cut at stand for `_` (underscore-paths.ts), and the cut moved no character. Every name of one
 * template has its separators in the same places, so its first row tells.
 */
function separatorsOf(shapes: NameShapes, id: number, names: TreeNames): string[] {
  const row = shapes.rowList[shapes.rowStart[id]];
  const cut = names.cut[row];
  const stored = names.stored[row];
  const separators: string[] = [];
  for (let at = cut.indexOf('.'); at >= 0; at = cut.indexOf('.', at + 1)) {
    separators.push(stored[at]);
  }
  return separators;
}

function* buildTemplateTree(shapes: NameShapes, names: TreeNames | null): Steps<TemplateNode> {
  const root = newTemplateNode('', false, 0);
  for (let id = 0; id < shapes.count; id++) {
    if (id % TREE_TEMPLATES_PER_STEP === TREE_TEMPLATES_PER_STEP - 1) {
      yield;
    }
    let node = root;
    node.below.push(id);
    const separators = names === null ? null : separatorsOf(shapes, id, names);
    const segments = segmentsOf(shapes.pieces[id]);
    for (let k = 0; k < segments.length; k++) {
      const part = segments[k];
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
      if (separators !== null && k < separators.length) {
        child.separator = separators[k];
      }
      node = child;
      node.below.push(id);
    }
    node.template = id;
  }
  return root;
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
function* render(
  state: RenderState,
  node: TemplateNode,
  context: readonly number[],
  parentPattern: string,
  scale: number,
  run: Run | null,
  isRoot = false,
): Steps<ModuleNode> {
  yield;
  state.nodes++;
  const collapsed = run !== null && run.count > 1;
  const segment = run === null ? node.segment : collapsed ? `{${run.first}-${run.last}}` : String(run.first);
  const isTensor = node.template >= 0 && node.children.length === 0;
  const pattern = isRoot ? '' : isTensor ? parentPattern + segment : parentPattern + segment + node.separator;
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
  const childPattern = isRoot || !isTensor ? pattern : pattern + node.separator;
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
    children.push(yield* render(state, child, inner, childPattern, innerScale, null));
  }
  for (const child of node.children) {
    if (!child.numeric) {
      continue;
    }
    const instances = yield* instancesOf(state, child, inner);
    for (const r of runsOf(instances, 0, instances.index.length)) {
      if (children.length >= MAX_TREE_CHILDREN || !underBudget(state)) {
        fold(r);
        hidden++;
        continue;
      }
      // A run's own totals are exact sums; only an enclosing run's count still multiplies them.
      children.push(yield* render(state, child, inner, childPattern, innerScale, r));
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
    // A module's pattern ends with its separator; a tensor's is its name.
    label: node.children === undefined && node.more === undefined ? node.pattern : node.pattern.slice(0, -1),
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
function* layerSeries(state: RenderState, root: TemplateNode): Steps<LayerSeries[]> {
  const found: Array<{ prefix: string; instances: Instances; bytes: number }> = [];
  // Depth first in the template tree's order, with a stack of its own: a header of 50,000 distinct paths has as
  // many nodes to look through, and a generator per node would cost more than the visit.
  const stack: Array<{ node: TemplateNode; path: string; next: number }> = [{ node: root, path: '', next: 0 }];
  let visited = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.next === top.node.children.length) {
      stack.pop();
      continue;
    }
    const child = top.node.children[top.next++];
    if (++visited % TREE_TEMPLATES_PER_STEP === 0) {
      yield;
    }
    if (!child.numeric) {
      stack.push({ node: child, path: top.path + child.segment + child.separator, next: 0 });
      continue;
    }
    const instances = yield* instancesOf(state, child, []);
    if (instances.index.length >= 2) {
      let bytes = 0;
      for (let i = 0; i < instances.index.length; i++) {
        bytes += instances.bytes[i];
      }
      found.push({ prefix: top.path, instances, bytes });
    }
  }
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
