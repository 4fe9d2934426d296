/**
 * Where the WAI-ARIA grid pattern moves the active cell for a key (https://www.w3.org/WAI/ARIA/apg/patterns/grid/):
 * arrows by one cell, PageUp/PageDown by a screenful, Home/End to the first/last row (Ctrl+Home/End as well),
 * clamped to the grid. Rows here are data rows; the header row holds the sort buttons, reached with Tab.
 * Home/End go to the first/last row rather than the first/last cell of the row: in a table read row by row, that is
 * what a user expects, and the row's cells are a few arrow presses away.
 */
export interface GridCursor {
  row: number;
  col: number;
}

export interface GridSize {
  rows: number;
  cols: number;
  /** Rows in one screenful, for PageUp/PageDown. */
  page: number;
}

export function moveGridCursor(cursor: GridCursor, key: string, size: GridSize): GridCursor | null {
  if (size.rows === 0) {
    return null;
  }
  const clampRow = (row: number) => Math.min(size.rows - 1, Math.max(0, row));
  const clampCol = (col: number) => Math.min(size.cols - 1, Math.max(0, col));
  const step = Math.max(1, size.page);
  switch (key) {
    case 'ArrowDown':
      return { row: clampRow(cursor.row + 1), col: cursor.col };
    case 'ArrowUp':
      return { row: clampRow(cursor.row - 1), col: cursor.col };
    case 'ArrowRight':
      return { row: cursor.row, col: clampCol(cursor.col + 1) };
    case 'ArrowLeft':
      return { row: cursor.row, col: clampCol(cursor.col - 1) };
    case 'PageDown':
      return { row: clampRow(cursor.row + step), col: cursor.col };
    case 'PageUp':
      return { row: clampRow(cursor.row - step), col: cursor.col };
    case 'Home':
      return { row: 0, col: cursor.col };
    case 'End':
      return { row: size.rows - 1, col: cursor.col };
    default:
      return null;
  }
}
