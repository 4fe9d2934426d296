/** The tensor table's toolbar: filter by substring or /regex/ and by dtype, the chips that restrict it, the count. */
import { useMemo } from 'react';
import { MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import type { ParsedHeader } from '../../core/model';
import { shortenForDisplay } from '../../lib/display-text';
import { groupDigits } from '../../lib/format';
import { useAppStore } from '../../state/store';
import { FilterInput } from './FilterInput';

/** "250 638 tensors · 40 shown", and "working…" instead of a count that is about to change. */
export function RowCount({
  total,
  noun,
  shown,
  busy,
  testId,
}: {
  total: number;
  /** Singular and plural. */
  noun: readonly [string, string];
  shown: number | null;
  busy: boolean;
  testId: string;
}) {
  return (
    <span className="muted row-count" data-testid={testId} aria-live="polite">
      {groupDigits(total)} {total === 1 ? noun[0] : noun[1]}
      {shown !== null && ` · ${groupDigits(shown)} shown`}
      {busy && <span className="working"> · working…</span>}
    </span>
  );
}

export function TableToolbar({ header, shown, busy }: { header: ParsedHeader; shown: number | null; busy: boolean }) {
  const query = useAppStore((state) => state.query);
  const setQuery = useAppStore((state) => state.setQuery);
  const filterError = useAppStore((state) => state.filterError);
  const tableNotice = useAppStore((state) => state.tableNotice);
  const findingFilter = useAppStore((state) => state.findingFilter);
  const clearFindingFilter = useAppStore((state) => state.clearFindingFilter);
  const totals = useAppStore((state) => (state.load.status === 'ready' ? state.load.result.totals : null));
  const dtypes = useMemo(() => Object.keys(totals?.byDtype ?? {}), [totals]);
  const commitFilter = useMemo(() => (filter: string) => setQuery({ filter }), [setQuery]);

  return (
    <div className="table-toolbar">
      <FilterInput
        value={query.filter}
        onCommit={commitFilter}
        label="Filter tensors"
        placeholder="Filter names: text or /regex/"
        invalid={filterError !== null}
        slashFocuses
      />
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
      <RowCount
        total={header.tensors.count}
        noun={['tensor', 'tensors']}
        shown={shown}
        busy={busy}
        testId="row-count"
      />
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
