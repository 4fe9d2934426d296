/**
 * The one pass over a header's names that finds their shapes and index tuples (see tensor-index.ts for what a
 * name shape is). It reads the names' code units straight from the header bytes when they match the decoded
 * names, and falls back to the strings otherwise; both give the same shapes.
 */
import type { TensorColumns } from '../model';
import type { NameShapes } from './tensor-index';

/** Longest digit run treated as an index; longer ones (hashes, dates) stay literal text. */
const MAX_INDEX_DIGITS = 9;

/** Whether `text[from, to)` is an index: 1 to MAX_INDEX_DIGITS ASCII digits. */
export function isIndexDigits(text: string, from: number, to: number): boolean {
  if (to === from || to - from > MAX_INDEX_DIGITS) {
    return false;
  }
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) {
      return false;
    }
  }
  return true;
}

export interface ParsedShapes extends NameShapes {
  /** Shape and index tuple of an arbitrary name, or null when no row has its shape. */
  query(name: string): { shape: number; values: number[] } | null;
  /** Each shape's identity across headers (piecesKey), made with the shape so that joining headers need not. */
  readonly keys: readonly string[];
}

/** Shapes joined from parts (joinShapes), with where each part's shapes went. */
export interface JoinedShapes extends ParsedShapes {
  /** partShapeIds[p][s]: the joined id of part p's shape s. */
  readonly partShapeIds: readonly Int32Array[];
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
 * Where the rows that created the shapes have their index segments: shape s has `count[s]` of them, as absolute
 * unit positions start, end, start, end… at positions[first[s]…]. Flat typed arrays for all shapes: a header of
 * 250,000 distinct paths would otherwise allocate 250,000 small arrays, and collecting them cost more than the pass.
 */
interface RepSlots {
  positions: Int32Array;
  first: Int32Array;
  count: Int32Array;
}

/** Per-shape columns, grown together (doubling) as shapes appear. */
interface ShapeTable {
  reps: RepSlots;
  /** The row that created each shape. */
  repRow: Int32Array;
  /** Rows of each shape. */
  sizes: Int32Array;
  /** Shape of the row that followed each shape last time: the first guess for the next row. */
  successor: Int32Array;
  /** The next shape in the same hash bucket, or -1. */
  next: Int32Array;
  /** Each shape's hash, to rehash when the buckets grow. */
  hashes: Int32Array;
  /** First shape per bucket (hash & (buckets.length - 1)), or -1; open hashing through `next`. */
  buckets: Int32Array;
}

function newShapeTable(capacity: number): ShapeTable {
  return {
    reps: { positions: new Int32Array(64), first: new Int32Array(capacity), count: new Int32Array(capacity) },
    repRow: new Int32Array(capacity),
    sizes: new Int32Array(capacity),
    successor: new Int32Array(capacity),
    next: new Int32Array(capacity),
    hashes: new Int32Array(capacity),
    buckets: new Int32Array(2 * capacity).fill(-1),
  };
}

function grown(array: Int32Array, size: number): Int32Array {
  const copy = new Int32Array(size);
  copy.set(array);
  return copy;
}

/** Doubles the per-shape columns and the buckets (rehashing the `shapes` shapes already there). */
function growShapeTable(table: ShapeTable, shapes: number): void {
  const size = table.repRow.length * 2;
  table.reps.first = grown(table.reps.first, size);
  table.reps.count = grown(table.reps.count, size);
  table.repRow = grown(table.repRow, size);
  table.sizes = grown(table.sizes, size);
  table.successor = grown(table.successor, size);
  table.next = grown(table.next, size);
  table.hashes = grown(table.hashes, size);
  const buckets = new Int32Array(2 * size).fill(-1);
  const mask = buckets.length - 1;
  for (let s = 0; s < shapes; s++) {
    const bucket = table.hashes[s] & mask;
    table.next[s] = buckets[bucket];
    buckets[bucket] = s;
  }
  table.buckets = buckets;
}

/**
 * Whether the scanned name [from, end) has the literal pieces of shape s, compared against the code units of the
 * row that created the shape (`rep`, whose index segments are at reps.positions[reps.first[s]…]).
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
  reps: RepSlots,
  s: number,
): boolean {
  if (reps.count[s] !== k) {
    return false;
  }
  const slots = reps.positions;
  const base = reps.first[s];
  let at = from;
  let repAt = repFrom;
  for (let j = 0; j <= k; j++) {
    const to = j < k ? scratch.starts[j] : end;
    const repTo = j < k ? slots[base + 2 * j] : repEnd;
    if (to - at !== repTo - repAt) {
      return false;
    }
    at = j < k ? scratch.ends[j] : to;
    repAt = j < k ? slots[base + 2 * j + 1] : repTo;
  }
  at = from;
  repAt = repFrom;
  for (let j = 0; j <= k; j++) {
    const to = j < k ? scratch.starts[j] : end;
    if (!sameUnits(units, words, at, repAt, to - at)) {
      return false;
    }
    at = j < k ? scratch.ends[j] : to;
    repAt = j < k ? slots[base + 2 * j + 1] : repEnd;
  }
  return true;
}

/**
 * Reads the name [from, end) along a known shape s: its literal pieces must equal the shape's (compared with the
 * code units of the row that created the shape, whose index segments are in `reps`), and between them must stand
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
  reps: RepSlots,
  s: number,
  scratch: Scratch,
): number {
  const k = reps.count[s];
  const slots = reps.positions;
  const base = reps.first[s];
  while (scratch.values.length < k) {
    growScratch(scratch);
  }
  let at = from;
  let repAt = repFrom;
  for (let j = 0; j <= k; j++) {
    const length = (j < k ? slots[base + 2 * j] : repEnd) - repAt;
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
    repAt = slots[base + 2 * j + 1];
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

/** Rows of each shape in row order, laid out by `rowStart` (shape s's rows at rowStart[s]…). */
function rowsByShape(rowShape: Int32Array, rowStart: Int32Array): Int32Array {
  const fill = rowStart.slice(0, rowStart.length - 1);
  const rowList = new Int32Array(rowShape.length);
  for (let row = 0; row < rowShape.length; row++) {
    rowList[fill[rowShape[row]]++] = row;
  }
  return rowList;
}

function newScratch(): Scratch {
  return { starts: new Int32Array(16), ends: new Int32Array(16), values: new Int32Array(16), wide: false };
}

/**
 * The literal text around the k index segments `scratch` found in `name` (positions there count from `from`, where
 * the name starts in the scanned units): the shape's pieces.
 */
function literalPieces(name: string, from: number, k: number, scratch: Scratch): string[] {
  const pieces: string[] = [];
  let at = 0;
  for (let j = 0; j < k; j++) {
    pieces.push(name.slice(at, scratch.starts[j] - from));
    at = scratch.ends[j] - from;
  }
  pieces.push(name.slice(at));
  return pieces;
}

/** A name's UTF-16 code units, as the shape scan reads them. */
function utf16Units(name: string): Uint16Array {
  const units = new Uint16Array(name.length);
  for (let i = 0; i < name.length; i++) {
    units[i] = name.charCodeAt(i);
  }
  return units;
}

/**
 * `namesAreStored`: whether `names` are the header's own names decoded (then a check of their lengths is enough to
 * read them from the bytes); false for other names of the same rows, which may have the same lengths.
 */
export function shapesOf(names: readonly string[], columns: TensorColumns, namesAreStored = true): ParsedShapes {
  const fromBytes = namesAreStored && namesMatchBytes(names, columns) ? parseShapes(names, columns, true) : null;
  return fromBytes ?? parseShapes(names, columns, false);
}

/** What parseShapes builds as it goes, shared with findOrAddShape (its slow path). */
interface ShapePass {
  readonly names: readonly string[];
  readonly units: Uint8Array | Uint16Array;
  readonly words: DataView | null;
  readonly starts: Uint32Array;
  readonly table: ShapeTable;
  readonly scratch: Scratch;
  /** The shapes of the last few rows: headers list a layer's tensors together, so most rows repeat one of them. */
  readonly recent: Int32Array;
  readonly text: string[];
  readonly pieces: string[][];
  readonly keys: string[];
  repUsed: number;
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
  const pass: ShapePass = {
    names,
    units,
    words: useBytes ? new DataView(units.buffer, units.byteOffset, units.byteLength) : null,
    starts,
    table: newShapeTable(64),
    scratch: newScratch(),
    recent: new Int32Array(RECENT).fill(-1),
    text: [],
    pieces: [],
    keys: [],
    repUsed: 0,
  };
  const { table, scratch, words } = pass;
  let previous = -1;

  // The loop holds only the common case; the rest is findOrAddShape's, so the optimizing compiler, which compiles
  // this loop once per load, has a small function to compile (docs/performance.md, "What V8 compiles per load").
  for (let row = 0; row < count; row++) {
    const from = starts[row];
    const end = starts[row + 1];
    indexStart[row] = used;
    // Most rows have the shape that followed the previous row's shape last time (gate → up → down → gate…):
    // reading the name along that shape's literal text settles it without scanning it byte by byte.
    const guess = previous >= 0 ? table.successor[previous] : -1;
    let shape = guess;
    let k =
      guess >= 0
        ? readAlong(
            units,
            words,
            from,
            end,
            starts[table.repRow[guess]],
            starts[table.repRow[guess] + 1],
            table.reps,
            guess,
            scratch,
          )
        : -1;
    if (k < 0) {
      shape = findOrAddShape(pass, row, from, end, guess);
      if (shape < 0) {
        return null; // UTF-8 bytes are not characters: read the names themselves instead.
      }
      // Every name of a shape has its number of index segments.
      k = table.reps.count[shape];
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
      table.successor[previous] = shape;
    }
    previous = shape;
    rowShape[row] = shape;
    table.sizes[shape]++;
  }
  indexStart[count] = used;
  return shapesResult(pass, rowShape, indexStart, values);
}

/**
 * The shape of row [from, end) when the guess did not fit: one of the recent shapes, one in the hash table, or a new
 * one. Leaves the row's index segments in pass.scratch; -1 when `pass.words` is set (the units are UTF-8 bytes) and
 * the name is not ASCII.
 */
function findOrAddShape(pass: ShapePass, row: number, from: number, end: number, guess: number): number {
  const { units, words, table, scratch, recent } = pass;
  const k = scanUnits(units, from, end, scratch);
  if (scratch.wide && words !== null) {
    return -1;
  }
  let shape = -1;
  for (let r = 0; r < RECENT; r++) {
    const candidate = recent[r];
    if (candidate >= 0 && candidate !== guess && matchesShape(pass, from, end, k, candidate)) {
      shape = candidate;
      break;
    }
  }
  if (shape < 0) {
    const hash = unitsHash(units, from, end, k, scratch);
    for (let s = table.buckets[hash & (table.buckets.length - 1)]; s >= 0; s = table.next[s]) {
      if (table.hashes[s] === hash && matchesShape(pass, from, end, k, s)) {
        shape = s;
        break;
      }
    }
    if (shape < 0) {
      shape = addShape(pass, row, from, k, hash);
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
  return shape;
}

/** matchesRow against shape s's representative row. */
function matchesShape(pass: ShapePass, from: number, end: number, k: number, s: number): boolean {
  const { table, starts } = pass;
  const rep = table.repRow[s];
  return matchesRow(pass.units, pass.words, from, end, k, pass.scratch, starts[rep], starts[rep + 1], table.reps, s);
}

/** A new shape, from row `row` (its k index segments in pass.scratch, its hash `hash`). */
function addShape(pass: ShapePass, row: number, from: number, k: number, hash: number): number {
  const { table, scratch, text } = pass;
  const shape = text.length;
  if (shape === table.repRow.length) {
    growShapeTable(table, shape);
  }
  const name = pass.names[row];
  const own = literalPieces(name, from, k, scratch);
  const reps = table.reps;
  if (pass.repUsed + 2 * k > reps.positions.length) {
    reps.positions = grown(reps.positions, Math.max(reps.positions.length * 2, pass.repUsed + 2 * k));
  }
  reps.first[shape] = pass.repUsed;
  reps.count[shape] = k;
  for (let j = 0; j < k; j++) {
    reps.positions[pass.repUsed++] = scratch.starts[j];
    reps.positions[pass.repUsed++] = scratch.ends[j];
  }
  pass.pieces.push(own);
  pass.keys.push(piecesKey(own));
  text.push(k === 0 ? name : own.join('#'));
  table.repRow[shape] = row;
  table.successor[shape] = -1;
  table.hashes[shape] = hash;
  const bucket = hash & (table.buckets.length - 1);
  table.next[shape] = table.buckets[bucket];
  table.buckets[bucket] = shape;
  return shape;
}

/** The pass's tables as ParsedShapes: rows listed per shape, and a query by name. */
function shapesResult(
  pass: ShapePass,
  rowShape: Int32Array,
  indexStart: Uint32Array,
  values: Int32Array,
): ParsedShapes {
  const { table, text, pieces, keys, scratch } = pass;
  const shapeCount = text.length;
  const rowStart = new Int32Array(shapeCount + 1);
  for (let s = 0; s < shapeCount; s++) {
    rowStart[s + 1] = rowStart[s] + table.sizes[s];
  }
  const rowList = rowsByShape(rowShape, rowStart);
  return {
    count: shapeCount,
    text,
    pieces,
    keys,
    slots: table.reps.count.slice(0, shapeCount),
    rowShape,
    indexStart,
    indexValues: values,
    rowStart,
    rowList,
    query(name) {
      const queryUnits = utf16Units(name);
      const k = scanUnits(queryUnits, 0, queryUnits.length, scratch);
      const hash = unitsHash(queryUnits, 0, queryUnits.length, k, scratch);
      for (let s = table.buckets[hash & (table.buckets.length - 1)]; s >= 0; s = table.next[s]) {
        if (table.hashes[s] === hash && matchesPieces(name, k, scratch, pieces[s])) {
          return { shape: s, values: Array.from(scratch.values.subarray(0, k)) };
        }
      }
      return null;
    },
  };
}

/** One part's rows in the joined table: their shapes renumbered by `globalOf`, their index tuples moved along. */
function appendPartRows(
  part: NameShapes,
  globalOf: Int32Array,
  joined: { rowShape: Int32Array; indexStart: Uint32Array; indexValues: Int32Array },
  row0: number,
  values0: number,
): void {
  const { rowShape: partRowShape, indexStart: partIndexStart } = part;
  const { rowShape, indexStart } = joined;
  const rows = partRowShape.length;
  for (let row = 0; row < rows; row++) {
    rowShape[row0 + row] = globalOf[partRowShape[row]];
    indexStart[row0 + row] = values0 + partIndexStart[row];
  }
  joined.indexValues.set(part.indexValues.subarray(0, partIndexStart[rows]), values0);
}

/** shapeCount + 1 offsets: shape s's rows are counted into rowStart[s + 1] and the counts summed. */
function rowStartsOf(rowShape: Int32Array, shapeCount: number): Int32Array {
  const rowStart = new Int32Array(shapeCount + 1);
  for (let row = 0; row < rowShape.length; row++) {
    rowStart[rowShape[row] + 1]++;
  }
  for (let s = 0; s < shapeCount; s++) {
    rowStart[s + 1] += rowStart[s];
  }
  return rowStart;
}

/** A shape's identity across headers: its literal pieces (the index segments between them are implied). */
function piecesKey(pieces: readonly string[]): string {
  return JSON.stringify(pieces);
}

/**
 * The shapes of several tables' names laid end to end (a shard set's merged table, shard by shard), from each
 * table's own shapes: the same answer as shapesOf over the joined names, ids included (each part numbers its
 * shapes by first appearance, so taking the parts in order numbers the joined shapes by first appearance too).
 * Each shard's shapes are found as its header arrives; joining them costs one pass over the rows, in a small
 * function called once per part, which V8 compiles after the first few parts rather than on the stack of this one
 * (docs/performance.md, "Loops that run once").
 */
export function joinShapes(parts: readonly ParsedShapes[]): JoinedShapes {
  let count = 0;
  let valueCount = 0;
  for (const part of parts) {
    count += part.rowShape.length;
    valueCount += part.indexStart[part.rowShape.length];
  }
  const idOf = new Map<string, number>();
  const text: string[] = [];
  const pieces: Array<readonly string[]> = [];
  const keys: string[] = [];
  const slots: number[] = [];
  const rowShape = new Int32Array(count);
  const indexStart = new Uint32Array(count + 1);
  const indexValues = new Int32Array(valueCount);
  let row0 = 0;
  let values0 = 0;
  const partShapeIds: Int32Array[] = [];
  for (const part of parts) {
    const globalOf = new Int32Array(part.count);
    partShapeIds.push(globalOf);
    for (let s = 0; s < part.count; s++) {
      const key = part.keys[s];
      let id = idOf.get(key);
      if (id === undefined) {
        id = text.length;
        idOf.set(key, id);
        text.push(part.text[s]);
        pieces.push(part.pieces[s]);
        keys.push(key);
        slots.push(part.slots[s]);
      }
      globalOf[s] = id;
    }
    appendPartRows(part, globalOf, { rowShape, indexStart, indexValues }, row0, values0);
    row0 += part.rowShape.length;
    values0 += part.indexStart[part.rowShape.length];
  }
  indexStart[count] = values0;
  const shapeCount = text.length;
  const rowStart = rowStartsOf(rowShape, shapeCount);
  const rowList = rowsByShape(rowShape, rowStart);
  const scratch = newScratch();
  return {
    count: shapeCount,
    text,
    pieces,
    keys,
    slots: Int32Array.from(slots),
    rowShape,
    indexStart,
    indexValues,
    rowStart,
    rowList,
    partShapeIds,
    query(name) {
      const units = utf16Units(name);
      const k = scanUnits(units, 0, units.length, scratch);
      const shape = idOf.get(piecesKey(literalPieces(name, 0, k, scratch)));
      return shape === undefined ? null : { shape, values: Array.from(scratch.values.subarray(0, k)) };
    },
  };
}
