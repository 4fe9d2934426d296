/**
 * Column widths measured from the data, in characters of the table's monospace font (`ch`), so shapes and offsets
 * are never cut and never wider than they need: the name column gets everything else. One pass over the columnar
 * model, no string building (250,000 rows cost a few milliseconds).
 */
import type { TensorColumns } from '../../core/model';
import { groupDigits } from '../../core/number-format';
import { MAX_SHAPE_DIMS_SHOWN, formatTensorShape } from '../../lib/shape-text';

/** 10^0 … 10^21: digit counts by comparison, far cheaper than Math.log10 over a million dims. */
const POWERS_OF_TEN = Array.from({ length: 22 }, (_, i) => 10 ** i);

/** Characters of `groupDigits(value)` for a non-negative integer: digits plus one separator per three. */
function groupedLength(value: number): number {
  if (!Number.isFinite(value) || value < 0 || value >= 1e21) {
    return String(value).length;
  }
  let digits = 1;
  while (value >= POWERS_OF_TEN[digits]) {
    digits++;
  }
  return digits + Math.floor((digits - 1) / 3);
}

/** Width of the widest `formatShape` of the first `rows` tensors (all by default): `[129 280, 7 168]` is 16. */
export function widestShapeChars(columns: TensorColumns, rows = columns.count): number {
  let widest = 2;
  for (let row = 0; row < Math.min(rows, columns.count); row++) {
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
export function widestNumberChars(values: ArrayLike<number>, count = values.length): number {
  let largest = 0;
  let special = 1;
  for (let i = 0; i < Math.min(count, values.length); i++) {
    const value = values[i];
    if (Number.isFinite(value)) {
      largest = Math.max(largest, Math.abs(value));
    } else {
      special = Math.max(special, String(value).length);
    }
  }
  return Math.max(special, groupDigits(largest).length);
}

export interface TensorColumnWidths {
  shape: number;
  elements: number;
  begin: number;
  end: number;
}

/**
 * Rows measured at once when a table mounts. A 250,000-row scan costs ~30 ms, which would lengthen the mount task
 * past the 50 ms long-task budget (docs/performance.md); the rest is measured in a task of its own.
 */
export const FIRST_MEASURE_ROWS = 5_000;

/** The content widths of the tensor table's measured columns, over the first `rows` tensors (all by default). */
export function tensorColumnWidths(columns: TensorColumns, rows = columns.count): TensorColumnWidths {
  return {
    shape: widestShapeChars(columns, rows),
    elements: widestNumberChars(columns.elements, rows),
    begin: widestNumberChars(columns.begin, rows),
    end: widestNumberChars(columns.end, rows),
  };
}
