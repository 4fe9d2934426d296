/**
 * The one virtualized table of the app (tensors, compared tensors, compared modules): @tanstack/react-table v8 for
 * headers and cells, lib/fixed-row-window for rows (a fixed row height, so nothing is kept per row). Rows are
 * whatever `order` lists; sorting and filtering happen elsewhere (the worker, or the caller).
 *
 * - Keyboard (use-grid-keyboard.ts): a WAI-ARIA grid, one Tab stop; arrows, PageUp/PageDown, Home/End move the
 *   active cell, Enter activates the row (opens its details), Ctrl/Cmd+C copies the active cell's full text
 *   (cell-copy.ts).
 * - Widths (column-fit.ts): every column has a measured width except one flexible column (the name), which grows
 *   to its content as far as the window allows and can be resized by dragging or from the keyboard
 *   (use-column-resize.ts). At narrow widths the columns marked `givesWay` are hidden before the name is cut; its
 *   names are then cut to the characters the column holds, shared text first (ElidedName, name-elision.ts). Only
 *   when that is not enough does the table scroll sideways inside itself; the page never does.
 * - `busy`: a query is running. The previous rows stay and a "working" note shows, instead of an empty table.
 */
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import { useId, useMemo, useRef, type ReactNode } from 'react';
import { useFixedRowWindow } from '../../lib/fixed-row-window';
import { useCellCopy } from './cell-copy';
import { CELL_PADDING_PX, PROBE_CHARS, charsInCell, columnsGivingWay, useTableMetrics } from './column-fit';
import { NameFitContext, type NameFit } from './ElidedName';
import { sharedPieces } from './name-elision';
import { MAX_FLEX_WIDTH_PX, MIN_FLEX_WIDTH_PX, useColumnResize } from './use-column-resize';
import { useGridKeyboard } from './use-grid-keyboard';

/** Fixed row height: any of a million rows is placed by one multiplication, with nothing measured or kept per row. */
const ROW_HEIGHT = 28;
/** The sticky header row is one row high; rows start below it. */
const HEADER_HEIGHT = ROW_HEIGHT;

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
  /** The flexible column's widest content in `ch`: it grows to this and no further (unset: all the free width). */
  contentCh?: number;
  /** Hidden when the window is too narrow for the name column's content; lower gives way first. */
  givesWay?: number;
  cell: (row: number) => ReactNode;
  /** The cell's complete text, for copying (and, in the flexible column, for what the visible names share). */
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

/** A column's grid track; `fill`: the flexible column takes all the free width (some columns gave way for it). */
function trackOf(column: VirtualColumn<string>, flexWidth: number | null, fill: boolean): string {
  const width = `calc(${column.widthCh}ch + ${CELL_PADDING_PX}px)`;
  if (!column.flexible) {
    return width;
  }
  if (flexWidth !== null) {
    return `${flexWidth}px`;
  }
  return column.contentCh === undefined || fill
    ? `minmax(${width}, 1fr)`
    : `minmax(${width}, calc(${Math.max(column.widthCh, column.contentCh)}ch + ${CELL_PADDING_PX}px))`;
}

export function VirtualTable<Key extends string>({
  label,
  columns: allColumns,
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
  const probeRef = useRef<HTMLSpanElement>(null);
  const idPrefix = useId();
  const rowCount = order?.length ?? 0;
  const resize = useColumnResize();
  const { availablePx, chPx } = useTableMetrics(scrollRef, probeRef);
  const hidden = useMemo(
    () => (resize.flexWidth === null ? columnsGivingWay(allColumns, availablePx, chPx) : new Set<string>()),
    [allColumns, availablePx, chPx, resize.flexWidth],
  );
  const columns = useMemo(() => allColumns.filter((column) => !hidden.has(column.id)), [allColumns, hidden]);
  const { copied, copy } = useCellCopy();

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
  const flexColumn = columns.find((column) => column.flexible);
  const budget = charsInCell(resize.rendered, chPx);
  const nameFit = useMemo<NameFit>(
    () => ({
      budget,
      shared: flexColumn?.text ? sharedPieces(visibleData.map(flexColumn.text)) : new Set(),
    }),
    [budget, flexColumn, visibleData],
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
  const cellId = (row: number, col: number) => `${idPrefix}-r${row}-c${col}`;
  const keyboard = useGridKeyboard({
    rowCount,
    colCount: columns.length,
    rowHeight: ROW_HEIGHT,
    order,
    scrollRef,
    scrollToIndex: rowWindow.scrollToIndex,
    cellId,
    onActivate,
    onCopy: (row, col) => copy(columns[col], row),
  });
  const activeCursor = keyboard.activeCursor;

  const gridTemplate = columns.map((column) => trackOf(column, resize.flexWidth, hidden.size > 0)).join(' ');
  const minWidth = `calc(${columns.reduce((sum, column) => sum + column.widthCh, 0)}ch + ${
    columns.length * CELL_PADDING_PX + (resize.flexWidth ?? 0)
  }px)`;
  const hiddenHeaders = allColumns.filter((column) => hidden.has(column.id)).map((column) => column.header);

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
        onKeyDown={keyboard.onKeyDown}
        onFocus={keyboard.onFocus}
        style={{ ['--tt-columns' as string]: gridTemplate }}
      >
        <span ref={probeRef} className="tt-ch-probe" aria-hidden="true">
          {'0'.repeat(PROBE_CHARS)}
        </span>
        <div className="tt-canvas" style={{ minWidth }}>
          <div className="tt-head" role="rowgroup">
            {table.getHeaderGroups().map((group) => (
              <div className="tt-row" role="row" aria-rowindex={1} key={group.id}>
                {group.headers.map((header, col) => (
                  <ColumnHeader
                    key={header.id}
                    column={columns[col]}
                    index={col}
                    label={flexRender(header.column.columnDef.header, header.getContext())}
                    sort={sort}
                    onSort={onSort}
                    resize={resize}
                  />
                ))}
              </div>
            ))}
          </div>
          <NameFitContext.Provider value={nameFit}>
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
                      keyboard.pointAtRow(item.index);
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
          </NameFitContext.Provider>
        </div>
      </div>
      {hiddenHeaders.length > 0 && (
        <p className="muted tt-hidden-note" data-testid={`${testId}-hidden-columns`}>
          {hiddenHeaders.join(' and ')} hidden to leave the names room at this width; widen the window to see them.
        </p>
      )}
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

/** A header cell: the sort button and, on the flexible column, its resize handle. */
function ColumnHeader<Key extends string>({
  column,
  index,
  label,
  sort,
  onSort,
  resize,
}: {
  column: VirtualColumn<Key>;
  index: number;
  label: ReactNode;
  sort: TableSort;
  onSort: (key: Key) => void;
  resize: ReturnType<typeof useColumnResize>;
}) {
  const sortable = column.sortable !== false;
  const sorted = sort.sortKey === column.id ? (sort.descending ? 'descending' : 'ascending') : 'none';
  const width = resize.flexWidth ?? resize.rendered;
  return (
    <div
      ref={column.flexible ? resize.headerRef : undefined}
      role="columnheader"
      aria-colindex={index + 1}
      aria-sort={sortable ? sorted : undefined}
      className={`tt-cell tt-${column.id}${column.numeric ? ' num' : ''}`}
    >
      {sortable ? (
        <button type="button" onClick={() => onSort(column.id)} title={`Sort by ${column.header}`}>
          {label}
          <span className="sort-mark" aria-hidden="true">
            {sorted === 'ascending' ? ' ▲' : sorted === 'descending' ? ' ▼' : ''}
          </span>
        </button>
      ) : (
        label
      )}
      {column.flexible && (
        <div
          className="tt-resize"
          role="separator"
          aria-orientation="vertical"
          aria-label={`Resize the ${column.header} column`}
          aria-valuenow={width}
          aria-valuetext={`${width} pixels`}
          aria-valuemin={MIN_FLEX_WIDTH_PX}
          aria-valuemax={MAX_FLEX_WIDTH_PX}
          tabIndex={0}
          title="Drag to resize (double-click resets); arrow keys work too"
          {...resize.handleProps}
        />
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
