/**
 * A read-only view over one parsed header that every insight analysis shares: name → row lookup, dtype names,
 * shapes, byte sizes, the metadata as a map, and the names' SHAPES. Built once per header (cached by identity):
 * on a 250,000-tensor header the names are the expensive part, so they are scanned exactly once here and every
 * analysis works from what that scan found.
 *
 * Name shapes. Every name is parsed once into its shape — the name with each index segment (a dotted segment of
 * 1–9 ASCII digits) written `#` — plus its index tuple (`model.layers.3.mlp.experts.17.up_proj.weight` →
 * `model.layers.#.mlp.experts.#.up_proj.weight`, (3, 17)). A 250,000-tensor MoE header has about a dozen shapes.
 * A test on the shape text gives the same answer as on each of its names whenever the test cannot match a digit
 * or a `#` (endsWith('.qweight'), includes('.experts.'), a regex of literal segments): everything such a test can
 * match lies in the literal segments, which the shape keeps verbatim. Analyses therefore run their name patterns
 * once per shape instead of once per tensor. Tests that do read digits (an expert index, `\d+`) use the index
 * tuple or run on the few names a shape-level test let through.
 */
import { dtypeName, elementBits } from '../dtypes';
import { allMetadataTexts, type ParsedHeader, type TensorColumns } from '../model';
import { shapesOf, type ParsedShapes } from './tensor-name-shapes';
import { dtypeSums } from '../stats';

export interface NameShapes {
  /** Number of distinct shapes; ids run in order of first appearance. */
  readonly count: number;
  /** Shape text: the name with every index segment written `#`. */
  readonly text: readonly string[];
  /**
   * Literal text around the index segments: pieces[s][0] + <index> + pieces[s][1] + … + pieces[s][slots]. Unlike
   * `text`, it stays exact for the odd name whose literal segment is itself `#`.
   */
  readonly pieces: ReadonlyArray<readonly string[]>;
  /** Index segments per shape (pieces[s].length - 1). */
  readonly slots: Int32Array;
  /** Shape of each row. */
  readonly rowShape: Int32Array;
  /** count + 1 offsets into `indexValues`: the index tuple of row i is indexValues[indexStart[i], indexStart[i + 1]). */
  readonly indexStart: Uint32Array;
  readonly indexValues: Int32Array;
  /** Rows of shape s in row order: rowList[rowStart[s], rowStart[s + 1]). */
  readonly rowStart: Int32Array;
  readonly rowList: Int32Array;
}

export interface SortedShape {
  /** Index segments per row. */
  depth: number;
  rows: Int32Array;
  /** keys[i * depth + d]: index d of rows[i]. */
  keys: Int32Array;
  /** No two rows share a tuple: a row found with the tuple is the only one. */
  unique: boolean;
}

export interface TensorIndex {
  readonly header: ParsedHeader;
  readonly names: readonly string[];
  readonly count: number;
  readonly metadata: ReadonlyMap<string, string>;
  /** Row of an exact tensor name, or -1 (the last row when a name repeats). */
  row(name: string): number;
  has(name: string): boolean;
  /**
   * The row named like `row` with its `suffix` replaced by `siblingSuffix` (`<module>.weight` beside the row
   * `<module>.weight_scale_inv`), or -1: the answer of row(name minus suffix + siblingSuffix), found without
   * building that name. `row`'s name must end with `suffix`.
   */
  sibling(row: number, suffix: string, siblingSuffix: string): number;
  /** Dtype string as written in the header (unknown dtypes keep their original spelling). */
  dtype(row: number): string;
  rank(row: number): number;
  /** Dimension i of the shape; negative i counts from the end; NaN when out of range. */
  dim(row: number, i: number): number;
  shape(row: number): number[];
  elements(row: number): number;
  /** Stored bytes: the data_offsets span when valid, else elements × dtype bits / 8. */
  bytes(row: number): number;
  /** Rows named `parent.<segment>` (one more dotted segment, no further dots), in header order. */
  children(parent: string): readonly number[];
  /** The names parsed into shapes and index tuples (built on first use, then shared). */
  shapes(): NameShapes;
  /** Rows of a shape sorted by index tuple (ties in row order), with the tuples laid out flat in that order. */
  sortedShape(shape: number): SortedShape;
  /** Rows per dtype code (index DTYPES; codes outside the spec count under their code too). */
  dtypeCounts(): Uint32Array;
  /** Rows whose name ends with `suffix`, in row order. */
  rowsEndingWith(suffix: string): readonly number[];
  /** Rows whose name contains `text`, in row order. */
  rowsContaining(text: string): readonly number[];
}

const cache = new WeakMap<ParsedHeader, { names: readonly string[]; index: TensorIndex }>();
const givenShapes = new WeakMap<ParsedHeader, { names: readonly string[]; shapes: ParsedShapes }>();

/**
 * Shapes already found for `header`'s names (a shard set's, joined from each shard's as it arrived): the index
 * built for this header and these names uses them instead of parsing every name again.
 */
export function provideShapes(header: ParsedHeader, names: readonly string[], shapes: ParsedShapes): void {
  givenShapes.set(header, { names, shapes });
}

export function tensorIndex(header: ParsedHeader, names: readonly string[]): TensorIndex {
  const cached = cache.get(header);
  if (cached && cached.names === names) {
    return cached.index;
  }
  const index = buildIndex(header, names);
  cache.set(header, { names, index });
  return index;
}

/** An index over other names for `header`'s rows (the module tree's cut paths), kept out of the shared cache. */
export function uncachedTensorIndex(header: ParsedHeader, names: readonly string[]): TensorIndex {
  return buildIndex(header, names, false);
}

/** TensorIndex.bytes as a plain function, for loops over every row. */
export function storedBytes(columns: TensorColumns, row: number): number {
  const span = columns.end[row] - columns.begin[row];
  if (Number.isFinite(span) && span >= 0) {
    return span;
  }
  const elements = columns.elements[row];
  return Number.isFinite(elements) ? Math.ceil((elements * elementBits(columns, row)) / 8) : 0;
}

/**
 * Whether endsWith / includes / startsWith of `literal` gives the same answer on a shape text as on each of its
 * names: true unless a dotted part of the literal could be an index segment or its `#` (all digits, or `#`). A
 * part with any other character (`scaled_fp8`, `lora_A`) can only lie in a literal segment, which the shape keeps.
 */
export function shapeSafe(literal: string): boolean {
  return literal.split('.').every((part) => part === '' || (part !== '#' && !/^[0-9]+$/.test(part)));
}

/** Rows of every shape that passes `test`, in row order (the test must be shapeSafe: see the file comment). */
function rowsWhereShape(shapes: NameShapes, test: (shape: number) => boolean): number[] {
  const matched: number[] = [];
  for (let s = 0; s < shapes.count; s++) {
    if (test(s)) {
      matched.push(s);
    }
  }
  const rows = rowsOfShapes(shapes, matched);
  // An indexed copy: Array.from walks a typed array through its iterator, ~60 ns a row (45,808 rows of
  // `.weight_scale_inv` on DeepSeek-V3 took 3-6 ms that way).
  const list = new Array<number>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    list[i] = rows[i];
  }
  return list;
}

/** Rows of the given shapes, in row order: their row lists merged, or one pass over all rows when that is cheaper. */
export function rowsOfShapes(shapes: NameShapes, ids: readonly number[]): Int32Array {
  let total = 0;
  for (const s of ids) {
    total += shapes.rowStart[s + 1] - shapes.rowStart[s];
  }
  const rows = new Int32Array(total);
  if (ids.length === 1) {
    rows.set(shapes.rowList.subarray(shapes.rowStart[ids[0]], shapes.rowStart[ids[0] + 1]));
  } else if (total * Math.log2(total + 1) < shapes.rowShape.length) {
    let at = 0;
    for (const s of ids) {
      rows.set(shapes.rowList.subarray(shapes.rowStart[s], shapes.rowStart[s + 1]), at);
      at += shapes.rowStart[s + 1] - shapes.rowStart[s];
    }
    rows.sort();
  } else if (total > 0) {
    const wanted = new Uint8Array(shapes.count);
    for (const s of ids) {
      wanted[s] = 1;
    }
    let at = 0;
    for (let row = 0; row < shapes.rowShape.length; row++) {
      if (wanted[shapes.rowShape[row]] === 1) {
        rows[at++] = row;
      }
    }
  }
  return rows;
}

function buildIndex(header: ParsedHeader, names: readonly string[], namesAreStored = true): TensorIndex {
  const columns = header.tensors;
  const metadata = new Map<string, string>();
  const metadataTexts = allMetadataTexts(header.metadata);
  for (let text = 0; text < metadataTexts.length; text += 2) {
    metadata.set(metadataTexts[text], metadataTexts[text + 1]);
  }
  const dtypeText = (row: number): string =>
    dtypeName(columns.dtype[row]) ?? header.unknownDtypes.get(row) ?? 'unknown';
  const rank = (row: number): number => columns.shapeStarts[row + 1] - columns.shapeStarts[row];
  const given = givenShapes.get(header);
  let parsed: ParsedShapes | null = given?.names === names ? given.shapes : null;
  const shapes = (): ParsedShapes => (parsed ??= shapesOf(names, columns, namesAreStored));
  const sorted: Array<SortedShape | undefined> = [];
  const sortedShape = (shape: number): SortedShape => {
    let entry = sorted[shape];
    if (entry === undefined) {
      entry = sortShape(shapes(), shape);
      sorted[shape] = entry;
    }
    return entry;
  };
  // Lookups go through the shapes (no per-name structure at all) until a file asks for many — a quantized model
  // checks a few sidecars per module — and then through a plain Map of every name, built once.
  let byName: Map<string, number> | null = null;
  const distinct = header.namesDistinct === true;
  let lookups = 0;
  const lookupLimit = Math.max(1024, names.length >> 4);
  const lookup = (name: string): number => {
    if (byName === null && ++lookups > lookupLimit) {
      byName = new Map();
      for (let i = 0; i < names.length; i++) {
        byName.set(names[i], i);
      }
    }
    if (byName !== null) {
      return byName.get(name) ?? -1;
    }
    const query = shapes().query(name);
    if (query === null) {
      return -1;
    }
    if (distinct && sorted[query.shape] === undefined) {
      const probed = probeShapeFront(shapes(), query.shape, name, names);
      if (probed >= 0) {
        return probed;
      }
    }
    const { rows, keys, depth } = sortedShape(query.shape);
    if (depth === 0) {
      // No index segments: every row of the shape has exactly this name; the last one wins, as in a Map.
      return rows.length > 0 ? rows[rows.length - 1] : -1;
    }
    const [from, to] = tupleRange(keys, depth, query.values);
    // Equal tuples can still be different names (`05` and `5`), or the same name twice.
    for (let i = to - 1; i >= from; i--) {
      if (names[rows[i]] === name) {
        return rows[i];
      }
    }
    return -1;
  };
  const sibling = siblingLookup(names, shapes, sortedShape, lookup, distinct);
  let dtypeCounts: Uint32Array | null = null;
  const suffixRows = new Map<string, readonly number[]>();
  const containsRows = new Map<string, readonly number[]>();
  // Built on first use: only detectors that group a layer's direct children (ComfyUI, HQQ) need it.
  let childMap: Map<string, number[]> | null = null;
  const noRows: readonly number[] = [];
  return {
    header,
    names,
    count: columns.count,
    metadata,
    row: lookup,
    has: (name) => lookup(name) >= 0,
    sibling,
    dtype: dtypeText,
    rank,
    dim(row, i) {
      const r = rank(row);
      const at = i < 0 ? r + i : i;
      return at >= 0 && at < r ? columns.dims[columns.shapeStarts[row] + at] : Number.NaN;
    },
    shape: (row) => Array.from(columns.dims.subarray(columns.shapeStarts[row], columns.shapeStarts[row + 1])),
    elements: (row) => columns.elements[row],
    bytes: (row) => storedBytes(columns, row),
    children(parent) {
      if (childMap === null) {
        childMap = new Map();
        for (let i = 0; i < names.length; i++) {
          const name = names[i];
          const cut = name.lastIndexOf('.');
          if (cut > 0) {
            const key = name.slice(0, cut);
            const list = childMap.get(key);
            if (list) {
              list.push(i);
            } else {
              childMap.set(key, [i]);
            }
          }
        }
      }
      return childMap.get(parent) ?? noRows;
    },
    shapes,
    sortedShape,
    dtypeCounts() {
      if (dtypeCounts === null) {
        // From the per-dtype sums the load's totals already took (core/stats.ts keeps them), rather than another
        // pass over every row (docs/performance.md, "Loops that run once"); rows of codes outside the known ones
        // are listed there one by one.
        const sums = dtypeSums(columns);
        const counts = Uint32Array.from(sums.tensorsByCode);
        for (const row of sums.unknownRows) {
          counts[columns.dtype[row]]++;
        }
        dtypeCounts = counts;
      }
      return dtypeCounts;
    },
    rowsEndingWith(suffix) {
      let rows = suffixRows.get(suffix);
      if (rows === undefined) {
        rows = shapeSafe(suffix)
          ? rowsWhereShape(shapes(), (s) => shapes().text[s].endsWith(suffix))
          : rowsWhereName(names, (name) => name.endsWith(suffix));
        suffixRows.set(suffix, rows);
      }
      return rows;
    },
    rowsContaining(text) {
      let rows = containsRows.get(text);
      if (rows === undefined) {
        rows = shapeSafe(text)
          ? rowsWhereShape(shapes(), (s) => shapes().text[s].includes(text))
          : rowsWhereName(names, (name) => name.includes(text));
        containsRows.set(text, rows);
      }
      return rows;
    },
  };
}

/** What a shape resolves to besides a shape id: no row has the sibling's shape, or ask by name. */
const NO_SHAPE = -1;
const BY_NAME = -2;

/**
 * TensorIndex.sibling. A quantized model asks for a few sidecars of every module (`.weight` beside each
 * `.weight_scale_inv`: ~180,000 questions on DeepSeek-V3's 92,000 tensors), and building each name to look it up
 * cost more than the rest of the quantization analysis. Instead the sibling's name shape is found once per shape
 * and suffix pair — when both suffixes are dotted literals (shapeSafe, starting with `.`), swapping them changes
 * only the shape's last literal piece and keeps every index segment, so all rows of a shape have their siblings
 * in one shape, under the same index tuple — and each question is then a binary search over that shape's sorted
 * tuples. Other suffix pairs, and files with so many shapes that resolving each costs more than it saves, are
 * asked by name.
 */
function siblingLookup(
  names: readonly string[],
  shapes: () => ParsedShapes,
  sortedShape: (shape: number) => SortedShape,
  lookup: (name: string) => number,
  /** ParsedHeader.namesDistinct: a neighbour spelled as the sibling is the sibling, with no sort to prove it. */
  namesDistinct: boolean,
): (row: number, suffix: string, siblingSuffix: string) => number {
  // Per suffix pair, shape → sibling shape; a Map, not an array per shape, so a header of a million distinct paths
  // costs only the shapes resolved (at most resolutionLimit in all), whatever the number of pairs asked.
  const tables = new Map<string, Map<string, Map<number, number> | null>>();
  let literalLengths: Int32Array | null = null;
  let resolutions = 0;
  const resolutionLimit = Math.max(1024, names.length >> 4);
  const siblingName = (row: number, suffix: string, siblingSuffix: string): string =>
    names[row].slice(0, names[row].length - suffix.length) + siblingSuffix;

  const tableFor = (suffix: string, siblingSuffix: string): Map<number, number> | null => {
    let bySibling = tables.get(suffix);
    if (bySibling === undefined) {
      bySibling = new Map();
      tables.set(suffix, bySibling);
    }
    let table = bySibling.get(siblingSuffix);
    if (table === undefined) {
      const dotted = (literal: string): boolean => literal.startsWith('.') && shapeSafe(literal);
      table = dotted(suffix) && dotted(siblingSuffix) ? new Map() : null;
      bySibling.set(siblingSuffix, table);
    }
    return table;
  };

  /** The shape holding the siblings of shape s's rows, found by parsing the sibling name of one of its rows. */
  const resolve = (parsed: ParsedShapes, s: number, suffix: string, siblingSuffix: string): number => {
    // A name that ends with a dotted literal has it in its last piece; this only answers a caller's slip by name.
    if (!parsed.pieces[s][parsed.slots[s]].endsWith(suffix)) {
      return BY_NAME;
    }
    const found = parsed.query(siblingName(parsed.rowList[parsed.rowStart[s]], suffix, siblingSuffix));
    return found === null ? NO_SHAPE : found.shape;
  };

  /**
   * Whether the row's name is spelled by its shape and index tuple (no index written with leading zeros): two
   * such rows with the same pieces and tuple have the same name.
   */
  const plainlySpelled = (parsed: ParsedShapes, row: number, shape: number): boolean => {
    literalLengths ??= new Int32Array(parsed.count).fill(-1);
    let length = literalLengths[shape];
    if (length < 0) {
      length = parsed.pieces[shape].reduce((sum, piece) => sum + piece.length, 0);
      literalLengths[shape] = length;
    }
    for (let i = parsed.indexStart[row]; i < parsed.indexStart[row + 1]; i++) {
      length += decimalDigits(parsed.indexValues[i]);
    }
    return names[row].length === length;
  };

  return (row, suffix, siblingSuffix) => {
    const table = tableFor(suffix, siblingSuffix);
    if (table === null) {
      return lookup(siblingName(row, suffix, siblingSuffix));
    }
    const parsed = shapes();
    const shape = parsed.rowShape[row];
    let target = table.get(shape);
    if (target === undefined) {
      if (resolutions >= resolutionLimit) {
        return lookup(siblingName(row, suffix, siblingSuffix));
      }
      resolutions++;
      target = resolve(parsed, shape, suffix, siblingSuffix);
      table.set(shape, target);
    }
    if (target === NO_SHAPE) {
      return -1;
    }
    if (target === BY_NAME) {
      return lookup(siblingName(row, suffix, siblingSuffix));
    }
    const depth = parsed.slots[target];
    const values = parsed.indexValues;
    const at = parsed.indexStart[row];
    // Rows with equal tuples are in row order: the last one that has the name wins, as in row().
    const wanted = plainlySpelled(parsed, row, shape) ? null : siblingName(row, suffix, siblingSuffix);
    // Writers put a module's tensors side by side (in order of creation, or sorted by name, where `.weight` and
    // `.weight_scale_inv` are neighbours too): a neighbour with the sibling's shape and tuple, spelled as the
    // sibling is, is the answer without the search when no other row can have that name: the header's names are
    // distinct (no sort needed at all), or the tuple is unique in its shape.
    if (namesDistinct || sortedShape(target).unique) {
      for (let candidate = row - 1; candidate <= row + 1; candidate += 2) {
        if (
          candidate >= 0 &&
          candidate < parsed.rowShape.length &&
          parsed.rowShape[candidate] === target &&
          sameTuple(values, parsed.indexStart[candidate], at, depth)
        ) {
          if (wanted === null ? plainlySpelled(parsed, candidate, target) : names[candidate] === wanted) {
            return candidate;
          }
          if (sortedShape(target).unique) {
            return -1;
          }
          break;
        }
      }
    }
    const { rows, keys } = sortedShape(target);
    for (let i = tupleUpperBound(keys, depth, rows.length, values, at) - 1; i >= 0; i--) {
      if (compareTuple(keys, i, depth, values, at) !== 0) {
        break;
      }
      const candidate = rows[i];
      if (wanted === null ? plainlySpelled(parsed, candidate, target) : names[candidate] === wanted) {
        return candidate;
      }
    }
    return -1;
  };
}

function sameTuple(values: Int32Array, a: number, b: number, depth: number): boolean {
  for (let d = 0; d < depth; d++) {
    if (values[a + d] !== values[b + d]) {
      return false;
    }
  }
  return true;
}

function decimalDigits(value: number): number {
  let digits = 1;
  while (value >= 10) {
    value = Math.floor(value / 10);
    digits++;
  }
  return digits;
}

/**
 * Sign of tuple i of the flat sorted `keys` minus the tuple values[at, at + depth). tupleRange does the same over a
 * plain array; this copy reads the tuple in place from an Int32Array without a closure, and on the sibling path
 * (~180,000 calls on DeepSeek-V3) sharing tupleRange measured 80–100 ms slower per analysis (megamorphic access).
 */
function compareTuple(keys: Int32Array, i: number, depth: number, values: Int32Array, at: number): number {
  for (let d = 0; d < depth; d++) {
    const diff = keys[i * depth + d] - values[at + d];
    if (diff !== 0) {
      return diff;
    }
  }
  return 0;
}

/** First of the `count` sorted tuples in `keys` that is greater than the tuple values[at, at + depth). */
function tupleUpperBound(keys: Int32Array, depth: number, count: number, values: Int32Array, at: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareTuple(keys, mid, depth, values, at) <= 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

function rowsWhereName(names: readonly string[], test: (name: string) => boolean): number[] {
  const rows: number[] = [];
  for (let row = 0; row < names.length; row++) {
    if (test(names[row])) {
      rows.push(row);
    }
  }
  return rows;
}

/**
 * Rows of a shape a name lookup reads in header order before it sorts the shape: the analyses look names up in the
 * first layer or the first expert, which lead their shape, and sorting a 15,000-row expert shape for one of them
 * cost ~5 ms of the 161-shard tail.
 */
const LOOKUP_PROBE_ROWS = 64;

/** The row among the shape's first LOOKUP_PROBE_ROWS named `name`, or -1. Only where names are distinct. */
function probeShapeFront(shapes: NameShapes, shape: number, name: string, names: readonly string[]): number {
  const from = shapes.rowStart[shape];
  const to = Math.min(shapes.rowStart[shape + 1], from + LOOKUP_PROBE_ROWS);
  for (let i = from; i < to; i++) {
    if (names[shapes.rowList[i]] === name) {
      return shapes.rowList[i];
    }
  }
  return -1;
}

/**
 * A shape's rows sorted by index tuple, with the tuples gathered flat. Headers usually list a shape's rows in
 * numeric order already; the gather doubles as the check, and only an unsorted shape is sorted (then gathered
 * again).
 */
function sortShape(shapes: NameShapes, shape: number): SortedShape {
  const { indexStart, indexValues } = shapes;
  const depth = shapes.slots[shape];
  const rows = shapes.rowList.slice(shapes.rowStart[shape], shapes.rowStart[shape + 1]);
  const keys = new Int32Array(rows.length * depth);
  let ordered = true;
  for (let i = 0; i < rows.length; i++) {
    const at = indexStart[rows[i]];
    let diff = 0;
    for (let d = 0; d < depth; d++) {
      const value = indexValues[at + d];
      keys[i * depth + d] = value;
      if (diff === 0 && i > 0) {
        diff = value - keys[(i - 1) * depth + d];
      }
    }
    ordered &&= diff >= 0;
  }
  if (!ordered) {
    sortByIndexTuple(rows, depth, indexStart, indexValues);
    for (let i = 0; i < rows.length; i++) {
      const at = indexStart[rows[i]];
      for (let d = 0; d < depth; d++) {
        keys[i * depth + d] = indexValues[at + d];
      }
    }
  }
  let unique = true;
  for (let i = 1; i < rows.length && unique; i++) {
    unique = compareTuple(keys, i, depth, keys, (i - 1) * depth) !== 0;
  }
  return { depth, rows, keys, unique };
}

/** Largest index for which the counting sort is used; beyond it a comparison sort takes over. */
const MAX_COUNTING_SORT_INDEX = 1 << 20;

/**
 * Sorts rows by the first `depth` values of their index tuples, stably. LSD counting sort, one pass per tuple
 * position: linear in rows, which matters for 250,000 expert tensors whose names arrive in lexicographic
 * (0, 1, 10, 100…) order.
 */
function sortByIndexTuple(rows: Int32Array, depth: number, indexStart: Uint32Array, indexValues: Int32Array): void {
  let max = 0;
  for (let i = 0; i < rows.length; i++) {
    const at = indexStart[rows[i]];
    for (let d = 0; d < depth; d++) {
      max = Math.max(max, indexValues[at + d]);
    }
  }
  if (max >= MAX_COUNTING_SORT_INDEX) {
    const sorted = Array.from(rows).sort((a, b) => {
      for (let d = 0; d < depth; d++) {
        const diff = indexValues[indexStart[a] + d] - indexValues[indexStart[b] + d];
        if (diff !== 0) {
          return diff;
        }
      }
      return 0;
    });
    rows.set(sorted);
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

/** [from, to) of the flat sorted tuples `keys` (depth per entry) that start with `tuple`. */
export function tupleRange(keys: Int32Array, depth: number, tuple: readonly number[]): [number, number] {
  const count = depth === 0 ? 0 : keys.length / depth;
  const length = Math.min(tuple.length, depth);
  const compare = (i: number): number => {
    for (let d = 0; d < length; d++) {
      const diff = keys[i * depth + d] - tuple[d];
      if (diff !== 0) {
        return diff;
      }
    }
    return 0;
  };
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(mid) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const from = lo;
  hi = count;
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
