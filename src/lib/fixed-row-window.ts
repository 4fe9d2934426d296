/**
 * Which rows of a fixed-row-height list are in view, for tables of up to millions of rows. @tanstack/react-virtual
 * keeps one measurement object per row and rebuilds them all whenever the count changes (a million rows: 100–200 ms
 * on the main thread); with every row the same height, the window is two divisions and nothing per row.
 */
import { useEffect, useMemo, useState, type RefObject } from 'react';

export interface WindowRow {
  index: number;
  /** Top of the row inside the list body, in pixels. */
  start: number;
}

export interface RowRangeInput {
  count: number;
  rowHeight: number;
  overscan: number;
  /** Pixels of the scroll element above the first row (a sticky header inside it). */
  bodyOffset: number;
  scrollTop: number;
  viewportHeight: number;
}

/** The rows to draw, `[start, end)`: those in view plus `overscan` on each side, within `[0, count)`. */
export function rowRange(input: RowRangeInput): { start: number; end: number } {
  // The sticky header covers the viewport's first `bodyOffset` pixels, so the body shows from scrollTop on.
  const top = Math.max(0, input.scrollTop);
  const firstInView = Math.floor(top / input.rowHeight);
  const pastLastInView = Math.ceil((top + Math.max(0, input.viewportHeight - input.bodyOffset)) / input.rowHeight);
  const start = Math.min(input.count, Math.max(0, firstInView - input.overscan));
  const end = Math.min(input.count, pastLastInView + input.overscan);
  return { start, end: Math.max(start, end) };
}

/**
 * The scrollTop that brings row `index` fully into view below a sticky header of `bodyOffset` pixels, moving as
 * little as possible (the row's nearest edge lands on the viewport's edge); the current one when it is in view.
 */
export function scrollTopToShow(
  index: number,
  view: { rowHeight: number; bodyOffset: number; scrollTop: number; viewportHeight: number },
): number {
  const rowTop = index * view.rowHeight;
  const rowBottom = rowTop + view.rowHeight + view.bodyOffset;
  if (rowTop < view.scrollTop) {
    return rowTop;
  }
  if (rowBottom > view.scrollTop + view.viewportHeight) {
    return rowBottom - view.viewportHeight;
  }
  return view.scrollTop;
}

/** Rows of `rowHeight` a window-high box shows, part rows included; none where there is no window. */
function rowsInWindow(rowHeight: number): number {
  return typeof window === 'undefined' ? 0 : Math.ceil(window.innerHeight / rowHeight) + 1;
}

export interface FixedRowWindow {
  rows: WindowRow[];
  totalHeight: number;
  scrollToIndex: (index: number) => void;
}

/**
 * The rows of `scrollRef`'s list to draw. Re-renders only when the first row in view or the number of rows that fit
 * changes, not on every scrolled pixel.
 */
export function useFixedRowWindow(options: {
  count: number;
  rowHeight: number;
  overscan: number;
  bodyOffset: number;
  scrollRef: RefObject<HTMLElement | null>;
}): FixedRowWindow {
  const { count, rowHeight, overscan, bodyOffset, scrollRef } = options;
  // Quantized to rows, so React skips the render when a scroll step stays within the same rows.
  const [firstRow, setFirstRow] = useState(0);
  // Reading the box's height as the table mounts would force the layout of the whole page the commit just changed,
  // inside the commit's task (a million-row report: up to 35 ms). It starts with the rows a full window holds (the
  // scroll box is at most the window's height, table.css, unless the window is under 240 px), and the
  // ResizeObserver's first report, delivered after the browser's own layout, sets the exact count.
  const [rowsInView, setRowsInView] = useState(() => rowsInWindow(rowHeight));
  useEffect(() => {
    const element = scrollRef.current;
    if (!element) {
      return;
    }
    const read = () => {
      setFirstRow(Math.floor(element.scrollTop / rowHeight));
      setRowsInView(Math.ceil(element.clientHeight / rowHeight) + 1);
    };
    element.addEventListener('scroll', read, { passive: true });
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(read);
    observer?.observe(element);
    return () => {
      element.removeEventListener('scroll', read);
      observer?.disconnect();
    };
  }, [scrollRef, rowHeight]);
  const { start, end } = rowRange({
    count,
    rowHeight,
    overscan,
    bodyOffset,
    scrollTop: firstRow * rowHeight,
    viewportHeight: rowsInView * rowHeight,
  });
  const rows = useMemo(
    () => Array.from({ length: end - start }, (_, i) => ({ index: start + i, start: (start + i) * rowHeight })),
    [start, end, rowHeight],
  );
  const scrollToIndex = (index: number) => {
    const element = scrollRef.current;
    if (!element) {
      return;
    }
    const next = scrollTopToShow(index, {
      rowHeight,
      bodyOffset,
      scrollTop: element.scrollTop,
      viewportHeight: element.clientHeight,
    });
    if (next !== element.scrollTop) {
      element.scrollTop = next;
    }
  };
  return { rows, totalHeight: count * rowHeight, scrollToIndex };
}
