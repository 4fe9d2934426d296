/**
 * The reference loader's per-tensor `validate()` arithmetic, on the columns: element count (checked u64
 * products, in dim order), bit count, sub-byte alignment, and span = bytes. Doubles on the fast path; BigInt
 * only for rows whose numbers pass 2^53.
 */
import { DTYPE_BITS_BY_CODE, dtypeName } from '../dtypes';
import type { TensorColumns } from '../model';
import { tensorName } from '../model';
import { formatBytesExact, formatCount, formatShape, quoteName } from './message-format';
import { U64_MAX, type ExactInteger } from './header-scanner';
import { RowGroup } from './row-group';

/** Exact values for the few rows whose integers a double cannot hold. */
export interface RowExact {
  dims: Map<number, bigint> | null;
  begin: bigint | null;
  end: bigint | null;
}

export function indexExactIntegers(exactIntegers: readonly ExactInteger[]): Map<number, RowExact> {
  const byRow = new Map<number, RowExact>();
  for (const { row, field, index, value } of exactIntegers) {
    let entry = byRow.get(row);
    if (!entry) {
      entry = { dims: null, begin: null, end: null };
      byRow.set(row, entry);
    }
    if (field === 'dim') {
      entry.dims ??= new Map();
      entry.dims.set(index, value);
    } else if (field === 'begin') {
      entry.begin = value;
    } else {
      entry.end = value;
    }
  }
  return byRow;
}

export function exactBegin(columns: TensorColumns, row: number, exact: RowExact | undefined): bigint {
  return exact?.begin ?? BigInt(columns.begin[row]);
}

export function exactEnd(columns: TensorColumns, row: number, exact: RowExact | undefined): bigint {
  return exact?.end ?? BigInt(columns.end[row]);
}

export interface EntryCheckResult {
  sizeMismatch: RowGroup;
  misaligned: RowGroup;
  /** ∏shape or ∏shape × bits beyond u64: the reference's ValidationOverflow. */
  overflow: RowGroup;
  endBeforeBegin: RowGroup;
}

function describeTensor(columns: TensorColumns, row: number): string {
  const dtype = dtypeName(columns.dtype[row]) ?? '?';
  const dims = columns.dims.subarray(columns.shapeStarts[row], columns.shapeStarts[row + 1]);
  return `${quoteName(tensorName(columns, row))} (${dtype} ${formatShape(dims)})`;
}

/**
 * Checks every row marked in `effective` (null: all rows); rows a later duplicate shadows are skipped, as the
 * reference never validates them. Rows with an unknown dtype or invalid shape/offsets were already reported by the scanner.
 */
export function checkEntries(
  columns: TensorColumns,
  effective: Uint8Array | null,
  exactByRow: ReadonlyMap<number, RowExact>,
  rowsNeedingExactMath: readonly number[],
): EntryCheckResult {
  const count = columns.count;
  const result: EntryCheckResult = {
    sizeMismatch: new RowGroup(count),
    misaligned: new RowGroup(count),
    overflow: new RowGroup(count),
    endBeforeBegin: new RowGroup(count),
  };
  let needsExact: Uint8Array | null = null;
  if (rowsNeedingExactMath.length + exactByRow.size > 0) {
    needsExact = new Uint8Array(count);
    for (const row of [...rowsNeedingExactMath, ...exactByRow.keys()]) {
      needsExact[row] = 1;
    }
  }
  const { dtype, elements, begin, end } = columns;
  for (let row = 0; row < count; row++) {
    if (effective !== null && effective[row] === 0) {
      continue;
    }
    if (needsExact !== null && needsExact[row] === 1) {
      checkEntryExactly(columns, row, exactByRow.get(row), result);
      continue;
    }
    const b = begin[row];
    const e = end[row];
    // NaN marks offsets the scanner already refused; a negative span has no size to compare either.
    let spanKnown = b === b;
    if (spanKnown && e < b) {
      noteEndBeforeBegin(columns, row, b, e, result);
      spanKnown = false;
    }
    const bits = DTYPE_BITS_BY_CODE[dtype[row]];
    const elementCount = elements[row];
    if (bits === 0 || elementCount !== elementCount) {
      continue;
    }
    const totalBits = elementCount * bits;
    if (totalBits > Number.MAX_SAFE_INTEGER) {
      checkEntryExactly(columns, row, exactByRow.get(row), result);
      continue;
    }
    if (totalBits % 8 !== 0) {
      noteMisaligned(columns, row, BigInt(elementCount), bits, result);
    } else if (spanKnown && e - b !== totalBits / 8) {
      noteSizeMismatch(columns, row, BigInt(elementCount), BigInt(totalBits / 8), BigInt(e - b), result);
    }
  }
  return result;
}

function checkEntryExactly(
  columns: TensorColumns,
  row: number,
  exact: RowExact | undefined,
  result: EntryCheckResult,
): void {
  let spanKnown = !Number.isNaN(columns.begin[row]);
  const b = spanKnown ? exactBegin(columns, row, exact) : 0n;
  const e = spanKnown ? exactEnd(columns, row, exact) : 0n;
  if (spanKnown && e < b) {
    noteEndBeforeBegin(columns, row, b, e, result);
    spanKnown = false;
  }
  const bits = DTYPE_BITS_BY_CODE[columns.dtype[row]];
  if (bits === 0 || Number.isNaN(columns.elements[row])) {
    return;
  }
  // usize::checked_mul in dim order: [2^40, 2^40, 0] overflows before the zero is reached.
  let product = 1n;
  const start = columns.shapeStarts[row];
  const rank = columns.shapeStarts[row + 1] - start;
  for (let i = 0; i < rank; i++) {
    product *= exact?.dims?.get(i) ?? BigInt(columns.dims[start + i]);
    if (product > U64_MAX) {
      noteOverflow(columns, row, 'its element count', result);
      return;
    }
  }
  const totalBits = product * BigInt(bits);
  if (totalBits > U64_MAX) {
    noteOverflow(columns, row, 'its size in bits', result);
    return;
  }
  if (totalBits % 8n !== 0n) {
    noteMisaligned(columns, row, product, bits, result);
  } else if (spanKnown && e - b !== totalBits / 8n) {
    noteSizeMismatch(columns, row, product, totalBits / 8n, e - b, result);
  }
}

function noteEndBeforeBegin(
  columns: TensorColumns,
  row: number,
  begin: number | bigint,
  end: number | bigint,
  result: EntryCheckResult,
): void {
  if (result.endBeforeBegin.add(row)) {
    result.endBeforeBegin.example(
      `${quoteName(tensorName(columns, row))} ends at ${formatCount(end)} before it begins at ${formatCount(begin)}`,
    );
  }
}

function noteOverflow(columns: TensorColumns, row: number, what: string, result: EntryCheckResult): void {
  columns.elements[row] = NaN;
  if (result.overflow.add(row)) {
    result.overflow.example(`${describeTensor(columns, row)}: ${what} does not fit in 64 bits`);
  }
}

function noteMisaligned(
  columns: TensorColumns,
  row: number,
  elementCount: bigint,
  bits: number,
  result: EntryCheckResult,
): void {
  if (result.misaligned.add(row)) {
    result.misaligned.example(
      `${describeTensor(columns, row)} has ${formatCount(elementCount)} elements × ${bits} bits = ${formatCount(elementCount * BigInt(bits))} bits`,
    );
  }
}

function noteSizeMismatch(
  columns: TensorColumns,
  row: number,
  elementCount: bigint,
  expectedBytes: bigint,
  spanBytes: bigint,
  result: EntryCheckResult,
): void {
  if (result.sizeMismatch.add(row)) {
    result.sizeMismatch.example(
      `${describeTensor(columns, row)} needs ${formatBytesExact(expectedBytes)} for ${formatCount(elementCount)} elements, but its data_offsets span ${formatBytesExact(spanBytes)}`,
    );
  }
}
