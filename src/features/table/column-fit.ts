/**
 * Which columns a VirtualTable shows at the width it has, and how many characters its flexible (name) column holds.
 * The name comes first: columns marked `givesWay` are hidden, lowest first, while the name column would otherwise
 * be narrower than its content; only when none are left does the name give way (name-elision.ts), and last of all
 * the table scrolls sideways. Widths are in the table's monospace `ch`, so one character width converts them all.
 */
import { useEffect, useState, type RefObject } from 'react';

/** Horizontal padding of a cell (8 px each side) plus a pixel of border. */
export const CELL_PADDING_PX = 17;

export interface FitColumn {
  id: string;
  widthCh: number;
  flexible?: boolean;
  /** Widest content of the flexible column, in `ch`; the column grows to it and no further. */
  contentCh?: number;
  /** Hidden at narrow widths before the name is cut; lower gives way first. */
  givesWay?: number;
}

/** The ids of the columns to hide so the flexible column gets its content width in `availablePx`, if it can. */
export function columnsGivingWay(columns: readonly FitColumn[], availablePx: number, chPx: number): Set<string> {
  const hidden = new Set<string>();
  if (!(availablePx > 0 && chPx > 0)) {
    return hidden;
  }
  const widthPx = (column: FitColumn) =>
    (column.flexible ? Math.max(column.widthCh, column.contentCh ?? column.widthCh) : column.widthCh) * chPx +
    CELL_PADDING_PX;
  let needed = columns.reduce((sum, column) => sum + widthPx(column), 0);
  const candidates = columns
    .filter((column) => column.givesWay !== undefined && !column.flexible)
    .sort((a, b) => (a.givesWay ?? 0) - (b.givesWay ?? 0));
  for (const column of candidates) {
    if (needed <= availablePx) {
      break;
    }
    hidden.add(column.id);
    needed -= widthPx(column);
  }
  return hidden;
}

/** Characters a cell `cellPx` wide holds, padding taken off; a hair of tolerance for sub-pixel layout. */
export function charsInCell(cellPx: number, chPx: number): number | null {
  if (!(cellPx > 0 && chPx > 0)) {
    return null;
  }
  return Math.max(1, Math.floor((cellPx - CELL_PADDING_PX + 0.5) / chPx));
}

/**
 * The scroll box's inner width and the width of one character of the table's font, kept current as the window
 * changes. `probeRef` points at an invisible run of PROBE_CHARS zeros inside the table.
 */
export const PROBE_CHARS = 10;

export function useTableMetrics(
  scrollRef: RefObject<HTMLDivElement | null>,
  probeRef: RefObject<HTMLSpanElement | null>,
): { availablePx: number; chPx: number } {
  const [metrics, setMetrics] = useState({ availablePx: 0, chPx: 0 });
  useEffect(() => {
    const scroll = scrollRef.current;
    if (!scroll || typeof ResizeObserver === 'undefined') {
      return;
    }
    const measure = () => {
      const chPx = (probeRef.current?.getBoundingClientRect().width ?? 0) / PROBE_CHARS;
      const availablePx = scroll.clientWidth;
      setMetrics((now) => (now.chPx === chPx && now.availablePx === availablePx ? now : { availablePx, chPx }));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(scroll);
    return () => observer.disconnect();
  }, [scrollRef, probeRef]);
  return metrics;
}
