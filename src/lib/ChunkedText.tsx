/**
 * Text of any length (a 100 MB metadata value, a shape of 20,000,000 dims) shown as fixed-height rows of a few
 * dozen characters, with only the rows in view in the DOM: "show all" stays responsive however long the text is.
 * Rows are produced on demand, so the full text never has to exist as one string.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import './long-text.css';

const ROW_HEIGHT_PX = 20;
const MAX_HEIGHT_PX = 400;
/** Characters per row of a plain string: fits an 800 px layout in the monospace font without wrapping. */
export const TEXT_ROW_CHARS = 80;
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
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT_PX,
    overscan: 8,
  });
  return (
    <div
      ref={scrollRef}
      className="chunked-text"
      style={{ height: Math.min(rowCount * ROW_HEIGHT_PX, MAX_HEIGHT_PX) }}
      role="region"
      aria-label={label}
      tabIndex={0}
      data-testid={testId}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => (
          <div
            key={item.key}
            className="chunked-text-row"
            style={{ height: ROW_HEIGHT_PX, transform: `translateY(${item.start}px)` }}
          >
            {rowText(item.index)}
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
