/**
 * Keyboard moves over a layers × experts map (ExpertGridView): the keys of the WAI-ARIA grid pattern
 * (https://www.w3.org/WAI/ARIA/apg/patterns/grid/), so a map drawn on a canvas can be read cell by cell without a
 * pointer. Pure.
 */

/** Layers moved by Page Up and Page Down: the grid pattern leaves the step to the author. */
export const PAGE_LAYERS = 10;

export interface GridCell {
  row: number;
  expert: number;
}

/** The cell `key` moves to from `cell` in a map of `rows` × `experts`, or null when the key is not a move. */
export function movedCell(key: string, ctrl: boolean, cell: GridCell, rows: number, experts: number): GridCell | null {
  const clamp = (row: number, expert: number): GridCell => ({
    row: Math.max(0, Math.min(rows - 1, row)),
    expert: Math.max(0, Math.min(experts - 1, expert)),
  });
  switch (key) {
    case 'ArrowLeft':
      return clamp(cell.row, cell.expert - 1);
    case 'ArrowRight':
      return clamp(cell.row, cell.expert + 1);
    case 'ArrowUp':
      return clamp(cell.row - 1, cell.expert);
    case 'ArrowDown':
      return clamp(cell.row + 1, cell.expert);
    case 'PageUp':
      return clamp(cell.row - PAGE_LAYERS, cell.expert);
    case 'PageDown':
      return clamp(cell.row + PAGE_LAYERS, cell.expert);
    case 'Home':
      return clamp(ctrl ? 0 : cell.row, 0);
    case 'End':
      return clamp(ctrl ? rows - 1 : cell.row, experts - 1);
    default:
      return null;
  }
}
