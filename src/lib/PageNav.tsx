/**
 * The navigation of a long list shown a page at a time (the token browser, an index's names): a find box that starts
 * over from the first match, Previous and Next by a page, anything a list adds between them, and what is shown.
 */
import type { ReactNode } from 'react';
import './page-nav.css';

export function PageNav({
  find,
  onFind,
  placeholder,
  from,
  pageSize,
  shown,
  onFrom,
  between,
  range,
  rangeTestId,
}: {
  find: string;
  /** A new search: the list starts over at its first match. */
  onFind: (find: string) => void;
  placeholder: string;
  from: number;
  pageSize: number;
  /** Entries the list (or the search) holds. */
  shown: number;
  onFrom: (from: number) => void;
  /** Controls between Previous and Next (the token browser's "From id"). */
  between?: ReactNode;
  range: string;
  rangeTestId: string;
}) {
  return (
    <div className="page-nav">
      <label>
        Find{' '}
        <input
          type="search"
          value={find}
          placeholder={placeholder}
          onChange={(event) => {
            onFind(event.target.value);
            onFrom(0);
          }}
        />
      </label>
      <button type="button" disabled={from === 0} onClick={() => onFrom(Math.max(0, from - pageSize))}>
        ‹ Previous
      </button>
      {between}
      <button
        type="button"
        disabled={from + pageSize >= shown}
        onClick={() => onFrom(Math.min(Math.max(0, shown - 1), from + pageSize))}
      >
        Next ›
      </button>
      <span className="muted" data-testid={rangeTestId}>
        {range}
      </span>
    </div>
  );
}
