/**
 * Shapes as text with a bound: no real tensor has more than 8 dims, but a header may give one 20,000,000 (a 40 MB
 * header), whose full text would be a 60-million-character node. These read dims straight from the columns, so
 * the shape is never copied into an array either.
 */
import type { TensorColumns } from '../core/model';
import { MAX_VIEWER_ROWS } from './ChunkedText';
import { groupDigits } from '../core/number-format';

/** Dims printed before a shape is shortened: the first ones, "…", the last two, and the rank. */
export const MAX_SHAPE_DIMS_SHOWN = 16;
const TAIL_DIMS = 2;
/** Dims per row of the "show all" viewer. */
export const SHAPE_DIMS_PER_ROW = 6;

export function shapeRank(columns: TensorColumns, row: number): number {
  return columns.shapeStarts[row + 1] - columns.shapeStarts[row];
}

function dimsText(columns: TensorColumns, from: number, to: number): string {
  const parts: string[] = [];
  for (let i = from; i < to; i++) {
    parts.push(groupDigits(columns.dims[i]));
  }
  return parts.join(', ');
}

/** `[4 096, 11 008]`, or for a hostile rank `[1, 1, …, 1, 1] (20 000 000 dims)`; at most MAX_SHAPE_DIMS_SHOWN dims. */
export function formatTensorShape(columns: TensorColumns, row: number): string {
  const start = columns.shapeStarts[row];
  const end = columns.shapeStarts[row + 1];
  const rank = end - start;
  if (rank <= MAX_SHAPE_DIMS_SHOWN) {
    return `[${dimsText(columns, start, end)}]`;
  }
  const head = dimsText(columns, start, start + MAX_SHAPE_DIMS_SHOWN - TAIL_DIMS);
  const tail = dimsText(columns, end - TAIL_DIMS, end);
  return `[${head}, …, ${tail}] (${groupDigits(rank)} dims)`;
}

/** Rows of a shape for the ChunkedText viewer: SHAPE_DIMS_PER_ROW dims each, produced on demand. */
export function shapeRows(
  columns: TensorColumns,
  row: number,
): { rowCount: number; rowText: (index: number) => string } {
  const start = columns.shapeStarts[row];
  const rank = shapeRank(columns, row);
  // Wider rows past MAX_VIEWER_ROWS keep the viewer under the browser's element-height cap.
  const perRow = Math.max(SHAPE_DIMS_PER_ROW, Math.ceil(rank / MAX_VIEWER_ROWS));
  const rowCount = Math.ceil(rank / perRow);
  return {
    rowCount,
    rowText: (index) => {
      const from = start + index * perRow;
      const to = Math.min(start + rank, from + perRow);
      const text = dimsText(columns, from, to);
      return `${index === 0 ? '[' : ' '}${text}${index === rowCount - 1 ? ']' : ','}`;
    },
  };
}
