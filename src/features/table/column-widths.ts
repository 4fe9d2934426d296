/**
 * Column widths measured from the data, in characters of the table's monospace font (`ch`), so shapes and offsets
 * are never cut and never wider than they need: the name column gets everything else. One pass over the columnar
 * model, no string building (250,000 rows cost a few milliseconds).
 */
import type { TensorColumns } from '../../core/model';
import { groupDigits } from '../../lib/format';
import { MAX_SHAPE_DIMS_SHOWN, formatTensorShape } from '../../lib/shape-text';

/** Characters of `groupDigits(value)` for a non-negative integer: digits plus one separator per three. */
function groupedLength(value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    return String(value).length;
  }
  const digits = value < 10 ? 1 : Math.floor(Math.log10(value)) + 1;
  return digits + Math.floor((digits - 1) / 3);
}

/** Width of the widest `formatShape` of any tensor: `[129 280, 7 168]` is 16. */
export function widestShapeChars(columns: TensorColumns): number {
  let widest = 2;
  for (let row = 0; row < columns.count; row++) {
    const from = columns.shapeStarts[row];
    const to = columns.shapeStarts[row + 1];
    if (to - from > MAX_SHAPE_DIMS_SHOWN) {
      // A hostile rank is printed shortened (formatTensorShape): measure that, never 20,000,000 dims.
      widest = Math.max(widest, formatTensorShape(columns, row).length);
      continue;
    }
    let chars = 2 + Math.max(0, to - from - 1) * 2;
    for (let i = from; i < to; i++) {
      chars += groupedLength(columns.dims[i]);
    }
    widest = Math.max(widest, chars);
  }
  return widest;
}

/** Width of the widest grouped integer in `values` (elements, offsets); NaN and Infinity print as words. */
export function widestNumberChars(values: ArrayLike<number>): number {
  let largest = 0;
  let special = 1;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (Number.isFinite(value)) {
      largest = Math.max(largest, Math.abs(value));
    } else {
      special = Math.max(special, String(value).length);
    }
  }
  return Math.max(special, groupDigits(largest).length);
}
