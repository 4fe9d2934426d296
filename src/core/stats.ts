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
  /** Rows without valid data offsets, whose bytes come from shape × dtype instead of the span. */
  rowsWithoutSpan: number;
}

/**
 * Columns never change once built, and a shard set's totals and the result's are taken over the same merged table
 * one step apart: the second asks the cache, not the rows (a pass over 92,000 rows costs 10-20 ms in a load's tail,
 * docs/performance.md "Loops that run once").
 */
const sumsOfColumns = new WeakMap<TensorColumns, DtypeSums>();

/** A row's bytes as tensorBytes gives them (offsets, else shape × dtype), or 0 when not finite or not positive. */
function rowBytesOf(columns: TensorColumns, row: number): number {
  const bytes = tensorBytes(columns, row);
  return bytes - bytes === 0 && bytes > 0 ? bytes : 0;
}

export function dtypeSums(columns: TensorColumns): DtypeSums {
  let sums = sumsOfColumns.get(columns);
  if (sums === undefined) {
    sums = sumRows(columns, null);
    sumsOfColumns.set(columns, sums);
  }
  return sums;
}

/**
 * The sums of a table laid end to end from `parts`, in order (a shard set's merged table from its shards' tables),
 * added up from each part's own sums and kept as the joined table's: a shard set's parts are summed as each header
 * arrives, so the merge adds 161 small sums instead of passing over 92,000 rows. Parts that do not make up the joined
 * table row for row get the joined table summed itself.
 */
export function joinDtypeSums(joined: TensorColumns, parts: readonly TensorColumns[]): DtypeSums {
  let rows = 0;
  for (const part of parts) {
    rows += part.count;
  }
  if (rows !== joined.count || sumsOfColumns.has(joined)) {
    return dtypeSums(joined);
  }
  const sums: DtypeSums = {
    tensors: 0,
    tensorsByCode: new Float64Array(256),
    elementsByCode: new Float64Array(256),
    bytesByCode: new Float64Array(256),
    unknownRows: [],
    elements: 0,
    bytes: 0,
    rowsWithoutSpan: 0,
  };
  let row0 = 0;
  for (const part of parts) {
    addSums(sums, dtypeSums(part), row0);
    row0 += part.count;
  }
  sumsOfColumns.set(joined, sums);
  return sums;
}

/** `part`'s sums added to `into`, its unknown rows moved to where the part starts in the joined table. */
function addSums(into: DtypeSums, part: DtypeSums, row0: number): void {
  into.tensors += part.tensors;
  into.elements += part.elements;
  into.bytes += part.bytes;
  into.rowsWithoutSpan += part.rowsWithoutSpan;
  for (let code = 0; code < 256; code++) {
    into.tensorsByCode[code] += part.tensorsByCode[code];
    into.elementsByCode[code] += part.elementsByCode[code];
    into.bytesByCode[code] += part.bytesByCode[code];
  }
  for (const row of part.unknownRows) {
    into.unknownRows.push(row + row0);
  }
}

/** The pass itself, over the rows `skip` does not mark (null: every row). */
function sumRows(columns: TensorColumns, skip: Uint8Array | null): DtypeSums {
  const tensorsByCode = new Float64Array(256);
  const elementsByCode = new Float64Array(256);
  const bytesByCode = new Float64Array(256);
  const unknownRows: number[] = [];
  let tensors = 0;
  let elements = 0;
  let bytes = 0;
  let rowsWithoutSpan = 0;
  // Locals and typed arrays, no call per row on the usual path: this runs once per load, mostly in V8's
  // interpreter (docs/performance.md, "Loops that run once"). x - x === 0 exactly when x is finite.
  const { dtype: codes, elements: elementColumn, begin, end } = columns;
  const known = DTYPE_NAMES.length;
  const count = columns.count;
  for (let row = 0; row < count; row++) {
    if (skip !== null && skip[row] === 1) {
      continue;
    }
    tensors++;
    const code = codes[row];
    const value = elementColumn[row];
    const rowElements = value - value === 0 ? value : 0;
    const span = end[row] - begin[row];
    let rowBytes = span;
    if (!(span - span === 0 && span >= 0)) {
      rowBytes = rowBytesOf(columns, row);
      rowsWithoutSpan++;
    }
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
  return { tensors, tensorsByCode, elementsByCode, bytesByCode, unknownRows, elements, bytes, rowsWithoutSpan };
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
  const sums = skip === null ? dtypeSums(columns) : sumRows(columns, skip);
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
