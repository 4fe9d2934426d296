/**
 * Rows and columns of a tensor whose every value is zero. In a weight [out, in] a zero row is an output the layer
 * never drives (a pruned or dead neuron), a zero column an input it ignores (the neuron of the layer before that a
 * structured pruning removed); a run of zero rows at a tensor's end is also what a write that stopped early, or a
 * download whose missing part was filled with zeros, leaves behind. A whole-tensor count of zeros cannot tell these
 * apart from sparsity spread through the values.
 *
 * Cheap on a dense tensor by construction: a row is read only up to its first non-zero value (the first, almost
 * always), and columns are checked only while some column has shown no non-zero value yet, which after the first
 * rows of a dense weight is none. Pieces may arrive in any order and split rows anywhere. Pure.
 */
import { zeroCodeMarks } from './decode';
import { matrixShape } from './grid';
import { IndexRunsBuilder } from './index-runs';

/** Runs listed per kind; the counts stay exact. */
export const MAX_ZERO_RUNS = 20;

/**
 * The fewest values a line may have to be looked at: a few values can all be zero by chance in a trained weight
 * rounded to few bits (a 3-wide kernel line of an int8 convolution); eight in a row, by chance, practically never.
 */
export const MIN_LINE_LENGTH = 8;

/** Rows tracked: one byte each (16 MiB at most), so a tensor of more rows is not looked at by row. */
const MAX_ROWS_TRACKED = 1 << 24;

/** Columns tracked: four bytes each (16 MiB at most), so a tensor of longer rows is not looked at by column. */
export const MAX_COLUMNS_TRACKED = 1 << 22;

/** Row states. */
const UNREAD = 0;
const ZERO_SO_FAR = 1;
const NON_ZERO = 2;

export interface ZeroLineRuns {
  /** Lines whose every value is zero (-0 included; NaN is not zero), of `of` lines read. */
  count: number;
  of: number;
  /** The zero lines as [first, last] runs of indices, ascending, at most MAX_ZERO_RUNS of them. */
  runs: Array<[number, number]>;
}

export interface ZeroLines {
  /** The dimensions a row index runs over: the tensor's every dimension but the last. */
  rowDims: number[];
  /** Rows (every index but the last, flattened row-major over `rowDims`) all zero; null when none is. */
  rows: ZeroLineRuns | null;
  /** Columns (a 2-D tensor's second index) zero in every row; only for a tensor read whole. Null when none is. */
  columns: ZeroLineRuns | null;
}

export class ZeroLinesTracker {
  private readonly cols: number;
  private readonly rowState: Uint8Array | null;
  /** Columns no non-zero value has been seen in, in no order; the first `unseenLength` entries count. */
  private readonly unseen: Int32Array;
  private unseenLength: number;

  /** `shape`: the tensor's, seen as a matrix of rows (every index but the last) and columns (the last). */
  constructor(private readonly shape: readonly number[]) {
    const { rows, cols } = matrixShape(shape);
    this.cols = cols;
    const dims = shape.length;
    const lines = dims >= 2 && rows >= 2 && cols >= 2;
    this.rowState = lines && cols >= MIN_LINE_LENGTH && rows <= MAX_ROWS_TRACKED ? new Uint8Array(rows) : null;
    const columns = lines && dims === 2 && rows >= MIN_LINE_LENGTH && cols <= MAX_COLUMNS_TRACKED;
    this.unseen = new Int32Array(columns ? cols : 0);
    for (let c = 0; c < this.unseen.length; c++) {
      this.unseen[c] = c;
    }
    this.unseenLength = this.unseen.length;
  }

  /** Values of elements `first`, `first + 1`, … in row-major order. */
  add(values: ArrayLike<number>, first: number): void {
    this.addItems(values, first, null);
  }

  /** Codes of an 8- or 16-bit float (decode.ts's codesOf) with the table of their values, as `add` takes values. */
  addCodes(codes: Uint8Array | Uint16Array, table: Float32Array, first: number): void {
    this.addItems(codes, first, zeroCodeMarks(table));
  }

  /** `zeroCodes`: null when `items` are values, else 1 at each code whose value is zero. */
  private addItems(items: ArrayLike<number>, first: number, zeroCodes: Uint8Array | null): void {
    const { cols, rowState } = this;
    if (rowState === null && this.unseenLength === 0) {
      return;
    }
    const n = items.length;
    let row = Math.floor(first / cols);
    let col = first - row * cols;
    let i = 0;
    while (i < n) {
      const end = Math.min(n, i + (cols - col));
      // Where the piece of this row holds its first non-zero value, when that was looked for.
      let nonZeroAt = i;
      if (rowState !== null && rowState[row] !== NON_ZERO) {
        while (nonZeroAt < end && (zeroCodes === null ? items[nonZeroAt] === 0 : zeroCodes[items[nonZeroAt]] === 1)) {
          nonZeroAt++;
        }
        rowState[row] = nonZeroAt < end ? NON_ZERO : ZERO_SO_FAR;
      }
      // A piece of zeros shows no column a non-zero value.
      if (this.unseenLength > 0 && nonZeroAt < end) {
        this.seeColumns(items, i, col, end - i, zeroCodes);
      }
      i = end;
      row++;
      col = 0;
    }
  }

  /** Drops from `unseen` each column among `col`…`col + length - 1` whose item, `items[offset + …]`, is not 0. */
  private seeColumns(
    items: ArrayLike<number>,
    offset: number,
    col: number,
    length: number,
    zeroCodes: Uint8Array | null,
  ): void {
    const { unseen } = this;
    let k = 0;
    while (k < this.unseenLength) {
      const c = unseen[k] - col;
      if (c >= 0 && c < length) {
        const item = items[offset + c];
        if (zeroCodes === null ? item !== 0 : zeroCodes[item] === 0) {
          unseen[k] = unseen[--this.unseenLength];
          continue;
        }
      }
      k++;
    }
  }

  /** `wholeRead`: every element was read, so columns can be told (a row sample says nothing of the rows left out). */
  result(wholeRead: boolean): ZeroLines | null {
    const rows = this.zeroRows();
    const columns = wholeRead && this.unseen.length > 0 ? this.zeroColumns() : null;
    return rows === null && columns === null ? null : { rowDims: this.shape.slice(0, -1), rows, columns };
  }

  private zeroRows(): ZeroLineRuns | null {
    const { rowState } = this;
    if (rowState === null) {
      return null;
    }
    const runs = new IndexRunsBuilder(MAX_ZERO_RUNS);
    let read = 0;
    for (let row = 0; row < rowState.length; row++) {
      if (rowState[row] !== UNREAD) {
        read++;
        if (rowState[row] === ZERO_SO_FAR) {
          runs.add(row);
        }
      }
    }
    return linesOf(runs, read);
  }

  private zeroColumns(): ZeroLineRuns | null {
    const runs = new IndexRunsBuilder(MAX_ZERO_RUNS);
    this.unseen
      .subarray(0, this.unseenLength)
      .sort()
      .forEach((col) => runs.add(col));
    return linesOf(runs, this.cols);
  }

  /** Per row: read or not, zero or not; null when rows are not looked at. */
  rowZero(): { read: (row: number) => boolean; zero: (row: number) => boolean; rows: number } | null {
    const { rowState } = this;
    return rowState === null
      ? null
      : {
          read: (row) => rowState[row] !== UNREAD,
          zero: (row) => rowState[row] === ZERO_SO_FAR,
          rows: rowState.length,
        };
  }

  /** 1 at each column zero in every row read; null when columns are not looked at. */
  columnZero(): Uint8Array | null {
    if (this.unseen.length === 0) {
      return null;
    }
    const zero = new Uint8Array(this.cols);
    this.unseen.subarray(0, this.unseenLength).forEach((col) => (zero[col] = 1));
    return zero;
  }
}

/** The lines all zeros on one side of a comparison only (a pruning, a part a conversion never wrote, or a fix). */
export interface ZeroLinesChange {
  rowDims: number[];
  /** Rows all zeros in B, not in A (and the reverse), among the rows read on both sides. */
  rows: { onlyB: ZeroLineRuns | null; onlyA: ZeroLineRuns | null } | null;
  /** Columns all zeros in B, not in A (and the reverse), for a 2-D tensor read whole on both sides. */
  columns: { onlyB: ZeroLineRuns | null; onlyA: ZeroLineRuns | null } | null;
}

/** What `a` and `b`, fed the same elements of two tensors of one shape, tell apart; null when no line differs. */
export function zeroLinesChange(
  a: ZeroLinesTracker,
  b: ZeroLinesTracker,
  rowDims: number[],
  wholeRead: boolean,
): ZeroLinesChange | null {
  let rows: ZeroLinesChange['rows'] = null;
  const rowsA = a.rowZero();
  const rowsB = b.rowZero();
  if (rowsA && rowsB && rowsA.rows === rowsB.rows) {
    const onlyB = new IndexRunsBuilder(MAX_ZERO_RUNS);
    const onlyA = new IndexRunsBuilder(MAX_ZERO_RUNS);
    let read = 0;
    for (let row = 0; row < rowsA.rows; row++) {
      if (rowsA.read(row) && rowsB.read(row)) {
        read++;
        const [zeroA, zeroB] = [rowsA.zero(row), rowsB.zero(row)];
        if (zeroB && !zeroA) {
          onlyB.add(row);
        } else if (zeroA && !zeroB) {
          onlyA.add(row);
        }
      }
    }
    rows = { onlyB: linesOf(onlyB, read), onlyA: linesOf(onlyA, read) };
  }
  let columns: ZeroLinesChange['columns'] = null;
  const columnsA = wholeRead ? a.columnZero() : null;
  const columnsB = wholeRead ? b.columnZero() : null;
  if (columnsA && columnsB && columnsA.length === columnsB.length) {
    const onlyB = new IndexRunsBuilder(MAX_ZERO_RUNS);
    const onlyA = new IndexRunsBuilder(MAX_ZERO_RUNS);
    for (let col = 0; col < columnsA.length; col++) {
      if (columnsB[col] > columnsA[col]) {
        onlyB.add(col);
      } else if (columnsA[col] > columnsB[col]) {
        onlyA.add(col);
      }
    }
    columns = { onlyB: linesOf(onlyB, columnsA.length), onlyA: linesOf(onlyA, columnsA.length) };
  }
  const some = (pair: { onlyB: ZeroLineRuns | null; onlyA: ZeroLineRuns | null } | null) =>
    pair !== null && (pair.onlyA !== null || pair.onlyB !== null);
  if (!some(rows) && !some(columns)) {
    return null;
  }
  return { rowDims, rows: some(rows) ? rows : null, columns: some(columns) ? columns : null };
}

/** The runs of `builder`, of `of` lines; null when it holds none. */
function linesOf(builder: IndexRunsBuilder, of: number): ZeroLineRuns | null {
  return builder.count === 0 ? null : { count: builder.count, of, runs: builder.runs };
}
