/**
 * A shape of any rank, all of it, for the "show all" viewer: rows of dims produced on demand, read straight from
 * the columns (a header may give one tensor 20,000,000 dims). The bounded one-line form is core/number-format.ts
 * formatTensorShape.
 */
import type { TensorColumns } from '../core/model';
import { MAX_VIEWER_ROWS } from './ChunkedText';
import { dimsText, shapeRank } from '../core/number-format';

/** Dims per row of the "show all" viewer. */
export const SHAPE_DIMS_PER_ROW = 6;

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
