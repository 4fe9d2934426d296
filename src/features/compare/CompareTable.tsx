/**
 * Every aligned key with its group, dtypes, shapes and parameters on both sides. Sorting and filtering run in the
 * worker (core/compare/compare-query.ts); cells decode names and shapes on demand from each side's columns.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { DIFF_GROUPS, type DiffGroup } from '../../core/compare/diff';
import type { CompareSortKey } from '../../core/compare/compare-query';
import { dtypeName } from '../../core/dtypes';
import { tensorName, type ParsedHeader } from '../../core/model';
import { formatTensorShape, groupDigits } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import type { CompareResult, LoadResult } from '../../core/result';
import { GROUP_LABELS, signed } from './labels';
import { TABLE_WIDTH_SAMPLE_ROWS } from '../../core/analysis/analysis-limits';
import { widestShapeChars } from '../../core/analysis/table-widths';
import { ElidedName } from '../table/ElidedName';
import { MAX_TAIL_CHARS } from '../table/name-elision';
import { FilterChip, QueryToolbar } from '../table/TableToolbar';
import { nextSort, VirtualTable, type VirtualColumn } from '../table/VirtualTable';

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

/** One side's element count; a dash where that side does not have the tensor. */
function elementsColumn(
  id: 'paramsA' | 'paramsB',
  header: string,
  elementsOf: (i: number) => number | null,
): VirtualColumn<CompareSortKey> {
  return {
    id,
    header,
    numeric: true,
    widthCh: 15,
    cell: (i) => {
      const value = elementsOf(i);
      return value === null ? '—' : groupDigits(value);
    },
  };
}

export function CompareTable({ result, a, b }: { result: CompareResult; a: LoadResult; b: LoadResult }) {
  const order = useAppStore((state) => state.compareOrder);
  const query = useAppStore((state) => state.compareQuery);
  const setQuery = useAppStore((state) => state.setCompareQuery);
  const filterError = useAppStore((state) => state.compareFilterError);
  const commitFilter = useMemo(() => (filter: string) => setQuery({ filter }), [setQuery]);
  const revealPending = useAppStore((state) => state.compareTableRevealPending);
  const revealed = useAppStore((state) => state.compareTableRevealed);
  const wrap = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (revealPending) {
      wrap.current?.scrollIntoView({ block: 'start' });
      revealed();
    }
  }, [revealPending, revealed]);
  // Which query the rows on screen answer: every query change re-queries the worker, and every answer is a new
  // array, so the table is working from a query change until a new order arrives (the rows on screen stay).
  const [answered, setAnswered] = useState({ order, query });
  if (answered.order !== order) {
    setAnswered({ order, query });
  }
  const busy = order === null || answered.query !== query;

  const { columns, fullNames } = useMemo((): {
    columns: Array<VirtualColumn<CompareSortKey>>;
    fullNames?: (i: number) => string;
  } => {
    const headerA = headerOf(a);
    const headerB = headerOf(b);
    const { entries } = result;
    if (!headerA || !headerB) {
      return { columns: [] };
    }
    const nameA = (i: number) => tensorName(headerA.tensors, entries.rowA[i]);
    const nameB = (i: number) => tensorName(headerB.tensors, entries.rowB[i]);
    // A stacked-experts entry shows its per-expert Hugging Face tensors together: "128 × [768, 2048]" and their sum.
    const stackedOn = (side: 'a' | 'b', i: number) => entries.stackedSide === side && entries.stacked[i] > 0;
    const elementsA = (i: number) =>
      stackedOn('a', i)
        ? entries.stackedElements[i]
        : entries.rowA[i] >= 0
          ? headerA.tensors.elements[entries.rowA[i]]
          : null;
    const elementsB = (i: number) =>
      stackedOn('b', i)
        ? entries.stackedElements[i]
        : entries.rowB[i] >= 0
          ? headerB.tensors.elements[entries.rowB[i]]
          : null;
    const shapeText = (side: 'a' | 'b', header: ParsedHeader, row: number, i: number) =>
      row < 0
        ? null
        : stackedOn(side, i)
          ? `${entries.stacked[i]} × ${formatTensorShape(header.tensors, row)}`
          : formatTensorShape(header.tensors, row);
    const finite = (value: number | null) => (value !== null && Number.isFinite(value) ? value : 0);
    const alignedKey = (i: number) =>
      entries.rowA[i] >= 0 ? nameA(i).slice(entries.stripA[i]) : nameB(i).slice(entries.stripB[i]);
    const fullNames = (i: number) =>
      [entries.rowA[i] >= 0 ? `A: ${nameA(i)}` : '', entries.rowB[i] >= 0 ? `B: ${nameB(i)}` : '']
        .filter(Boolean)
        .join('\n');
    const columns: Array<VirtualColumn<CompareSortKey>> = [
      {
        id: 'name',
        header: 'Tensor (aligned)',
        flexible: true,
        widthCh: MAX_TAIL_CHARS + 4,
        cell: (i) => <ElidedName name={alignedKey(i)} title={fullNames(i)} />,
        text: alignedKey,
      },
      {
        id: 'status',
        header: 'Status',
        widthCh: 14,
        cell: (i) => {
          const group = DIFF_GROUPS[entries.status[i]];
          return <span className={`diff-status diff-${group}`}>{GROUP_LABELS[group]}</span>;
        },
      },
      {
        id: 'dtype',
        header: 'Dtype A → B',
        widthCh: 18,
        cell: (i) => {
          const dA = entries.rowA[i] >= 0 ? dtypeOf(headerA, entries.rowA[i]) : null;
          const dB = entries.rowB[i] >= 0 ? dtypeOf(headerB, entries.rowB[i]) : null;
          return bothSides(dA, dB);
        },
      },
      {
        id: 'shape',
        header: 'Shape A → B',
        // Sized from the first rows of each side (a cut shape keeps its full text as the tooltip).
        widthCh: Math.min(
          48,
          Math.max(
            20,
            widestShapeChars(headerA.tensors, 0, TABLE_WIDTH_SAMPLE_ROWS),
            widestShapeChars(headerB.tensors, 0, TABLE_WIDTH_SAMPLE_ROWS),
          ),
        ),
        cell: (i) => {
          const sA = shapeText('a', headerA, entries.rowA[i], i);
          const sB = shapeText('b', headerB, entries.rowB[i], i);
          const text = bothSides(sA, sB);
          return <span title={text}>{text}</span>;
        },
      },
      elementsColumn('paramsA', 'Elements A', elementsA),
      elementsColumn('paramsB', 'Elements B', elementsB),
      {
        id: 'delta',
        header: 'Δ elements',
        numeric: true,
        widthCh: 16,
        cell: (i) => signed(finite(elementsB(i)) - finite(elementsA(i)), groupDigits),
      },
    ];
    return { columns, fullNames };
  }, [result, a, b]);

  const toggleGroup = (group: DiffGroup) => {
    const groups = query.groups.includes(group) ? query.groups.filter((g) => g !== group) : [...query.groups, group];
    setQuery({ groups });
  };

  return (
    <div className="tensor-table-wrap" ref={wrap}>
      <QueryToolbar
        filter={{
          value: query.filter,
          onCommit: commitFilter,
          label: 'Filter compared tensors (aligned or full names)',
          placeholder: 'Filter names: text or /regex/',
          error: filterError,
        }}
        count={{
          total: result.entries.count,
          noun: ['key', 'keys'],
          shown: order ? order.length : null,
          busy,
          testId: 'compare-row-count',
        }}
      >
        {query.groups.map((group) => (
          <FilterChip key={group} onRemove={() => toggleGroup(group)}>
            {GROUP_LABELS[group]}
          </FilterChip>
        ))}
        {query.module && <FilterChip onRemove={() => setQuery({ module: '' })}>module: {query.module}</FilterChip>}
      </QueryToolbar>
      <VirtualTable
        label="Compared tensors"
        columns={columns}
        order={order}
        sort={query}
        onSort={(key) => setQuery(nextSort(query, key, NUMERIC_KEYS.has(key)))}
        className="compare-table"
        testId="compare-table-scroll"
        rowTitle={fullNames}
        busy={busy}
        emptyText="No tensors match."
      />
    </div>
  );
}
