/** Filter by substring or /regex/, by dtype; `/` focuses the filter and Esc clears it. */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ParsedHeader } from '../../core/model';
import { groupDigits } from '../../lib/format';
import { useAppStore } from '../../state/store';
import { MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import { shortenForDisplay } from '../../lib/display-text';

/** Typing into a 250,000-row filter re-queries the worker; waiting for a pause keeps the worker queue short. */
const FILTER_DEBOUNCE_MS = 120;

export function TableToolbar({ header, shown }: { header: ParsedHeader; shown: number }) {
  const query = useAppStore((state) => state.query);
  const setQuery = useAppStore((state) => state.setQuery);
  const filterError = useAppStore((state) => state.filterError);
  const tableNotice = useAppStore((state) => state.tableNotice);
  const findingFilter = useAppStore((state) => state.findingFilter);
  const clearFindingFilter = useAppStore((state) => state.clearFindingFilter);
  const [text, setText] = useState(query.filter);
  const input = useRef<HTMLInputElement>(null);
  const totals = useAppStore((state) => (state.load.status === 'ready' ? state.load.result.totals : null));
  const dtypes = useMemo(() => Object.keys(totals?.byDtype ?? {}), [totals]);

  useEffect(() => setText(query.filter), [query.filter]);

  useEffect(() => {
    if (text === query.filter) {
      return;
    }
    const timer = setTimeout(() => setQuery({ filter: text }), FILTER_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, query.filter, setQuery]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const typing =
        target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable);
      if (event.key === '/' && !typing) {
        event.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="table-toolbar">
      <label>
        <span className="visually-hidden">Filter tensors</span>
        <input
          ref={input}
          type="search"
          placeholder="filter: substring or /regex/   (press / to focus)"
          value={text}
          aria-invalid={filterError !== null}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              setText('');
              setQuery({ filter: '' });
            }
          }}
        />
      </label>
      <label>
        <span className="visually-hidden">Dtype</span>
        <select
          aria-label="Dtype filter"
          value={query.dtypes[0] ?? ''}
          onChange={(event) => setQuery({ dtypes: event.target.value ? [event.target.value] : [] })}
        >
          <option value="">all dtypes</option>
          {dtypes.map((dtype) => (
            <option key={dtype} value={dtype}>
              {dtype}
            </option>
          ))}
        </select>
      </label>
      {query.module && (
        <button type="button" className="chip" onClick={() => setQuery({ module: '' })}>
          module: {shortenForDisplay(query.module, MAX_NAME_DISPLAY_CHARS)} ✕
        </button>
      )}
      {findingFilter && (
        <button type="button" className="chip" onClick={clearFindingFilter}>
          finding: {findingFilter.code} ✕
        </button>
      )}
      <span className="muted" data-testid="row-count">
        {groupDigits(header.tensors.count)} tensors · {groupDigits(shown)} shown
      </span>
      {tableNotice && (
        <span className="error-text" role="alert" data-testid="table-notice">
          {tableNotice}
        </span>
      )}
      {filterError && (
        <span className="error-text" role="alert">
          {filterError}
        </span>
      )}
    </div>
  );
}
