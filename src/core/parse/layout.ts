/**
 * The data-region layout check, as the reference does it: sort tensors by data_offsets (header order is
 * irrelevant), then every tensor must begin exactly where the previous one ended, starting at 0, and the last end
 * must be the end of the file. Unlike the reference, every violation is collected, not just the first.
 */
import type { TensorColumns } from '../model';
import { tensorName } from '../model';
import { exactBegin, exactEnd, type RowExact } from './entry-checks';
import { formatBytesExact, formatCount, quoteName } from './message-format';
import { RowGroup } from './row-group';

/** 16-bit radix digits: four passes cover any offset below 2^53, and a 64K histogram stays in cache. */
const RADIX_BITS = 16;
const RADIX_SIZE = 1 << RADIX_BITS;
const RADIX_MASK = RADIX_SIZE - 1;
const TWO_POW_32 = 2 ** 32;
/** Runs of equal begins shorter than this are ordered by insertion sort; longer ones use Array.sort. */
const INSERTION_SORT_MAX_RUN = 32;

export interface LayoutFacts {
  firstOffset: RowGroup;
  /** Bytes before the first tensor. */
  firstOffsetBytes: number;
  gap: RowGroup;
  gapBytes: number;
  overlap: RowGroup;
  overlapBytes: number;
  duplicateRange: RowGroup;
  /** End of the data region as the header lays it out: the largest end. */
  dataEnd: number;
  truncated: RowGroup;
  /** Bytes the header describes beyond the end of the file. */
  missingBytes: number;
  /** Bytes after the last tensor; 0 when none or unknown. */
  trailingBytes: number;
}

export interface LayoutInput {
  columns: TensorColumns;
  /** 1 for rows the reference sees (the last of duplicate names), 0 for shadowed rows; null when all count. */
  effective: Uint8Array | null;
  exactByRow: ReadonlyMap<number, RowExact>;
  headerLength: number;
  fileSize: number | null;
}

interface OffsetArithmetic<T extends number | bigint> {
  begin: ArrayLike<T>;
  end: ArrayLike<T>;
  zero: T;
  difference(later: T, earlier: T): number;
}

export function checkLayout(input: LayoutInput): LayoutFacts {
  const { columns, effective, exactByRow } = input;
  const count = columns.count;
  const facts: LayoutFacts = {
    firstOffset: new RowGroup(count),
    firstOffsetBytes: 0,
    gap: new RowGroup(count),
    gapBytes: 0,
    overlap: new RowGroup(count),
    overlapBytes: 0,
    duplicateRange: new RowGroup(count),
    dataEnd: 0,
    truncated: new RowGroup(count),
    missingBytes: 0,
    trailingBytes: 0,
  };
  let anyUnplaceable = false;
  let hasExact = false;
  const placed = new Uint32Array(count);
  let placedCount = 0;
  const anyExact = exactByRow.size > 0;
  for (let row = 0; row < count; row++) {
    if (effective !== null && effective[row] === 0) {
      continue;
    }
    const begin = columns.begin[row];
    if (Number.isNaN(begin)) {
      anyUnplaceable = true;
      continue;
    }
    const exact = anyExact ? exactByRow.get(row) : undefined;
    if (exact && (exact.begin !== null || exact.end !== null)) {
      hasExact = true;
      if (exactEnd(columns, row, exact) < exactBegin(columns, row, exact)) {
        continue; // already an invalid-offsets finding; it has no span to place
      }
    } else if (columns.end[row] < begin) {
      continue;
    }
    placed[placedCount++] = row;
  }
  const rows = placed.subarray(0, placedCount);
  let dataEnd: number | bigint;
  if (!hasExact) {
    const order = sortRowsByOffsets(rows, columns.begin, columns.end, count);
    dataEnd = walk(
      order,
      { begin: columns.begin, end: columns.end, zero: 0, difference: (a, b) => a - b },
      input,
      facts,
    );
  } else {
    // Offsets beyond 2^53: exact but slow, and only ever seen in crafted files.
    const beginExact: bigint[] = new Array<bigint>(count).fill(0n);
    const endExact: bigint[] = new Array<bigint>(count).fill(0n);
    for (const row of rows) {
      beginExact[row] = exactBegin(columns, row, exactByRow.get(row));
      endExact[row] = exactEnd(columns, row, exactByRow.get(row));
    }
    const order = Uint32Array.from(rows).sort(
      (a, b) => compareBig(beginExact[a], beginExact[b]) || compareBig(endExact[a], endExact[b]),
    );
    dataEnd = walk(
      order,
      { begin: beginExact, end: endExact, zero: 0n, difference: (a, b) => Number(a - b) },
      input,
      facts,
    );
  }
  facts.dataEnd = Number(dataEnd);
  checkFileEnd(rows, dataEnd, anyUnplaceable, input, facts);
  return facts;
}

function compareBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Walks rows in offset order; returns the largest end. */
function walk<T extends number | bigint>(
  order: Uint32Array,
  offsets: OffsetArithmetic<T>,
  input: LayoutInput,
  facts: LayoutFacts,
): T {
  const { begin, end, zero, difference } = offsets;
  const { columns } = input;
  const name = (row: number): string => quoteName(tensorName(columns, row));
  let cursor = zero;
  let cursorRow = -1;
  let previousRow = -1;
  for (let k = 0; k < order.length; k++) {
    const row = order[k];
    const b = begin[row];
    const e = end[row];
    if (b > cursor) {
      if (cursorRow < 0) {
        facts.firstOffsetBytes = difference(b, zero);
        facts.firstOffset.add(row);
      } else {
        const size = difference(b, cursor);
        facts.gapBytes += size;
        if (facts.gap.add(cursorRow, row)) {
          facts.gap.example(
            `between ${name(cursorRow)} (ends at ${formatCount(cursor)}) and ${name(row)} (begins at ${formatCount(b)}): ${formatBytesExact(size)}`,
          );
        }
      }
    } else if (b < cursor) {
      const previousBegin = begin[previousRow];
      const previousEnd = end[previousRow];
      if (b === previousBegin && e === previousEnd && e > b) {
        if (facts.duplicateRange.add(previousRow, row)) {
          facts.duplicateRange.example(
            `${name(previousRow)} and ${name(row)} both use bytes ${formatCount(b)}–${formatCount(e)}`,
          );
        }
      } else {
        const shared = difference(e < cursor ? e : cursor, b);
        facts.overlapBytes += shared;
        if (facts.overlap.add(cursorRow, row)) {
          facts.overlap.example(
            `${name(row)} begins at ${formatCount(b)}, inside ${name(cursorRow)} (${formatCount(begin[cursorRow])}–${formatCount(cursor)})`,
          );
        }
      }
    }
    if (e > cursor || cursorRow < 0) {
      cursor = e;
      cursorRow = row;
    }
    previousRow = row;
  }
  return cursor;
}

function checkFileEnd(
  rows: Uint32Array,
  dataEnd: number | bigint,
  anyUnplaceable: boolean,
  input: LayoutInput,
  facts: LayoutFacts,
): void {
  const { fileSize, headerLength, columns, exactByRow } = input;
  if (fileSize === null) {
    return;
  }
  const available = BigInt(fileSize) - 8n - BigInt(headerLength);
  const described = BigInt(dataEnd);
  if (described > available) {
    facts.missingBytes = Number(described - available);
    const availableAsNumber = Number(available);
    for (const row of rows) {
      const exact = exactByRow.size > 0 ? exactByRow.get(row) : undefined;
      const beyond = exact ? exactEnd(columns, row, exact) > available : columns.end[row] > availableAsNumber;
      if (beyond) {
        facts.truncated.add(row);
      }
    }
  } else if (described < available && !anyUnplaceable) {
    // With a tensor whose offsets could not be read, the "extra" bytes may be its data: say nothing.
    facts.trailingBytes = Number(available - described);
  }
}

/**
 * Rows ordered by (begin, end), stable. Headers written by the reference are already in offset order, so that
 * is checked first; otherwise an LSD radix sort on begin (offsets are integers below 2^53) avoids four million
 * comparator calls on a 250,000-tensor header.
 */
function sortRowsByOffsets(rows: Uint32Array, begin: Float64Array, end: Float64Array, rowCount: number): Uint32Array {
  const n = rows.length;
  let sorted = true;
  for (let k = 1; k < n; k++) {
    const a = rows[k - 1];
    const b = rows[k];
    if (begin[b] < begin[a] || (begin[b] === begin[a] && end[b] < end[a])) {
      sorted = false;
      break;
    }
  }
  if (sorted) {
    return rows;
  }
  const low = new Uint32Array(rowCount);
  const high = new Uint32Array(rowCount);
  for (let k = 0; k < n; k++) {
    const row = rows[k];
    const value = begin[row];
    low[row] = value % TWO_POW_32;
    high[row] = Math.floor(value / TWO_POW_32);
  }
  let source = Uint32Array.from(rows);
  let target = new Uint32Array(n);
  const counts = new Uint32Array(RADIX_SIZE);
  for (let pass = 0; pass < 4; pass++) {
    const words = pass < 2 ? low : high;
    const shift = (pass % 2) * RADIX_BITS;
    counts.fill(0);
    for (let k = 0; k < n; k++) {
      counts[(words[source[k]] >>> shift) & RADIX_MASK]++;
    }
    if (counts[(words[source[0]] >>> shift) & RADIX_MASK] === n) {
      continue; // every key shares this digit
    }
    let running = 0;
    for (let digit = 0; digit < RADIX_SIZE; digit++) {
      const bucket = counts[digit];
      counts[digit] = running;
      running += bucket;
    }
    for (let k = 0; k < n; k++) {
      const row = source[k];
      target[counts[(words[row] >>> shift) & RADIX_MASK]++] = row;
    }
    const swap = source;
    source = target;
    target = swap;
  }
  orderEqualBeginsByEnd(source, begin, end);
  return source;
}

function orderEqualBeginsByEnd(order: Uint32Array, begin: Float64Array, end: Float64Array): void {
  const n = order.length;
  let runStart = 0;
  for (let k = 1; k <= n; k++) {
    if (k < n && begin[order[k]] === begin[order[runStart]]) {
      continue;
    }
    const runLength = k - runStart;
    if (runLength > INSERTION_SORT_MAX_RUN) {
      const run = Array.from(order.subarray(runStart, k)).sort((a, b) => end[a] - end[b]);
      order.set(run, runStart);
    } else if (runLength > 1) {
      for (let i = runStart + 1; i < k; i++) {
        const row = order[i];
        let j = i - 1;
        while (j >= runStart && end[order[j]] > end[row]) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = row;
      }
    }
    runStart = k;
  }
}
