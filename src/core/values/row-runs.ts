/** Pieces of a row-major matrix cut at row ends, for trackers that keep figures per row. */

/**
 * Calls `visit(row, col, start, end)` for each run of a piece of elements `first`, `first + 1`, … (`length` of them)
 * of a row-major matrix with `cols` columns that lies within one row: the piece's elements `start` to `end`
 * (exclusive), from column `col` of `row`. A piece may start and end anywhere in a row.
 */
export function forEachRowRun(
  length: number,
  first: number,
  cols: number,
  visit: (row: number, col: number, start: number, end: number) => void,
): void {
  let row = Math.floor(first / cols);
  let col = first - row * cols;
  let start = 0;
  while (start < length) {
    const end = Math.min(length, start + (cols - col));
    visit(row, col, start, end);
    start = end;
    row++;
    col = 0;
  }
}
