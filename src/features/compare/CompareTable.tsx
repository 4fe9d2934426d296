/**
 * Every aligned key with its group, dtypes, shapes and parameters on both sides. Sorting and filtering run in the
 * worker (core/compare/compare-query.ts); cells decode names and shapes on demand from each side's columns.
 */
import { useEffect, useMemo, useState } from 'react';
import { DIFF_GROUPS, type DiffGroup } from '../../core/compare/diff';
import type { CompareSortKey } from '../../core/compare/compare-query';
import { dtypeName } from '../../core/dtypes';
import { tensorName, tensorShape, type ParsedHeader } from '../../core/model';
import { formatShape, groupDigits } from '../../lib/format';
import { useAppStore } from '../../state/store';
import type { CompareResult, LoadResult } from '../../core/result';
import { GROUP_LABELS, signed } from './labels';
import { nextSort, VirtualTable, type VirtualColumn } from './VirtualTable';

/** Typing into a 250,000-row filter re-queries the worker; waiting for a pause keeps the worker queue short. */
const FILTER_DEBOUNCE_MS = 120;

const NUMERIC_KEYS: ReadonlySet<CompareSortKey> = new Set(['paramsA', 'paramsB', 'delta']);

function headerOf(result: LoadResult): ParsedHeader | null {
  return result.outcome.kind === 'parsed' ? result.outcome.header : null;
}

function dtypeOf(header: ParsedHeader, row: number): string {
  return dtypeName(header.tensors.dtype[row]) ?? header.unknownDtypes.get(row) ?? '?';
}

/** One value when the sides agree or only one side has the tensor; `A → B` when they differ. */
function bothSides(a: string | null, b: string | null): string {
  if (a === null || b === null || a === b) {
    return a ?? b ?? '—';
  }
  return `${a} → ${b}`;
}

export function CompareTable({ result, a, b }: { result: CompareResult; a: LoadResult; b: LoadResult }) {
  const order = useAppStore((state) => state.compareOrder);
  const query = useAppStore((state) => state.compareQuery);
  const setQuery = useAppStore((state) => state.setCompareQuery);
  const filterError = useAppStore((state) => state.compareFilterError);
  const [text, setText] = useState(query.filter);

  useEffect(() => setText(query.filter), [query.filter]);
  useEffect(() => {
    if (text === query.filter) {
      return;
    }
    const timer = setTimeout(() => setQuery({ filter: text }), FILTER_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, query.filter, setQuery]);

  const columns = useMemo((): Array<VirtualColumn<CompareSortKey>> => {
    const headerA = headerOf(a);
    const headerB = headerOf(b);
    const { entries } = result;
    if (!headerA || !headerB) {
      return [];
    }
    const nameA = (i: number) => tensorName(headerA.tensors, entries.rowA[i]);
    const nameB = (i: number) => tensorName(headerB.tensors, entries.rowB[i]);
    const elementsA = (i: number) => (entries.rowA[i] >= 0 ? headerA.tensors.elements[entries.rowA[i]] : null);
    const elementsB = (i: number) => (entries.rowB[i] >= 0 ? headerB.tensors.elements[entries.rowB[i]] : null);
    const finite = (value: number | null) => (value !== null && Number.isFinite(value) ? value : 0);
    return [
      {
        id: 'name',
        header: 'Tensor (aligned)',
        cell: (i) => {
          const key = entries.rowA[i] >= 0 ? nameA(i).slice(entries.stripA[i]) : nameB(i).slice(entries.stripB[i]);
          return <span>{key}</span>;
        },
      },
      {
        id: 'status',
        header: 'Status',
        cell: (i) => {
          const group = DIFF_GROUPS[entries.status[i]];
          return <span className={`diff-status diff-${group}`}>{GROUP_LABELS[group]}</span>;
        },
      },
      {
        id: 'dtype',
        header: 'Dtype A → B',
        cell: (i) => {
          const dA = entries.rowA[i] >= 0 ? dtypeOf(headerA, entries.rowA[i]) : null;
          const dB = entries.rowB[i] >= 0 ? dtypeOf(headerB, entries.rowB[i]) : null;
          return bothSides(dA, dB);
        },
      },
      {
        id: 'shape',
        header: 'Shape A → B',
        cell: (i) => {
          const sA = entries.rowA[i] >= 0 ? formatShape(tensorShape(headerA.tensors, entries.rowA[i])) : null;
          const sB = entries.rowB[i] >= 0 ? formatShape(tensorShape(headerB.tensors, entries.rowB[i])) : null;
          return bothSides(sA, sB);
        },
      },
      {
        id: 'paramsA',
        header: 'Params A',
        numeric: true,
        cell: (i) => {
          const value = elementsA(i);
          return value === null ? '—' : groupDigits(value);
        },
      },
      {
        id: 'paramsB',
        header: 'Params B',
        numeric: true,
        cell: (i) => {
          const value = elementsB(i);
          return value === null ? '—' : groupDigits(value);
        },
      },
      {
        id: 'delta',
        header: 'Δ params',
        numeric: true,
        cell: (i) => signed(finite(elementsB(i)) - finite(elementsA(i)), groupDigits),
      },
    ];
  }, [result, a, b]);

  const rowTitle = useMemo(() => {
    const headerA = headerOf(a);
    const headerB = headerOf(b);
    const { entries } = result;
    return (i: number) => {
      const parts: string[] = [];
      if (headerA && entries.rowA[i] >= 0) {
        parts.push(`A: ${tensorName(headerA.tensors, entries.rowA[i])}`);
      }
      if (headerB && entries.rowB[i] >= 0) {
        parts.push(`B: ${tensorName(headerB.tensors, entries.rowB[i])}`);
      }
      return parts.join('\n');
    };
  }, [result, a, b]);

  const toggleGroup = (group: DiffGroup) => {
    const groups = query.groups.includes(group) ? query.groups.filter((g) => g !== group) : [...query.groups, group];
    setQuery({ groups });
  };

  return (
    <div className="tensor-table-wrap">
      <div className="table-toolbar">
        <label>
          <span className="visually-hidden">Filter compared tensors</span>
          <input
            type="search"
            placeholder="filter: substring or /regex/ (aligned or full names)"
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
        {query.groups.map((group) => (
          <button key={group} type="button" className="chip" onClick={() => toggleGroup(group)}>
            {GROUP_LABELS[group]} ✕
          </button>
        ))}
        {query.module && (
          <button type="button" className="chip" onClick={() => setQuery({ module: '' })}>
            module: {query.module} ✕
          </button>
        )}
        <span className="muted" data-testid="compare-row-count">
          {groupDigits(result.entries.count)} keys · {groupDigits(order?.length ?? 0)} shown
        </span>
        {filterError && (
          <span className="error-text" role="alert">
            {filterError}
          </span>
        )}
      </div>
      <VirtualTable
        label="Compared tensors"
        columns={columns}
        order={order}
        sortKey={query.sortKey}
        descending={query.descending}
        onSort={(key) => setQuery(nextSort(query, key, NUMERIC_KEYS.has(key)))}
        className="compare-table"
        testId="compare-table-scroll"
        rowTitle={rowTitle}
        emptyText="No tensors match."
      />
    </div>
  );
}
