/**
 * The virtualized table the tensor table uses (@tanstack/react-table v8 for headers and cells, @tanstack/react-virtual
 * for rows, fixed row height, the same `tensor-table` styles), made generic over its columns so the comparison's
 * tensor and module views share it. Rows are whatever `order` lists; sorting and filtering happen elsewhere.
 */
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, type ReactNode } from 'react';

/** Fixed row height: the virtualizer can then place any of 250,000 rows without measuring. */
const ROW_HEIGHT = 28;

export interface VirtualColumn<Key extends string> {
  id: Key;
  header: string;
  numeric?: boolean;
  /** Columns without a sort key cannot be sorted by. */
  sortable?: boolean;
  cell: (row: number) => ReactNode;
}

interface VirtualTableProps<Key extends string> {
  label: string;
  columns: ReadonlyArray<VirtualColumn<Key>>;
  /** Row ids in display order; null while the first answer is pending. */
  order: ArrayLike<number> | null;
  sortKey: string;
  descending: boolean;
  onSort: (key: Key) => void;
  /** Extra class that sets the grid columns. */
  className: string;
  testId: string;
  onRowClick?: (row: number) => void;
  rowTitle?: (row: number) => string | undefined;
  emptyText: string;
}

export function VirtualTable<Key extends string>({
  label,
  columns,
  order,
  sortKey,
  descending,
  onSort,
  className,
  testId,
  onRowClick,
  rowTitle,
  emptyText,
}: VirtualTableProps<Key>) {
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
  const columnDefs = useMemo<Array<ColumnDef<number> & { numeric?: boolean; sortable?: boolean }>>(
    () =>
      columns.map((column) => ({
        id: column.id,
        header: column.header,
        numeric: column.numeric,
        sortable: column.sortable !== false,
        cell: (context) => column.cell(context.row.original),
      })),
    [columns],
  );
  const table = useReactTable<number>({
    data: visibleData,
    columns: columnDefs,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualFiltering: true,
  });
  const rows = table.getRowModel().rows;

  return (
    <div className={`tensor-table ${className}`} role="table" aria-label={label} aria-rowcount={rowCount + 1}>
      <div className="tt-head" role="rowgroup">
        {table.getHeaderGroups().map((group) => (
          <div className="tt-row" role="row" key={group.id}>
            {group.headers.map((header) => {
              const def = header.column.columnDef as { numeric?: boolean; sortable?: boolean };
              const key = header.column.id as Key;
              const sorted = sortKey === key ? (descending ? 'descending' : 'ascending') : 'none';
              return (
                <div
                  key={header.id}
                  role="columnheader"
                  aria-sort={def.sortable ? sorted : undefined}
                  className={`tt-cell tt-${key}${def.numeric ? ' num' : ''}`}
                >
                  {def.sortable ? (
                    <button
                      type="button"
                      onClick={() => onSort(key)}
                      title={`Sort by ${header.column.columnDef.header as string}`}
                    >
                      {flexRender(header.column.columnDef.header, header.getContext())}
                      <span className="sort-mark" aria-hidden="true">
                        {sorted === 'ascending' ? ' ▲' : sorted === 'descending' ? ' ▼' : ''}
                      </span>
                    </button>
                  ) : (
                    flexRender(header.column.columnDef.header, header.getContext())
                  )}
                </div>
              );
            })}
          </div>
        ))}
      </div>
      <div className="tt-body" ref={scrollRef} role="rowgroup" data-testid={testId}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {rows.map((row, i) => {
            const item = virtualRows[i];
            if (!item) {
              return null;
            }
            return (
              <div
                key={item.key}
                role="row"
                aria-rowindex={item.index + 2}
                className="tt-row"
                title={rowTitle?.(row.original)}
                style={{ height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                onClick={onRowClick ? () => onRowClick(row.original) : undefined}
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
        {order && rowCount === 0 && <p className="muted empty-rows">{emptyText}</p>}
      </div>
    </div>
  );
}

/** The tensor table's sort cycle: first click sorts (big numbers descending), second flips, third resets. */
export function nextSort<Key extends string>(
  current: { sortKey: string; descending: boolean },
  key: Key,
  numericDescending: boolean,
): { sortKey: Key | 'index'; descending: boolean } {
  if (current.sortKey !== key) {
    return { sortKey: key, descending: numericDescending };
  }
  if (current.descending === numericDescending) {
    return { sortKey: key, descending: !current.descending };
  }
  return { sortKey: 'index', descending: false };
}
