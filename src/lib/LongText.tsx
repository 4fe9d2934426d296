/**
 * A string from a file, shortened on screen with a "Show all" that stays responsive: up to PLAIN_SHOW_ALL_CHARS the
 * whole text is one node; longer text opens in a ChunkedText viewer that keeps only the visible rows in the DOM.
 */
import { useState, type ReactNode } from 'react';
import { ChunkedText, stringRows } from './ChunkedText';
import { groupDigitsWith } from '../core/number-format';

/** Longest text "Show all" renders as a single text node (lays out in well under 100 ms). */
const PLAIN_SHOW_ALL_CHARS = 100_000;

export interface LongTextProps {
  text: string;
  /** Characters shown before "Show all". */
  max: number;
  /** Renders the shown text (a <pre>, a link…); the chunked viewer replaces it for very long text. */
  render: (shown: string) => ReactNode;
  label: string;
}

export function LongText({ text, max, render, label }: LongTextProps) {
  const [expanded, setExpanded] = useState(false);
  const long = text.length > max;
  let body: ReactNode;
  if (!long) {
    body = render(text);
  } else if (!expanded) {
    body = render(`${text.slice(0, max)}…`);
  } else if (text.length <= PLAIN_SHOW_ALL_CHARS) {
    body = render(text);
  } else {
    const rows = stringRows(text);
    body = <ChunkedText rowCount={rows.rowCount} rowText={rows.rowText} label={label} />;
  }
  return (
    <>
      {body}
      {long && (
        <button type="button" className="link-button" onClick={() => setExpanded(!expanded)}>
          {expanded ? 'Show less' : `Show all ${groupDigitsWith(text.length, ',')} characters`}
        </button>
      )}
    </>
  );
}
