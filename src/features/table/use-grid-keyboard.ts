/**
 * The keyboard half of VirtualTable's WAI-ARIA grid: one Tab stop whose active cell moves with the keys grid-keys.ts
 * maps (shown through `aria-activedescendant`, so a cell scrolled out of the virtual window never takes the focus
 * with it), Enter or Space activates the row, Ctrl/Cmd+C copies the active cell.
 */
import { useState, type FocusEvent, type KeyboardEvent, type RefObject } from 'react';
import { moveGridCursor, type GridCursor } from './grid-keys';

interface GridKeyboardOptions {
  rowCount: number;
  colCount: number;
  rowHeight: number;
  /** Row ids in display order; null while the first answer is pending. */
  order: ArrayLike<number> | null;
  scrollRef: RefObject<HTMLDivElement | null>;
  scrollToIndex: (index: number) => void;
  cellId: (row: number, col: number) => string;
  onActivate?: (row: number) => void;
  /** Copies the cell at (row id, column); returns whether it did. */
  onCopy: (row: number, col: number) => boolean;
}

const MOVES_FIRST_CELL = (key: string) =>
  key.startsWith('Arrow') || key.startsWith('Page') || key === 'Home' || key === 'End';

export function useGridKeyboard({
  rowCount,
  colCount,
  rowHeight,
  order,
  scrollRef,
  scrollToIndex,
  cellId,
  onActivate,
  onCopy,
}: GridKeyboardOptions) {
  const [cursor, setCursor] = useState<GridCursor | null>(null);
  // A new order (filter, sort) or fewer columns can leave the cursor outside the grid: keep it inside.
  const activeCursor =
    cursor && rowCount > 0
      ? { row: Math.min(cursor.row, rowCount - 1), col: Math.min(cursor.col, Math.max(0, colCount - 1)) }
      : null;

  const moveTo = (next: GridCursor) => {
    setCursor(next);
    scrollToIndex(next.row);
    // Bring the active column into view when the table scrolls sideways.
    requestAnimationFrame(() => {
      document.getElementById(cellId(next.row, next.col))?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target !== event.currentTarget || !order) {
      return;
    }
    if ((event.key === 'Enter' || event.key === ' ') && activeCursor && onActivate) {
      event.preventDefault();
      onActivate(order[activeCursor.row]);
      return;
    }
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'c' && activeCursor) {
      if (onCopy(order[activeCursor.row], activeCursor.col)) {
        event.preventDefault();
      }
      return;
    }
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? rowHeight * 10) / rowHeight) - 2);
    const current = activeCursor ?? { row: 0, col: 0 };
    const next = activeCursor
      ? moveGridCursor(current, event.key, { rows: rowCount, cols: colCount, page })
      : MOVES_FIRST_CELL(event.key)
        ? current
        : null;
    if (next) {
      event.preventDefault();
      moveTo(next);
    }
  };

  const onFocus = (event: FocusEvent<HTMLDivElement>) => {
    if (event.target === event.currentTarget && !activeCursor && rowCount > 0) {
      setCursor({ row: 0, col: 0 });
    }
  };

  /** A click on a row makes it the cursor's row, in the column the cursor was in. */
  const pointAtRow = (index: number) => setCursor((now) => ({ row: index, col: now?.col ?? 0 }));

  return { activeCursor, onKeyDown, onFocus, pointAtRow };
}
