/**
 * A table's rows summed per name shape, dtype and first index value: what a whole-table sum that depends only on a
 * row's shape, dtype, layer and sizes (the memory analysis' weights per part) reads instead of every row. A shard
 * set's groups are taken per shard as each header arrives, in a function V8 has compiled after the first few shards,
 * and joined in the merge; the pass over every row they replace ran once per load, after the last shard, mostly in
 * V8's interpreter (docs/performance.md, "Loops that run once").
 */
import type { TensorColumns } from '../model';
import type { NameShapes } from './tensor-index';
import { storedBytes } from './tensor-index';

/**
 * First index values above this share one group. Keys are built as numbers below 2^53: shape id (< 2^20), dtype code
 * (< 2^8) and first index + 1 (< 2^25). No model's layer count comes near it.
 */
export const MAX_GROUPED_FIRST_INDEX = 2 ** 25 - 2;

/** Shapes beyond this number are not grouped (the key would not fit): a table of that many distinct paths has no
 * rows worth grouping, and the callers pass over its rows. */
const MAX_GROUPED_SHAPES = 2 ** 20;

export interface ShapeGroups {
  readonly count: number;
  /** Name shape id of each group (the ids of the table's NameShapes). */
  readonly shape: readonly number[];
  /** Dtype code of each group. */
  readonly dtype: readonly number[];
  /** The rows' first index value (capped at MAX_GROUPED_FIRST_INDEX), or -1 for a shape without index segments. */
  readonly first: readonly number[];
  readonly tensors: readonly number[];
  /** Stored bytes: the data_offsets span, else shape × dtype (storedBytes). */
  readonly bytes: readonly number[];
  /** Elements of the rows whose element count is finite. */
  readonly elements: readonly number[];
  /** Rows with at least one element. */
  readonly nonEmpty: readonly number[];
  /**
   * Per shape of the table, the highest value each index slot takes: slot k of shape s at
   * highestIndex[highestIndexStart[s] + k] (-1 for a shape without rows).
   */
  readonly highestIndexStart: Int32Array;
  readonly highestIndex: Int32Array;
}

const groupsOfShapes = new WeakMap<NameShapes, ShapeGroups>();

/** The groups taken for `shapes` (a shard's, or a shard set's joined from them), if any were. */
export function shapeGroupsOf(shapes: NameShapes): ShapeGroups | undefined {
  return groupsOfShapes.get(shapes);
}

/** highestIndexStart for a table's shapes: shape s's slots from [s] to [s + 1]. */
function slotStarts(shapes: NameShapes): Int32Array {
  const starts = new Int32Array(shapes.count + 1);
  for (let s = 0; s < shapes.count; s++) {
    starts[s + 1] = starts[s] + shapes.slots[s];
  }
  return starts;
}

interface GrowingGroups {
  count: number;
  shape: number[];
  dtype: number[];
  first: number[];
  tensors: number[];
  bytes: number[];
  elements: number[];
  nonEmpty: number[];
}

function newGroups(): GrowingGroups {
  return { count: 0, shape: [], dtype: [], first: [], tensors: [], bytes: [], elements: [], nonEmpty: [] };
}

/**
 * The groups as the callers read them. Plain arrays, not typed ones: a shard has a few dozen groups, and copying
 * them into eight typed arrays per shard cost more than the grouping in a worker profile of the network phase.
 */
function done(groups: GrowingGroups, highestIndexStart: Int32Array, highestIndex: Int32Array): ShapeGroups {
  return { ...groups, highestIndexStart, highestIndex };
}

/** Group id of (shape, dtype, first), made when new. */
function groupOf(
  groups: GrowingGroups,
  idOf: Map<number, number>,
  shape: number,
  dtype: number,
  first: number,
): number {
  const key = (shape * 256 + dtype) * 2 ** 25 + first + 1;
  let id = idOf.get(key);
  if (id === undefined) {
    id = groups.count++;
    idOf.set(key, id);
    groups.shape.push(shape);
    groups.dtype.push(dtype);
    groups.first.push(first);
    groups.tensors.push(0);
    groups.bytes.push(0);
    groups.elements.push(0);
    groups.nonEmpty.push(0);
  }
  return id;
}

/**
 * The groups of one table's rows, kept with its shapes. Null when the table has too many shapes to key (see
 * MAX_GROUPED_SHAPES) or rows the shapes do not cover.
 */
export function groupShapeRows(shapes: NameShapes, columns: TensorColumns): ShapeGroups | null {
  const known = groupsOfShapes.get(shapes);
  if (known !== undefined) {
    return known;
  }
  if (shapes.count >= MAX_GROUPED_SHAPES || shapes.rowShape.length !== columns.count) {
    return null;
  }
  const groups = newGroups();
  const idOf = new Map<number, number>();
  const { rowShape, slots, indexStart, indexValues } = shapes;
  const { elements, dtype, begin, end } = columns;
  const highestIndexStart = slotStarts(shapes);
  const highestIndex = new Int32Array(highestIndexStart[shapes.count]).fill(-1);
  // Each shape's last group: a shape's rows in one layer (256 experts of one projection) share one, and the map,
  // whose keys are past the small integers V8 keeps unboxed, is asked only when the layer or dtype changes.
  const lastGroup = new Int32Array(shapes.count).fill(-1);
  for (let row = 0; row < columns.count; row++) {
    const s = rowShape[row];
    const values = indexStart[row];
    const slotCount = slots[s];
    for (let k = 0, at = highestIndexStart[s]; k < slotCount; k++, at++) {
      if (indexValues[values + k] > highestIndex[at]) {
        highestIndex[at] = indexValues[values + k];
      }
    }
    const first = slotCount > 0 ? Math.min(indexValues[values], MAX_GROUPED_FIRST_INDEX) : -1;
    const code = dtype[row];
    let id = lastGroup[s];
    if (id < 0 || groups.first[id] !== first || groups.dtype[id] !== code) {
      id = groupOf(groups, idOf, s, code, first);
      lastGroup[s] = id;
    }
    // x - x === 0 exactly when x is finite.
    const value = elements[row];
    const stored = value - value === 0 ? value : 0;
    const span = end[row] - begin[row];
    groups.tensors[id]++;
    groups.bytes[id] += span - span === 0 && span >= 0 ? span : storedBytes(columns, row);
    groups.elements[id] += stored;
    groups.nonEmpty[id] += stored > 0 ? 1 : 0;
  }
  const result = done(groups, highestIndexStart, highestIndex);
  groupsOfShapes.set(shapes, result);
  return result;
}

/**
 * The groups of a table laid end to end from parts (a shard set's merged table), from each part's groups and the
 * joined id of each part's shapes (joinShapes' partShapeIds), kept with the joined shapes. Groups of one (shape,
 * dtype, first) in several parts are added into one.
 */
export function joinShapeGroups(
  joined: NameShapes,
  parts: readonly ShapeGroups[],
  partShapeIds: readonly Int32Array[],
): ShapeGroups | null {
  if (joined.count >= MAX_GROUPED_SHAPES || parts.length !== partShapeIds.length) {
    return null;
  }
  const groups = newGroups();
  const idOf = new Map<number, number>();
  const highestIndexStart = slotStarts(joined);
  const highestIndex = new Int32Array(highestIndexStart[joined.count]).fill(-1);
  parts.forEach((part, at) => {
    addPartGroups(groups, idOf, part, partShapeIds[at]);
    addPartHighest(highestIndex, highestIndexStart, part, partShapeIds[at]);
  });
  const result = done(groups, highestIndexStart, highestIndex);
  groupsOfShapes.set(joined, result);
  return result;
}

function addPartGroups(
  groups: GrowingGroups,
  idOf: Map<number, number>,
  part: ShapeGroups,
  globalOf: Int32Array,
): void {
  for (let g = 0; g < part.count; g++) {
    const id = groupOf(groups, idOf, globalOf[part.shape[g]], part.dtype[g], part.first[g]);
    groups.tensors[id] += part.tensors[g];
    groups.bytes[id] += part.bytes[g];
    groups.elements[id] += part.elements[g];
    groups.nonEmpty[id] += part.nonEmpty[g];
  }
}

function addPartHighest(highestIndex: Int32Array, starts: Int32Array, part: ShapeGroups, globalOf: Int32Array): void {
  for (let s = 0; s < globalOf.length; s++) {
    const from = part.highestIndexStart[s];
    const slots = part.highestIndexStart[s + 1] - from;
    for (let k = 0; k < slots; k++) {
      const at = starts[globalOf[s]] + k;
      highestIndex[at] = Math.max(highestIndex[at], part.highestIndex[from + k]);
    }
  }
}
