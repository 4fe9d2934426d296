/**
 * The tensor table: @tanstack/react-table (v8) for columns and headers, @tanstack/react-virtual for rows.
 * Sorting and filtering run in the worker (core/table-query.ts); this component renders only the rows in view,
 * decoding each visible name on demand from the columnar model.
 */
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import { markFirstRowsPainted } from '../../lib/perf-marks';
import { DTYPE_BITS_BY_CODE, dtypeName } from '../../core/dtypes';
import { MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import { tensorName, tensorShape, type ParsedHeader } from '../../core/model';
import type { SortKey } from '../../core/table-query';
import { tensorBytes } from '../../core/table-query';
import { shortenForDisplay } from '../../lib/display-text';
import { formatBytes, formatShape, groupDigits } from '../../lib/format';
import { useAppStore } from '../../state/store';
import type { ShardInfo } from '../../core/result';
import { TableToolbar } from './TableToolbar';
import { TensorDetails } from './TensorDetails';

/** Fixed row height: the virtualizer can then place any of 250,000 rows without measuring. */
const ROW_HEIGHT = 28;

interface TableMeta {
  header: ParsedHeader;
  /** Sharded models: the shard file of each row. */
  shards?: ShardInfo;
}

/**
 * The Shard column, shown only for sharded models. Rows are concatenated in shard order, so sorting by shard is
 * sorting by row index (`sortKey`).
 */
const SHARD_COLUMN: ColumnDef<number> & { id: string; sortKey: SortKey } = {
  id: 'shard',
  sortKey: 'index',
  header: 'Shard',
  cell: (context) => {
    const { shards } = context.table.options.meta as TableMeta;
    const file = shards?.report.shards[shards.shardOfRow[context.row.original]]?.file ?? '';
    return <span title={file}>{file}</span>;
  },
};

function dtypeLabel(header: ParsedHeader, row: number): string {
  return dtypeName(header.tensors.dtype[row]) ?? header.unknownDtypes.get(row) ?? '?';
}

function offset(value: number): string {
  return Number.isNaN(value) ? '—' : groupDigits(value);
}

const COLUMNS: Array<ColumnDef<number> & { id: SortKey; numeric?: boolean }> = [
  {
    id: 'name',
    header: 'Name',
    cell: (context) => {
      const { header } = context.table.options.meta as TableMeta;
      const name = shortenForDisplay(tensorName(header.tensors, context.row.original), MAX_NAME_DISPLAY_CHARS);
      return <span title={name}>{name}</span>;
    },
  },
  {
    id: 'dtype',
    header: 'Dtype',
    cell: (context) => dtypeLabel((context.table.options.meta as TableMeta).header, context.row.original),
  },
  {
    id: 'shape',
    header: 'Shape',
    cell: (context) =>
      formatShape(tensorShape((context.table.options.meta as TableMeta).header.tensors, context.row.original)),
  },
  {
    id: 'elements',
    header: 'Elements',
    numeric: true,
    cell: (context) =>
      groupDigits((context.table.options.meta as TableMeta).header.tensors.elements[context.row.original]),
  },
  {
    id: 'bytes',
    header: 'Bytes',
    numeric: true,
    cell: (context) => {
      const { header } = context.table.options.meta as TableMeta;
      const bytes = tensorBytes(header.tensors, context.row.original);
      return <span title={`${groupDigits(bytes)} bytes`}>{formatBytes(bytes)}</span>;
    },
  },
  {
    id: 'begin',
    header: 'Begin',
    numeric: true,
    cell: (context) => offset((context.table.options.meta as TableMeta).header.tensors.begin[context.row.original]),
  },
  {
    id: 'end',
    header: 'End',
    numeric: true,
    cell: (context) => offset((context.table.options.meta as TableMeta).header.tensors.end[context.row.original]),
  },
];

export function TensorTable({ header, loadId, shards }: { header: ParsedHeader; loadId: number; shards?: ShardInfo }) {
  const order = useAppStore((state) => state.order);
  const query = useAppStore((state) => state.query);
  const setQuery = useAppStore((state) => state.setQuery);
  const selectedRow = useAppStore((state) => state.selectedRow);
  const selectRow = useAppStore((state) => state.selectRow);
  const scrollRef = useRef<HTMLDivElement>(null);
  const rowCount = order?.length ?? 0;

  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const virtualRows = virtualizer.getVirtualItems();
  const visibleData = useMemo(
    () => (order ? virtualRows.map((item) => order[item.index]) : []),
    // The virtual items array changes identity on every scroll step, which is exactly when rows change.
    [order, virtualRows],
  );

  const columns = useMemo(
    () => (shards ? [COLUMNS[0], SHARD_COLUMN, ...COLUMNS.slice(1)] : COLUMNS) as Array<ColumnDef<number>>,
    [shards],
  );
  const table = useReactTable<number>({
    data: visibleData,
    columns,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualFiltering: true,
    meta: { header, shards } satisfies TableMeta,
  });
  const rows = table.getRowModel().rows;
  useEffect(() => {
    if (rows.length > 0) {
      markFirstRowsPainted(loadId);
    }
  }, [rows.length, loadId]);

  const toggleSort = (key: SortKey) => {
    if (query.sortKey !== key) {
      setQuery({ sortKey: key, descending: key === 'bytes' || key === 'elements' });
    } else if (query.descending === (key === 'bytes' || key === 'elements')) {
      setQuery({ descending: !query.descending });
    } else {
      setQuery({ sortKey: 'index', descending: false });
    }
  };

  return (
    <div className="tensor-table-wrap">
      <TableToolbar header={header} shown={rowCount} />
      <div
        className={shards ? 'tensor-table tt-sharded' : 'tensor-table'}
        role="table"
        aria-label="Tensors"
        aria-rowcount={rowCount + 1}
      >
        <div className="tt-head" role="rowgroup">
          {table.getHeaderGroups().map((group) => (
            <div className="tt-row" role="row" key={group.id}>
              {group.headers.map((column) => {
                const key = ((column.column.columnDef as { sortKey?: SortKey }).sortKey ?? column.column.id) as SortKey;
                const sorted = query.sortKey === key ? (query.descending ? 'descending' : 'ascending') : 'none';
                const numeric = (column.column.columnDef as { numeric?: boolean }).numeric;
                return (
                  <div
                    key={column.id}
                    role="columnheader"
                    aria-sort={sorted}
                    className={`tt-cell tt-${key}${numeric ? ' num' : ''}`}
                  >
                    <button type="button" onClick={() => toggleSort(key)} title={`Sort by ${key}`}>
                      {flexRender(column.column.columnDef.header, column.getContext())}
                      <span className="sort-mark" aria-hidden="true">
                        {sorted === 'ascending' ? ' ▲' : sorted === 'descending' ? ' ▼' : ''}
                      </span>
                    </button>
                  </div>
                );
              })}
            </div>
          ))}
        </div>
        <div className="tt-body" ref={scrollRef} role="rowgroup" data-testid="table-scroll">
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {rows.map((row, i) => {
              const item = virtualRows[i];
              if (!item) {
                return null;
              }
              const tensorRow = row.original;
              return (
                <div
                  key={item.key}
                  role="row"
                  aria-rowindex={item.index + 2}
                  aria-selected={selectedRow === tensorRow}
                  className={`tt-row${selectedRow === tensorRow ? ' selected' : ''}`}
                  style={{ height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                  onClick={() => selectRow(tensorRow)}
                >
                  {row.getVisibleCells().map((cell) => {
                    const numeric = (cell.column.columnDef as { numeric?: boolean }).numeric;
                    return (
                      <div key={cell.id} role="cell" className={`tt-cell tt-${cell.column.id}${numeric ? ' num' : ''}`}>
                        {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      </div>
                    );
                  })}
                </div>
              );
            })}
          </div>
          {order && rowCount === 0 && <p className="muted empty-rows">No tensors match.</p>}
        </div>
      </div>
      {selectedRow !== null && selectedRow < header.tensors.count && (
        <TensorDetails header={header} row={selectedRow} />
      )}
    </div>
  );
}

export function bitsOf(header: ParsedHeader, row: number): number {
  return DTYPE_BITS_BY_CODE[header.tensors.dtype[row]];
}
