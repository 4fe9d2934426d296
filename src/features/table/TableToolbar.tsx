/** The toolbar shared by the virtualized tables, and the tensor table's own. */
import { useMemo, type ComponentProps, type ReactNode } from 'react';
import { MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import type { ParsedHeader } from '../../core/model';
import { shortenForDisplay } from '../../lib/display-text';
import { groupDigits } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { FilterInput } from './FilterInput';

/** "250 638 tensors · 40 shown", and "working…" instead of a count that is about to change. */
function RowCount({ total, noun, shown, busy, testId }: RowCountProps) {
  return (
    <span className="muted row-count" data-testid={testId} aria-live="polite">
      {groupDigits(total)} {total === 1 ? noun[0] : noun[1]}
      {shown !== null && ` · ${groupDigits(shown)} shown`}
      {busy && <span className="working"> · working…</span>}
    </span>
  );
}

interface RowCountProps {
  total: number;
  /** Singular and plural. */
  noun: readonly [string, string];
  shown: number | null;
  busy: boolean;
  testId: string;
}

/** The name filter of a toolbar: FilterInput's settings, and the error of the filter in effect (null: it is valid). */
type ToolbarFilter = Omit<ComponentProps<typeof FilterInput>, 'invalid'> & { error: string | null };

/** A chip for one restriction on the rows; clicking it lifts the restriction. */
export function FilterChip({ children, onRemove }: { children: ReactNode; onRemove: () => void }) {
  return (
    <button type="button" className="chip" onClick={onRemove}>
      {children} ✕
    </button>
  );
}

/**
 * The toolbar of every virtualized table (tensors, compared tensors, compared modules): the name filter, then the
 * table's own controls and chips (children), the row count, a notice, and the filter's error.
 */
export function QueryToolbar({
  filter: { error, ...filter },
  count,
  notice,
  children,
}: {
  filter: ToolbarFilter;
  count: RowCountProps;
  notice?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className="table-toolbar">
      <FilterInput {...filter} invalid={error !== null} />
      {children}
      <RowCount {...count} />
      {notice}
      {error && (
        <span className="error-text" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

/** The tensor table's toolbar: filter by substring or /regex/ and by dtype, the chips that restrict it, the count. */
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
    <QueryToolbar
      filter={{
        value: query.filter,
        onCommit: commitFilter,
        label: 'Filter tensors',
        placeholder: 'Filter names: text or /regex/',
        error: filterError,
        slashFocuses: true,
      }}
      count={{ total: header.tensors.count, noun: ['tensor', 'tensors'], shown, busy, testId: 'row-count' }}
      notice={
        tableNotice && (
          <span className="error-text" role="alert" data-testid="table-notice">
            {tableNotice}
          </span>
        )
      }
    >
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
        <FilterChip onRemove={() => setQuery({ module: '' })}>
          module: {shortenForDisplay(query.module, MAX_NAME_DISPLAY_CHARS)}
        </FilterChip>
      )}
      {findingFilter && <FilterChip onRemove={clearFindingFilter}>{findingFilter.label}</FilterChip>}
    </QueryToolbar>
  );
}
