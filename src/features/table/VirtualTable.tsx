/**
 * The one virtualized table of the app (tensors, compared tensors, compared modules): @tanstack/react-table v8 for
 * headers and cells, lib/fixed-row-window for rows (a fixed row height, so nothing is kept per row). Rows are whatever `order` lists; sorting
 * and filtering happen elsewhere (the worker, or the caller).
 *
 * - Keyboard: a WAI-ARIA grid. The grid is one Tab stop; arrows, PageUp/PageDown, Home/End move the active cell
 *   (`aria-activedescendant`, so a cell scrolled out of the virtual window never takes the focus with it), Enter
 *   activates the row (opens its details), Ctrl/Cmd+C copies the active cell's full text.
 * - Widths: every column has a measured width except one flexible column (the name) that takes the free width and
 *   can be resized by dragging or with the keyboard on its handle. When the columns need more than the window, the
 *   table scrolls sideways inside itself; the page never does.
 * - `busy`: a query is running. The previous rows stay and a "working" note shows, instead of an empty table.
 */
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import {
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent as ReactPointerEvent,
  type ReactNode,
} from 'react';
import { moveGridCursor, type GridCursor } from './grid-keys';
import { useFixedRowWindow } from '../../lib/fixed-row-window';

/** Fixed row height: any of a million rows is placed by one multiplication, with nothing measured or kept per row. */
const ROW_HEIGHT = 28;
/** The sticky header row is one row high; rows start below it. */
const HEADER_HEIGHT = ROW_HEIGHT;
/** Horizontal padding of a cell (8 px each side) plus a pixel of border. */
const CELL_PADDING_PX = 17;
/** The flexible column never gets narrower than this by dragging. */
const MIN_FLEX_WIDTH_PX = 120;
/** The resize handle's upper bound (a name column wider than a 4K screen helps no one). */
const MAX_FLEX_WIDTH_PX = 4000;
/** One arrow press on the resize handle. */
const RESIZE_STEP_PX = 24;

export interface VirtualColumn<Key extends string> {
  id: Key;
  header: string;
  numeric?: boolean;
  /** Columns without a sort key cannot be sorted by. */
  sortable?: boolean;
  /**
   * Width of the content in `ch` of the table's monospace font (padding is added). The flexible column uses it as
   * its minimum and grows into the free width.
   */
  widthCh: number;
  flexible?: boolean;
  cell: (row: number) => ReactNode;
  /** The cell's complete text, for copying; defaults to what the cell renders when that is a string. */
  text?: (row: number) => string;
}

/** Which column the rows are sorted by (`index`: file order) and which way. */
export interface TableSort {
  sortKey: string;
  descending: boolean;
}

interface VirtualTableProps<Key extends string> {
  label: string;
  columns: ReadonlyArray<VirtualColumn<Key>>;
  /** Row ids in display order; null while the first answer is pending. */
  order: ArrayLike<number> | null;
  /** The sort in effect (a table's query or sort state, as `nextSort` takes and returns it). */
  sort: TableSort;
  onSort: (key: Key) => void;
  /** Extra class on the frame, for per-table styling. */
  className?: string;
  /** Test id of the scrolling grid element. */
  testId: string;
  /** Click or Enter on a row. */
  onActivate?: (row: number) => void;
  /** The row whose details are open (highlighted, `aria-selected`). */
  selectedRow?: number | null;
  rowTitle?: (row: number) => string | undefined;
  emptyText: string;
  /** A query for new rows is running: keep the current rows and say so. */
  busy?: boolean;
}

function clampFlex(width: number): number {
  return Math.min(MAX_FLEX_WIDTH_PX, Math.max(MIN_FLEX_WIDTH_PX, Math.round(width)));
}

function trackOf(column: VirtualColumn<string>, flexWidth: number | null): string {
  const width = `calc(${column.widthCh}ch + ${CELL_PADDING_PX}px)`;
  if (!column.flexible) {
    return width;
  }
  return flexWidth === null ? `minmax(${width}, 1fr)` : `${flexWidth}px`;
}

export function VirtualTable<Key extends string>({
  label,
  columns,
  order,
  sort,
  onSort,
  className,
  testId,
  onActivate,
  selectedRow = null,
  rowTitle,
  emptyText,
  busy = false,
}: VirtualTableProps<Key>) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const idPrefix = useId();
  const rowCount = order?.length ?? 0;
  const [cursor, setCursor] = useState<GridCursor | null>(null);
  const [flexWidth, setFlexWidth] = useState<number | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const flexHeader = useRef<HTMLDivElement>(null);
  // The flexible column's rendered width, for the resize handle's aria-valuenow (it changes with the window).
  const [flexRendered, setFlexRendered] = useState(0);
  useEffect(() => {
    const cell = flexHeader.current;
    if (!cell || typeof ResizeObserver === 'undefined') {
      return;
    }
    const observer = new ResizeObserver(() => setFlexRendered(Math.round(cell.getBoundingClientRect().width)));
    observer.observe(cell);
    return () => observer.disconnect();
  }, []);

  const rowWindow = useFixedRowWindow({
    count: rowCount,
    rowHeight: ROW_HEIGHT,
    overscan: 12,
    bodyOffset: HEADER_HEIGHT,
    scrollRef,
  });
  const virtualRows = rowWindow.rows;
  const visibleData = useMemo(
    () => (order ? virtualRows.map((item) => order[item.index]) : []),
    // The window's rows change identity exactly when the rows in view change.
    [order, virtualRows],
  );
  const columnDefs = useMemo<Array<ColumnDef<number>>>(
    () =>
      columns.map((column) => ({
        id: column.id,
        header: column.header,
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

  // A new order (filter, sort) can be shorter than the cursor position: keep the cursor inside it.
  const activeCursor = cursor && rowCount > 0 ? { row: Math.min(cursor.row, rowCount - 1), col: cursor.col } : null;
  const cellId = (row: number, col: number) => `${idPrefix}-r${row}-c${col}`;

  useEffect(() => {
    if (copied === null) {
      return;
    }
    const timer = setTimeout(() => setCopied(null), 1500);
    return () => clearTimeout(timer);
  }, [copied]);

  const gridTemplate = columns.map((column) => trackOf(column, flexWidth)).join(' ');
  const minWidth = `calc(${columns.reduce((sum, column) => sum + column.widthCh, 0)}ch + ${
    columns.length * CELL_PADDING_PX + (flexWidth ?? 0)
  }px)`;

  const moveTo = (next: GridCursor) => {
    setCursor(next);
    rowWindow.scrollToIndex(next.row);
    // Bring the active column into view when the table scrolls sideways.
    requestAnimationFrame(() => {
      document.getElementById(cellId(next.row, next.col))?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target !== event.currentTarget || !order) {
      return;
    }
    const current = activeCursor ?? { row: 0, col: 0 };
    if ((event.key === 'Enter' || event.key === ' ') && activeCursor && onActivate) {
      event.preventDefault();
      onActivate(order[activeCursor.row]);
      return;
    }
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'c' && activeCursor) {
      const column = columns[activeCursor.col];
      const row = order[activeCursor.row];
      const rendered = column.cell(row);
      const text = column.text?.(row) ?? (typeof rendered === 'string' ? rendered : null);
      if (text !== null && navigator.clipboard) {
        event.preventDefault();
        void navigator.clipboard.writeText(text).then(() => setCopied(`Copied ${column.header.toLowerCase()}`));
      }
      return;
    }
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? ROW_HEIGHT * 10) / ROW_HEIGHT) - 2);
    const next = activeCursor
      ? moveGridCursor(current, event.key, { rows: rowCount, cols: columns.length, page })
      : event.key.startsWith('Arrow') || event.key.startsWith('Page') || event.key === 'Home' || event.key === 'End'
        ? current
        : null;
    if (next) {
      event.preventDefault();
      moveTo(next);
    }
  };

  const startResize = (event: ReactPointerEvent<HTMLDivElement>, headerCell: HTMLElement | null) => {
    if (!headerCell) {
      return;
    }
    event.preventDefault();
    const startX = event.clientX;
    const startWidth = headerCell.getBoundingClientRect().width;
    const handle = event.currentTarget;
    handle.setPointerCapture(event.pointerId);
    const onMove = (move: PointerEvent) => setFlexWidth(clampFlex(startWidth + move.clientX - startX));
    const onUp = () => {
      handle.removeEventListener('pointermove', onMove);
      handle.removeEventListener('pointerup', onUp);
    };
    handle.addEventListener('pointermove', onMove);
    handle.addEventListener('pointerup', onUp);
  };

  const resizeBy = (delta: number, headerCell: HTMLElement | null) => {
    const current = flexWidth ?? headerCell?.getBoundingClientRect().width ?? 300;
    setFlexWidth(clampFlex(current + delta));
  };

  return (
    <div className={`tt-frame${className ? ` ${className}` : ''}`}>
      <div
        ref={scrollRef}
        className="tensor-table tt-scroll"
        role="grid"
        aria-label={label}
        aria-rowcount={rowCount + 1}
        aria-colcount={columns.length}
        aria-busy={busy}
        aria-activedescendant={activeCursor ? cellId(activeCursor.row, activeCursor.col) : undefined}
        tabIndex={0}
        data-testid={testId}
        onKeyDown={onKeyDown}
        onFocus={(event) => {
          if (event.target === event.currentTarget && !activeCursor && rowCount > 0) {
            setCursor({ row: 0, col: 0 });
          }
        }}
        style={{ ['--tt-columns' as string]: gridTemplate }}
      >
        <div className="tt-canvas" style={{ minWidth }}>
          <div className="tt-head" role="rowgroup">
            {table.getHeaderGroups().map((group) => (
              <div className="tt-row" role="row" aria-rowindex={1} key={group.id}>
                {group.headers.map((header, col) => {
                  const column = columns[col];
                  const sortable = column.sortable !== false;
                  const sorted = sort.sortKey === column.id ? (sort.descending ? 'descending' : 'ascending') : 'none';
                  return (
                    <div
                      key={header.id}
                      ref={column.flexible ? flexHeader : undefined}
                      role="columnheader"
                      aria-colindex={col + 1}
                      aria-sort={sortable ? sorted : undefined}
                      className={`tt-cell tt-${column.id}${column.numeric ? ' num' : ''}`}
                    >
                      {sortable ? (
                        <button type="button" onClick={() => onSort(column.id)} title={`Sort by ${column.header}`}>
                          {flexRender(header.column.columnDef.header, header.getContext())}
                          <span className="sort-mark" aria-hidden="true">
                            {sorted === 'ascending' ? ' ▲' : sorted === 'descending' ? ' ▼' : ''}
                          </span>
                        </button>
                      ) : (
                        flexRender(header.column.columnDef.header, header.getContext())
                      )}
                      {column.flexible && (
                        <div
                          className="tt-resize"
                          role="separator"
                          aria-orientation="vertical"
                          aria-label={`Resize the ${column.header} column`}
                          aria-valuenow={flexWidth ?? flexRendered}
                          aria-valuetext={`${flexWidth ?? flexRendered} pixels`}
                          aria-valuemin={MIN_FLEX_WIDTH_PX}
                          aria-valuemax={MAX_FLEX_WIDTH_PX}
                          tabIndex={0}
                          title="Drag to resize (double-click resets); arrow keys work too"
                          onPointerDown={(event) => startResize(event, event.currentTarget.parentElement)}
                          onDoubleClick={() => setFlexWidth(null)}
                          onKeyDown={(event) => {
                            const parent = event.currentTarget.parentElement;
                            if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
                              event.preventDefault();
                              resizeBy(event.key === 'ArrowRight' ? RESIZE_STEP_PX : -RESIZE_STEP_PX, parent);
                            } else if (event.key === 'Home' || event.key === 'Escape') {
                              event.preventDefault();
                              setFlexWidth(null);
                            }
                          }}
                        />
                      )}
                    </div>
                  );
                })}
              </div>
            ))}
          </div>
          <div className="tt-body" role="rowgroup" style={{ height: rowWindow.totalHeight }}>
            {rows.map((row, i) => {
              const item = virtualRows[i];
              if (!item) {
                return null;
              }
              const selected = selectedRow === row.original;
              const activeRow = activeCursor?.row === item.index;
              return (
                <div
                  key={item.index}
                  role="row"
                  aria-rowindex={item.index + 2}
                  aria-selected={onActivate ? selected : undefined}
                  className={`tt-row${selected ? ' selected' : ''}${activeRow ? ' active' : ''}`}
                  title={rowTitle?.(row.original)}
                  style={{ height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                  onClick={() => {
                    setCursor((now) => ({ row: item.index, col: now?.col ?? 0 }));
                    onActivate?.(row.original);
                  }}
                >
                  {row.getVisibleCells().map((cell, col) => {
                    const column = columns[col];
                    const active = activeRow && activeCursor?.col === col;
                    return (
                      <div
                        key={cell.id}
                        id={cellId(item.index, col)}
                        role="gridcell"
                        aria-colindex={col + 1}
                        className={`tt-cell tt-${column.id}${column.numeric ? ' num' : ''}${active ? ' active' : ''}`}
                      >
                        {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      </div>
                    );
                  })}
                </div>
              );
            })}
          </div>
        </div>
      </div>
      {order && rowCount === 0 && !busy && <p className="muted tt-overlay empty-rows">{emptyText}</p>}
      {(busy || order === null) && (
        <p className="tt-busy" role="status" data-testid={`${testId}-busy`}>
          working…
        </p>
      )}
      {copied && (
        <p className="tt-busy" role="status">
          {copied}
        </p>
      )}
    </div>
  );
}

/** The table's sort cycle: first click sorts (big numbers descending), second flips, third resets. */
export function nextSort<Key extends string>(
  current: TableSort,
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
