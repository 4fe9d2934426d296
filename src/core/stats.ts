/** Totals per dtype: the numbers behind the summary, the dtype chart and the report. */
import { DTYPE_NAMES } from './dtypes';
import type { TensorColumns } from './model';
import { tensorBytes } from './table-query';

export interface DtypeTotals {
  tensors: number;
  elements: number;
  bytes: number;
}

export interface HeaderTotals {
  tensors: number;
  elements: number;
  bytes: number;
  /** Keyed by dtype name; non-spec dtypes are reported under their own string. */
  byDtype: Record<string, DtypeTotals>;
}

/** A row mask of `shadowedRows` (1 = the reference drops the row), or null when there are none. */
export function shadowedMask(count: number, shadowedRows: ArrayLike<number> | undefined): Uint8Array | null {
  if (!shadowedRows || shadowedRows.length === 0) {
    return null;
  }
  const mask = new Uint8Array(count);
  for (let i = 0; i < shadowedRows.length; i++) {
    mask[shadowedRows[i]] = 1;
  }
  return mask;
}

/**
 * One pass over every row's dtype, elements and bytes, summed per dtype code: what the result's totals and a shard
 * set's totals both start from. Rows whose dtype the app does not know are listed instead, for the caller to group
 * by its own names for them.
 */
export interface DtypeSums {
  tensors: number;
  tensorsByCode: Float64Array;
  elementsByCode: Float64Array;
  bytesByCode: Float64Array;
  unknownRows: number[];
  elements: number;
  bytes: number;
}

/**
 * Columns never change once built, and a shard set's totals and the result's are taken over the same merged table
 * one step apart: the second asks the cache, not the rows (a pass over 92,000 rows costs 10-20 ms in a load's tail,
 * docs/performance.md "Loops that run once").
 */
const sumsOfColumns = new WeakMap<TensorColumns, DtypeSums>();

/** A finite, non-negative row byte count, else 0; offsets when the row has them, else shape × dtype. */
export function rowBytesOf(columns: TensorColumns, row: number): number {
  const span = columns.end[row] - columns.begin[row];
  const bytes = span - span === 0 && span >= 0 ? span : tensorBytes(columns, row);
  return bytes - bytes === 0 && bytes > 0 ? bytes : 0;
}

export function dtypeSums(columns: TensorColumns): DtypeSums {
  const cached = sumsOfColumns.get(columns);
  if (cached) {
    return cached;
  }
  const tensorsByCode = new Float64Array(256);
  const elementsByCode = new Float64Array(256);
  const bytesByCode = new Float64Array(256);
  const unknownRows: number[] = [];
  let elements = 0;
  let bytes = 0;
  // Locals and typed arrays, no call per row on the usual path: this runs once per load, mostly in V8's
  // interpreter (docs/performance.md, "Loops that run once"). x - x === 0 exactly when x is finite.
  const { dtype: codes, elements: elementColumn, begin, end } = columns;
  const known = DTYPE_NAMES.length;
  const count = columns.count;
  for (let row = 0; row < count; row++) {
    const code = codes[row];
    const value = elementColumn[row];
    const rowElements = value - value === 0 ? value : 0;
    const span = end[row] - begin[row];
    const rowBytes = span - span === 0 && span >= 0 ? span : rowBytesOf(columns, row);
    elements += rowElements;
    bytes += rowBytes;
    if (code >= known) {
      unknownRows.push(row);
    } else {
      tensorsByCode[code]++;
      elementsByCode[code] += rowElements;
      bytesByCode[code] += rowBytes;
    }
  }
  const sums = { tensors: count, tensorsByCode, elementsByCode, bytesByCode, unknownRows, elements, bytes };
  sumsOfColumns.set(columns, sums);
  return sums;
}

/** The unknown rows' totals, grouped by the names `unknownDtypes` gives them ('unknown' where it has none). */
export function unknownDtypeTotals(
  columns: TensorColumns,
  rows: readonly number[],
  unknownDtypes: ReadonlyMap<number, string> | undefined,
): Map<string, DtypeTotals> {
  const totals = new Map<string, DtypeTotals>();
  for (const row of rows) {
    const name = unknownDtypes?.get(row) ?? 'unknown';
    const bucket = totals.get(name) ?? { tensors: 0, elements: 0, bytes: 0 };
    totals.set(name, bucket);
    const value = columns.elements[row];
    bucket.tensors += 1;
    bucket.elements += value - value === 0 ? value : 0;
    bucket.bytes += rowBytesOf(columns, row);
  }
  return totals;
}

/**
 * Totals as the reference loader sees the file: `shadowedRows` (earlier entries of a repeated name, which it drops)
 * are not counted, so a name written twice counts once.
 */
export function computeTotals(
  columns: TensorColumns,
  unknownDtypes?: ReadonlyMap<number, string>,
  shadowedRows?: ArrayLike<number>,
): HeaderTotals {
  const skip = shadowedMask(columns.count, shadowedRows);
  const sums = skip === null ? dtypeSums(columns) : sumsWithout(columns, skip);
  const byDtype: Record<string, DtypeTotals> = {};
  DTYPE_NAMES.forEach((name, code) => {
    if (sums.tensorsByCode[code] > 0) {
      byDtype[name] = {
        tensors: sums.tensorsByCode[code],
        elements: sums.elementsByCode[code],
        bytes: sums.bytesByCode[code],
      };
    }
  });
  for (const [name, totals] of unknownDtypeTotals(columns, sums.unknownRows, unknownDtypes)) {
    Object.defineProperty(byDtype, name, { value: totals, enumerable: true, writable: true, configurable: true });
  }
  return { tensors: sums.tensors, elements: sums.elements, bytes: sums.bytes, byDtype };
}

/** dtypeSums over the rows `skip` does not mark (a header whose repeated names shadow earlier rows: rare). */
function sumsWithout(columns: TensorColumns, skip: Uint8Array): DtypeSums {
  const sums: DtypeSums = {
    tensors: 0,
    tensorsByCode: new Float64Array(256),
    elementsByCode: new Float64Array(256),
    bytesByCode: new Float64Array(256),
    unknownRows: [],
    elements: 0,
    bytes: 0,
  };
  for (let row = 0; row < columns.count; row++) {
    if (skip[row] === 1) {
      continue;
    }
    const code = columns.dtype[row];
    const value = columns.elements[row];
    const rowElements = value - value === 0 ? value : 0;
    const rowBytes = rowBytesOf(columns, row);
    sums.tensors++;
    sums.elements += rowElements;
    sums.bytes += rowBytes;
    if (code >= DTYPE_NAMES.length) {
      sums.unknownRows.push(row);
    } else {
      sums.tensorsByCode[code]++;
      sums.elementsByCode[code] += rowElements;
      sums.bytesByCode[code] += rowBytes;
    }
  }
  return sums;
}
