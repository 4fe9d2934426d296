/**
 * Text of any length (a 100 MB metadata value, a shape of 20,000,000 dims) shown as fixed-height rows of a few
 * dozen characters, with only the rows in view in the DOM: "show all" stays responsive however long the text is.
 * Rows are produced on demand, so the full text never has to exist as one string.
 */
import { useState } from 'react';
import './long-text.css';

const ROW_HEIGHT_PX = 20;
const MAX_HEIGHT_PX = 400;
/** Rows rendered above and below the view, so a fast scroll shows text rather than blank rows. */
const OVERSCAN_ROWS = 8;
/** Characters per row of a plain string: fits an 800 px layout in the monospace font without wrapping. */
const TEXT_ROW_CHARS = 80;
/**
 * Rows one viewer may hold: browsers cap an element's height near 33,500,000 px, so longer texts get wider rows
 * instead (a 100,000,000-character value: 100 characters a row) and the last row stays reachable.
 */
export const MAX_VIEWER_ROWS = 1_000_000;

export interface ChunkedTextProps {
  rowCount: number;
  rowText: (row: number) => string;
  label: string;
  testId?: string;
}

export function ChunkedText({ rowCount, rowText, label, testId }: ChunkedTextProps) {
  // Every row has the same height, so the rows in view follow from scrollTop alone. A general virtualizer would
  // build one measurement object per row: a million of them is a half-second task on the main thread.
  const [scrollTop, setScrollTop] = useState(0);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT_PX) - OVERSCAN_ROWS);
  const last = Math.min(rowCount, Math.ceil((scrollTop + MAX_HEIGHT_PX) / ROW_HEIGHT_PX) + OVERSCAN_ROWS);
  const rows: number[] = [];
  for (let row = first; row < last; row++) {
    rows.push(row);
  }
  return (
    <div
      className="chunked-text"
      style={{ height: Math.min(rowCount * ROW_HEIGHT_PX, MAX_HEIGHT_PX) }}
      role="region"
      aria-label={label}
      tabIndex={0}
      data-testid={testId}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
    >
      <div style={{ height: rowCount * ROW_HEIGHT_PX, position: 'relative' }}>
        {rows.map((row) => (
          <div
            key={row}
            className="chunked-text-row"
            style={{ height: ROW_HEIGHT_PX, transform: `translateY(${row * ROW_HEIGHT_PX}px)` }}
          >
            {rowText(row)}
          </div>
        ))}
      </div>
    </div>
  );
}

/** Rows of a plain string: line breaks and tabs show as ↵ and → so each row stays one line high. */
export function stringRows(text: string): { rowCount: number; rowText: (row: number) => string } {
  const perRow = Math.max(TEXT_ROW_CHARS, Math.ceil(text.length / MAX_VIEWER_ROWS));
  return {
    rowCount: Math.ceil(text.length / perRow),
    rowText: (row) =>
      text
        .slice(row * perRow, (row + 1) * perRow)
        .replace(/\r?\n|\r/g, '↵')
        .replace(/\t/g, '→'),
  };
}
