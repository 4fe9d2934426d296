/**
 * Finds tensor names that occur more than once, comparing UTF-8 name bytes through an open-addressing hash table
 * (hashes were computed while the scanner copied the names), so no name is ever decoded to a string. The table works
 * on any byte ranges with hashes (findDuplicateRanges; hashBytes gives one).
 */
import type { TensorColumns } from '../model';
import type { RowExact } from './entry-checks';

/** FNV-1a over `bytes[from, to)`, as the scanner hashes tensor names while it copies them (columns-builder.ts). */
export function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5 | 0;
  for (let at = from; at < to; at++) {
    hash = Math.imul(hash ^ bytes[at], 0x01000193);
  }
  return hash;
}

/** Keeps the table at most half full so linear probing stays short. */
const TABLE_LOAD_FACTOR_INVERSE = 2;
const MIN_TABLE_SIZE = 16;
/**
 * Tables up to this many slots (256 KiB) are one scratch reused from header to header: a 163-shard set checks a
 * header per shard, and a fresh table each time touched 1.3 MB of new pages, each a page fault (docs/performance.md,
 * "Fresh memory per load"). Bigger tables are made fresh, so one huge header's table is not kept after its load.
 */
const MAX_REUSED_TABLE_SIZE = 64 * 1024;
let reusedTable = new Int32Array(0);

/** A zeroed table of `size` slots. */
function emptyTable(size: number): Int32Array {
  if (size > MAX_REUSED_TABLE_SIZE) {
    return new Int32Array(size);
  }
  if (reusedTable.length < size) {
    reusedTable = new Int32Array(size);
    return reusedTable;
  }
  return reusedTable.subarray(0, size).fill(0);
}

/** Byte ranges [starts[i], ends[i]) of one buffer, each with a hash of its bytes (any hash; equal bytes, equal hash). */
export interface ByteRanges {
  bytes: Uint8Array;
  starts: ArrayLike<number>;
  ends: ArrayLike<number>;
  hashes: Int32Array;
  count: number;
}

function sameBytes(ranges: ByteRanges, a: number, b: number): boolean {
  const { bytes, starts, ends } = ranges;
  const startA = starts[a];
  const startB = starts[b];
  const length = ends[a] - startA;
  if (ends[b] - startB !== length) {
    return false;
  }
  for (let i = 0; i < length; i++) {
    if (bytes[startA + i] !== bytes[startB + i]) {
      return false;
    }
  }
  return true;
}

/** Groups of rows sharing one name, each in header order; empty when every name is unique. */
function findDuplicateNameGroups(columns: TensorColumns, nameHash: Int32Array): number[][] {
  const { nameBytes, nameStarts, count } = columns;
  return findDuplicateRanges({
    bytes: nameBytes,
    starts: nameStarts,
    ends: nameStarts.subarray(1),
    hashes: nameHash,
    count,
  });
}

/**
 * Groups of ranges with the same bytes, each in index order (the first is the earliest range); empty when every
 * range is unique. Tensor names here, and a GGUF's tokens (formats/gguf/vocab-checks.ts).
 */
export function findDuplicateRanges(ranges: ByteRanges): number[][] {
  const { count, hashes } = ranges;
  let size = MIN_TABLE_SIZE;
  while (size < count * TABLE_LOAD_FACTOR_INVERSE) {
    size *= 2;
  }
  const mask = size - 1;
  // Slot value is row + 1 so zero can mean empty.
  const table = emptyTable(size);
  let groups: Map<number, number[]> | null = null;
  for (let row = 0; row < count; row++) {
    const hash = hashes[row];
    let slot = hash & mask;
    for (;;) {
      const occupant = table[slot] - 1;
      if (occupant < 0) {
        table[slot] = row + 1;
        break;
      }
      if (hashes[occupant] === hash && sameBytes(ranges, occupant, row)) {
        groups ??= new Map();
        const group = groups.get(occupant);
        if (group) {
          group.push(row);
        } else {
          groups.set(occupant, [occupant, row]);
        }
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  return groups ? [...groups.values()] : [];
}

export interface DuplicateNameGroup {
  /** Rows sharing one name, in header order; the last is the one the reference keeps. */
  rows: number[];
  /** Whether every earlier row describes the same tensor as the last (then dropping them changes nothing). */
  identical: boolean;
}

/**
 * The reference keeps the last entry of a repeated name (serde collects entries into a HashMap), so earlier ones
 * never reach its validation. Returns the rows it does see (`effective`, null when every row counts) for the
 * size and layout checks, and each group of repeats for the duplicate-key finding.
 */
export function resolveDuplicateNames(
  columns: TensorColumns,
  nameHash: Int32Array,
  unknownDtypes: ReadonlyMap<number, string>,
  exactByRow: ReadonlyMap<number, RowExact>,
): { effective: Uint8Array | null; groups: DuplicateNameGroup[] } {
  const nameGroups = findDuplicateNameGroups(columns, nameHash);
  if (nameGroups.length === 0) {
    return { effective: null, groups: [] };
  }
  const effective = new Uint8Array(columns.count).fill(1);
  const groups = nameGroups.map((rows) => {
    const last = rows[rows.length - 1];
    let identical = true;
    for (let i = 0; i < rows.length - 1; i++) {
      effective[rows[i]] = 0;
      identical &&= sameEntry(columns, rows[i], last, unknownDtypes, exactByRow);
    }
    return { rows, identical };
  });
  return { effective, groups };
}

/** Whether two rows describe the same tensor as the reference sees it (dtype, shape, offsets; extra fields ignored). */
function sameEntry(
  columns: TensorColumns,
  a: number,
  b: number,
  unknownDtypes: ReadonlyMap<number, string>,
  exactByRow: ReadonlyMap<number, RowExact>,
): boolean {
  if (columns.dtype[a] !== columns.dtype[b] || unknownDtypes.get(a) !== unknownDtypes.get(b)) {
    return false;
  }
  if (!Object.is(columns.begin[a], columns.begin[b]) || !Object.is(columns.end[a], columns.end[b])) {
    return false;
  }
  const startA = columns.shapeStarts[a];
  const startB = columns.shapeStarts[b];
  const rank = columns.shapeStarts[a + 1] - startA;
  if (columns.shapeStarts[b + 1] - startB !== rank) {
    return false;
  }
  for (let i = 0; i < rank; i++) {
    if (!Object.is(columns.dims[startA + i], columns.dims[startB + i])) {
      return false;
    }
  }
  const exactA = exactByRow.get(a);
  const exactB = exactByRow.get(b);
  if (exactA === undefined && exactB === undefined) {
    return true;
  }
  const dimsA = exactA?.dims ?? new Map<number, bigint>();
  const dimsB = exactB?.dims ?? new Map<number, bigint>();
  if (dimsA.size !== dimsB.size || [...dimsA].some(([index, value]) => dimsB.get(index) !== value)) {
    return false;
  }
  return (exactA?.begin ?? null) === (exactB?.begin ?? null) && (exactA?.end ?? null) === (exactB?.end ?? null);
}
