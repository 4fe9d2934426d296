/** Totals per dtype: the numbers behind the summary, the dtype chart and the report. */
import { DTYPE_NAMES, UNKNOWN_DTYPE_CODE } from './dtypes';
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
 * Totals as the reference loader sees the file: `shadowedRows` (earlier entries of a repeated name, which it drops)
 * are not counted, so a name written twice counts once.
 */
export function computeTotals(
  columns: TensorColumns,
  unknownDtypes?: ReadonlyMap<number, string>,
  shadowedRows?: ArrayLike<number>,
): HeaderTotals {
  const tensorsByCode = new Float64Array(256);
  const elementsByCode = new Float64Array(256);
  const bytesByCode = new Float64Array(256);
  const unknown = new Map<string, DtypeTotals>();
  let elements = 0;
  let bytes = 0;
  const skip = shadowedMask(columns.count, shadowedRows);
  let tensors = 0;
  // Locals and typed arrays, no call per row on the usual path: this runs once per load, mostly in V8's
  // interpreter (docs/performance.md, "Loops that run once"). x - x === 0 exactly when x is finite.
  const { dtype: codes, elements: elementColumn, begin, end } = columns;
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
    const rowBytes = span - span === 0 && span >= 0 ? span : tensorBytes(columns, row);
    const safeBytes = rowBytes - rowBytes === 0 ? rowBytes : 0;
    if (code === UNKNOWN_DTYPE_CODE) {
      const name = unknownDtypes?.get(row) ?? 'unknown';
      const bucket = unknown.get(name) ?? { tensors: 0, elements: 0, bytes: 0 };
      unknown.set(name, bucket);
      bucket.tensors += 1;
      bucket.elements += rowElements;
      bucket.bytes += safeBytes;
    } else {
      tensorsByCode[code]++;
      elementsByCode[code] += rowElements;
      bytesByCode[code] += safeBytes;
    }
    elements += rowElements;
    bytes += safeBytes;
  }
  const byDtype: Record<string, DtypeTotals> = {};
  DTYPE_NAMES.forEach((name, code) => {
    if (tensorsByCode[code] > 0) {
      byDtype[name] = { tensors: tensorsByCode[code], elements: elementsByCode[code], bytes: bytesByCode[code] };
    }
  });
  for (const [name, totals] of unknown) {
    Object.defineProperty(byDtype, name, { value: totals, enumerable: true, writable: true, configurable: true });
  }
  return { tensors, elements, bytes, byDtype };
}
