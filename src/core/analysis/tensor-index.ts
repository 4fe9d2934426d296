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
import type { ParsedHeader, TensorColumns } from '../model';

/** Longest digit run treated as an index; longer ones (hashes, dates) stay literal text. */
const MAX_INDEX_DIGITS = 9;

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
}

export interface TensorIndex {
  readonly header: ParsedHeader;
  readonly names: readonly string[];
  readonly count: number;
  readonly metadata: ReadonlyMap<string, string>;
  /** Row of an exact tensor name, or -1 (the last row when a name repeats). */
  row(name: string): number;
  has(name: string): boolean;
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

export function tensorIndex(header: ParsedHeader, names: readonly string[]): TensorIndex {
  const cached = cache.get(header);
  if (cached && cached.names === names) {
    return cached.index;
  }
  const index = buildIndex(header, names);
  cache.set(header, { names, index });
  return index;
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
  return Array.from(rowsOfShapes(shapes, matched));
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

function buildIndex(header: ParsedHeader, names: readonly string[]): TensorIndex {
  const columns = header.tensors;
  const metadata = new Map<string, string>();
  for (const entry of header.metadata) {
    metadata.set(entry.key, entry.value);
  }
  const dtypeText = (row: number): string =>
    dtypeName(columns.dtype[row]) ?? header.unknownDtypes.get(row) ?? 'unknown';
  const rank = (row: number): number => columns.shapeStarts[row + 1] - columns.shapeStarts[row];
  let parsed: ParsedShapes | null = null;
  const shapes = (): ParsedShapes => (parsed ??= shapesOf(names, columns));
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
        dtypeCounts = new Uint32Array(256);
        for (let row = 0; row < columns.count; row++) {
          dtypeCounts[columns.dtype[row]]++;
        }
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

function rowsWhereName(names: readonly string[], test: (name: string) => boolean): number[] {
  const rows: number[] = [];
  for (let row = 0; row < names.length; row++) {
    if (test(names[row])) {
      rows.push(row);
    }
  }
  return rows;
}

/** Row of `name` when it exists and is not yet claimed by another detector. */
export function freeRow(index: TensorIndex, claimed: Uint8Array, name: string): number {
  const row = index.row(name);
  return row >= 0 && claimed[row] === 0 ? row : -1;
}

// ---------------------------------------------------------------------------------------------------------------
// The one pass over the names.

interface ParsedShapes extends NameShapes {
  /** Shape and index tuple of an arbitrary name, or null when no row has its shape. */
  query(name: string): { shape: number; values: number[] } | null;
}

/** Index segments of the name being scanned: start, end and value of each. */
interface Scratch {
  starts: Int32Array;
  ends: Int32Array;
  values: Int32Array;
  /** Whether the name has a unit outside ASCII. */
  wide: boolean;
}

function growScratch(scratch: Scratch): void {
  const size = scratch.starts.length * 2;
  const starts = new Int32Array(size);
  const ends = new Int32Array(size);
  const values = new Int32Array(size);
  starts.set(scratch.starts);
  ends.set(scratch.ends);
  values.set(scratch.values);
  scratch.starts = starts;
  scratch.ends = ends;
  scratch.values = values;
}

/** Whether a scanned name (k index segments in `scratch`) has the literal pieces `pieces`. */
function matchesPieces(name: string, k: number, scratch: Scratch, pieces: readonly string[]): boolean {
  if (pieces.length !== k + 1) {
    return false;
  }
  // Lengths first (cheap), then the text of each piece.
  let from = 0;
  for (let j = 0; j <= k; j++) {
    const to = j < k ? scratch.starts[j] : name.length;
    if (to - from !== pieces[j].length) {
      return false;
    }
    from = j < k ? scratch.ends[j] : to;
  }
  from = 0;
  for (let j = 0; j <= k; j++) {
    const piece = pieces[j];
    if (piece.length > 0 && !name.startsWith(piece, from)) {
      return false;
    }
    from = j < k ? scratch.ends[j] : from;
  }
  return true;
}

/**
 * The names as one array of UTF-16 code units plus offsets. For the usual all-ASCII header that is the header's own
 * name bytes (no copy); otherwise the names are copied once.
 */
function codeUnits(
  names: readonly string[],
  columns: TensorColumns,
  ascii: boolean,
): { units: Uint8Array | Uint16Array; starts: Uint32Array } {
  if (ascii) {
    return { units: columns.nameBytes, starts: columns.nameStarts };
  }
  const starts = new Uint32Array(names.length + 1);
  for (let row = 0; row < names.length; row++) {
    starts[row + 1] = starts[row] + names[row].length;
  }
  const units = new Uint16Array(starts[names.length]);
  for (let row = 0; row < names.length; row++) {
    const name = names[row];
    const at = starts[row];
    for (let i = 0; i < name.length; i++) {
      units[at + i] = name.charCodeAt(i);
    }
  }
  return { units, starts };
}

/** Whether the names can be read straight from the header's name bytes: one byte per character. */
function namesMatchBytes(names: readonly string[], columns: TensorColumns): boolean {
  if (columns.count !== names.length || columns.nameBytes.length !== columns.nameStarts[columns.count]) {
    return false;
  }
  for (let row = 0; row < names.length; row++) {
    if (names[row].length !== columns.nameStarts[row + 1] - columns.nameStarts[row]) {
      return false;
    }
  }
  return true;
}

/** Finds the index segments of the name at code units [from, end) into `scratch` (absolute positions); returns how many. */
function scanUnits(units: Uint8Array | Uint16Array, from: number, end: number, scratch: Scratch): number {
  let bits = 0;
  let k = 0;
  let segStart = from;
  let numeric = true;
  let value = 0;
  for (let i = from; i <= end; i++) {
    const c = i < end ? units[i] : 46;
    bits |= c;
    if (c === 46) {
      const segLength = i - segStart;
      if (numeric && segLength > 0 && segLength <= MAX_INDEX_DIGITS) {
        if (k === scratch.starts.length) {
          growScratch(scratch);
        }
        scratch.starts[k] = segStart;
        scratch.ends[k] = i;
        scratch.values[k] = value;
        k++;
      }
      segStart = i + 1;
      numeric = true;
      value = 0;
    } else if (numeric) {
      if (c >= 48 && c <= 57) {
        value = value * 10 + (c - 48);
      } else {
        numeric = false;
      }
    }
  }
  scratch.wide = bits >= 0x80;
  return k;
}

/** Hash of a scanned name's literal text and index positions (FNV-1a over the literal code units). */
function unitsHash(units: Uint8Array | Uint16Array, from: number, end: number, k: number, scratch: Scratch): number {
  let hash = 0x811c9dc5 ^ k;
  let at = from;
  for (let j = 0; j <= k; j++) {
    const to = j < k ? scratch.starts[j] : end;
    for (let i = at; i < to; i++) {
      hash = Math.imul(hash ^ units[i], 0x01000193);
    }
    hash = Math.imul(hash ^ 0x2a3, 0x01000193);
    at = j < k ? scratch.ends[j] : to;
  }
  return hash & 0x3fffffff;
}

/**
 * Whether the scanned name [from, end) has the literal pieces of shape s, compared against the code units of the
 * row that created the shape (`rep`, whose index segments are `repSlots` = start, end, start, end…).
 */
function matchesRow(
  units: Uint8Array | Uint16Array,
  words: DataView | null,
  from: number,
  end: number,
  k: number,
  scratch: Scratch,
  repFrom: number,
  repEnd: number,
  repSlots: Int32Array,
): boolean {
  if (repSlots.length !== 2 * k) {
    return false;
  }
  let at = from;
  let repAt = repFrom;
  for (let j = 0; j <= k; j++) {
    const to = j < k ? scratch.starts[j] : end;
    const repTo = j < k ? repSlots[2 * j] : repEnd;
    if (to - at !== repTo - repAt) {
      return false;
    }
    at = j < k ? scratch.ends[j] : to;
    repAt = j < k ? repSlots[2 * j + 1] : repTo;
  }
  at = from;
  repAt = repFrom;
  for (let j = 0; j <= k; j++) {
    const to = j < k ? scratch.starts[j] : end;
    if (!sameUnits(units, words, at, repAt, to - at)) {
      return false;
    }
    at = j < k ? scratch.ends[j] : to;
    repAt = j < k ? repSlots[2 * j + 1] : repEnd;
  }
  return true;
}

/**
 * Reads the name [from, end) along a known shape: its literal pieces must equal the shape's (compared with the
 * code units of the row that created the shape, whose index segments are `repSlots`), and between them must stand
 * runs of 1–9 digits. Then the name has exactly that shape — the pieces carry the dots around each run, so each
 * run is a whole segment, and the literal segments are the shape's own — and its index values are in
 * scratch.values. Returns the number of index segments, or -1 when the name does not have the shape.
 */
function readAlong(
  units: Uint8Array | Uint16Array,
  words: DataView | null,
  from: number,
  end: number,
  repFrom: number,
  repEnd: number,
  repSlots: Int32Array,
  scratch: Scratch,
): number {
  const k = repSlots.length >> 1;
  while (scratch.values.length < k) {
    growScratch(scratch);
  }
  let at = from;
  let repAt = repFrom;
  for (let j = 0; j <= k; j++) {
    const length = (j < k ? repSlots[2 * j] : repEnd) - repAt;
    if (at + length > end || !sameUnits(units, words, at, repAt, length)) {
      return -1;
    }
    at += length;
    if (j === k) {
      return at === end ? k : -1;
    }
    const digits = at;
    let value = 0;
    while (at < end) {
      const c = units[at];
      if (c < 48 || c > 57) {
        break;
      }
      value = value * 10 + (c - 48);
      at++;
    }
    if (at === digits || at - digits > MAX_INDEX_DIGITS) {
      return -1;
    }
    scratch.values[j] = value;
    repAt = repSlots[2 * j + 1];
  }
  return -1;
}

/** Whether units [a, a + length) equal units [b, b + length); bytes are compared four at a time. */
function sameUnits(
  units: Uint8Array | Uint16Array,
  words: DataView | null,
  a: number,
  b: number,
  length: number,
): boolean {
  let i = 0;
  if (words !== null) {
    for (; i + 4 <= length; i += 4) {
      if (words.getInt32(a + i, true) !== words.getInt32(b + i, true)) {
        return false;
      }
    }
  }
  for (; i < length; i++) {
    if (units[a + i] !== units[b + i]) {
      return false;
    }
  }
  return true;
}

const RECENT = 4;

function shapesOf(names: readonly string[], columns: TensorColumns): ParsedShapes {
  const fromBytes = namesMatchBytes(names, columns) ? parseShapes(names, columns, true) : null;
  return fromBytes ?? parseShapes(names, columns, false);
}

/** The pass itself; with `useBytes` it gives up (null) at the first non-ASCII name. */
function parseShapes(names: readonly string[], columns: TensorColumns, useBytes: true): ParsedShapes | null;
function parseShapes(names: readonly string[], columns: TensorColumns, useBytes: false): ParsedShapes;
function parseShapes(names: readonly string[], columns: TensorColumns, useBytes: boolean): ParsedShapes | null {
  const count = names.length;
  const { units, starts } = codeUnits(names, columns, useBytes);
  const rowShape = new Int32Array(count);
  const indexStart = new Uint32Array(count + 1);
  let values = new Int32Array(Math.max(16, count * 2));
  let used = 0;
  const text: string[] = [];
  const pieces: string[][] = [];
  const slotList: number[] = [];
  const sizes: number[] = [];
  /** The row that created each shape, and its index segments as absolute unit positions. */
  const repRow: number[] = [];
  const repSlots: Int32Array[] = [];
  /** Shape of the row that followed each shape last time: the first guess for the next row. */
  const successor: number[] = [];
  /** First shape per hash; further shapes with the same hash chain through `next`. */
  const byHash = new Map<number, number>();
  const next: number[] = [];
  const scratch: Scratch = {
    starts: new Int32Array(16),
    ends: new Int32Array(16),
    values: new Int32Array(16),
    wide: false,
  };
  // The shapes of the last few rows: headers list a layer's tensors together, so most rows repeat one of them.
  const recent = new Int32Array(RECENT).fill(-1);
  let previous = -1;

  const words = useBytes ? new DataView(units.buffer, units.byteOffset, units.byteLength) : null;
  const matches = (from: number, end: number, k: number, s: number): boolean =>
    matchesRow(units, words, from, end, k, scratch, starts[repRow[s]], starts[repRow[s] + 1], repSlots[s]);

  for (let row = 0; row < count; row++) {
    const from = starts[row];
    const end = starts[row + 1];
    indexStart[row] = used;
    // Most rows have the shape that followed the previous row's shape last time (gate → up → down → gate…):
    // reading the name along that shape's literal text settles it without scanning it byte by byte.
    const guess = previous >= 0 ? successor[previous] : -1;
    let shape = -1;
    let k =
      guess >= 0
        ? readAlong(units, words, from, end, starts[repRow[guess]], starts[repRow[guess] + 1], repSlots[guess], scratch)
        : -1;
    if (k >= 0) {
      shape = guess;
    } else {
      k = scanUnits(units, from, end, scratch);
      if (scratch.wide && useBytes) {
        return null; // UTF-8 bytes are not characters: read the names themselves instead.
      }
      for (let r = 0; r < RECENT; r++) {
        const candidate = recent[r];
        if (candidate >= 0 && candidate !== guess && matches(from, end, k, candidate)) {
          shape = candidate;
          break;
        }
      }
      if (shape < 0) {
        const hash = unitsHash(units, from, end, k, scratch);
        for (let s = byHash.get(hash) ?? -1; s >= 0; s = next[s]) {
          if (matches(from, end, k, s)) {
            shape = s;
            break;
          }
        }
        if (shape < 0) {
          shape = text.length;
          const name = names[row];
          const own: string[] = [];
          const slots = new Int32Array(2 * k);
          let at = 0;
          for (let j = 0; j <= k; j++) {
            const to = j < k ? scratch.starts[j] - from : name.length;
            own.push(name.slice(at, to));
            if (j < k) {
              slots[2 * j] = scratch.starts[j];
              slots[2 * j + 1] = scratch.ends[j];
              at = scratch.ends[j] - from;
            }
          }
          pieces.push(own);
          text.push(own.join('#'));
          slotList.push(k);
          sizes.push(0);
          repRow.push(row);
          repSlots.push(slots);
          successor.push(-1);
          next.push(byHash.get(hash) ?? -1);
          byHash.set(hash, shape);
        }
      }
      if (recent[0] !== shape) {
        let q = RECENT - 1;
        while (q > 0 && recent[q] !== shape) {
          q--;
        }
        for (; q > 0; q--) {
          recent[q] = recent[q - 1];
        }
        recent[0] = shape;
      }
    }
    if (used + k > values.length) {
      const grown = new Int32Array(Math.max(values.length * 2, used + k));
      grown.set(values);
      values = grown;
    }
    for (let j = 0; j < k; j++) {
      values[used++] = scratch.values[j];
    }
    if (previous >= 0) {
      successor[previous] = shape;
    }
    previous = shape;
    rowShape[row] = shape;
    sizes[shape]++;
  }
  indexStart[count] = used;

  const shapeCount = text.length;
  const rowStart = new Int32Array(shapeCount + 1);
  for (let s = 0; s < shapeCount; s++) {
    rowStart[s + 1] = rowStart[s] + sizes[s];
  }
  const fill = rowStart.slice(0, shapeCount);
  const rowList = new Int32Array(count);
  for (let row = 0; row < count; row++) {
    rowList[fill[rowShape[row]]++] = row;
  }
  return {
    count: shapeCount,
    text,
    pieces,
    slots: Int32Array.from(slotList),
    rowShape,
    indexStart,
    indexValues: values,
    rowStart,
    rowList,
    query(name) {
      const queryUnits = new Uint16Array(name.length);
      for (let i = 0; i < name.length; i++) {
        queryUnits[i] = name.charCodeAt(i);
      }
      const k = scanUnits(queryUnits, 0, queryUnits.length, scratch);
      const hash = unitsHash(queryUnits, 0, queryUnits.length, k, scratch);
      for (let s = byHash.get(hash) ?? -1; s >= 0; s = next[s]) {
        if (matchesPieces(name, k, scratch, pieces[s])) {
          return { shape: s, values: Array.from(scratch.values.subarray(0, k)) };
        }
      }
      return null;
    },
  };
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
  return { depth, rows, keys };
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
function tupleRange(keys: Int32Array, depth: number, tuple: readonly number[]): [number, number] {
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
