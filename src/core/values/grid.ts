/**
 * A downsampled picture of a tensor's values: a 2-D tensor (or any tensor seen as [leading dims, last dim]) as a
 * grid of cell means for a heatmap, a 1-D tensor as one row of cells with their min and max for a line. Cells cover
 * equal spans of rows and columns; a sampled read fills only the rows it read (the others stay empty).
 */
import type { NonFiniteLocator } from './non-finite-positions';

/** Heatmap cells: enough to see attention heads and outlier channels at 1440 px, small enough to post at once. */
export const GRID_MAX_ROWS = 96;
export const GRID_MAX_COLS = 192;
/** Points of a 1-D line. */
export const LINE_MAX_POINTS = 512;

export interface ValueGrid {
  /** The tensor as a matrix: rows × cols (1 × n for a 1-D tensor). */
  rows: number;
  cols: number;
  gridRows: number;
  gridCols: number;
  /** gridRows × gridCols, row-major: the mean of each cell's finite values, NaN where a cell has none. */
  mean: Float32Array;
  /**
   * Each cell's least and greatest finite value (NaN where it has none), for a line's band. A heatmap shows only
   * means, so its cells keep none (empty arrays): two selects per element less in the pass "Read values" waits on.
   */
  min: Float32Array;
  max: Float32Array;
}

export class GridAccumulator {
  private readonly sum: Float64Array;
  private readonly seen: Float64Array;
  private readonly min: Float32Array;
  private readonly max: Float32Array;
  private readonly colCell: Uint32Array | null;
  /** The element `values[0]` of the current `add` is. */
  private base = 0;
  readonly gridRows: number;
  readonly gridCols: number;

  /** `locator`: told of each NaN and infinity the checked passes meet (non-finite-positions.ts). */
  constructor(
    private readonly rows: number,
    private readonly cols: number,
    private readonly locator: NonFiniteLocator | null = null,
  ) {
    const line = rows === 1;
    this.gridRows = line ? 1 : Math.max(1, Math.min(rows, GRID_MAX_ROWS));
    this.gridCols = Math.max(1, Math.min(cols, line ? LINE_MAX_POINTS : GRID_MAX_COLS));
    const cells = this.gridRows * this.gridCols;
    this.sum = new Float64Array(cells);
    this.seen = new Float64Array(cells);
    const extremes = line ? cells : 0;
    this.min = new Float32Array(extremes).fill(Infinity);
    this.max = new Float32Array(extremes).fill(-Infinity);
    // Rows of up to a few million columns map by a table; longer rows compute the cell per element.
    this.colCell =
      cols <= 1 << 22 ? Uint32Array.from({ length: cols }, (_, c) => Math.floor((c * this.gridCols) / cols)) : null;
  }

  /**
   * Values of elements `first`, `first + 1`, … in row-major order, taken one run of a row's cell at a time: a tight
   * loop over plain locals, and a checked pass only for a run that holds a NaN or an infinity.
   */
  add(values: ArrayLike<number>, first: number): void {
    const { cols, gridCols } = this;
    const n = values.length;
    this.base = first;
    let row = Math.floor(first / cols);
    let col = first - row * cols;
    let i = 0;
    while (i < n) {
      const base = Math.floor((row * this.gridRows) / this.rows) * gridCols;
      const rowEnd = Math.min(n, i + (cols - col));
      while (i < rowEnd) {
        const cellCol = this.colCell ? this.colCell[col] : Math.floor((col * gridCols) / cols);
        // The first column of the next cell: the least c with ⌊c · gridCols / cols⌋ > cellCol.
        const nextCol = Math.ceil(((cellCol + 1) * cols) / gridCols);
        const runEnd = Math.min(rowEnd, i + (nextCol - col));
        if (this.min.length > 0) {
          this.addRun(values, i, runEnd, base + cellCol);
        } else {
          this.addRunSum(values, i, runEnd, base + cellCol);
        }
        col += runEnd - i;
        i = runEnd;
      }
      if (col === cols) {
        col = 0;
        row++;
      }
    }
  }

  private addRun(values: ArrayLike<number>, from: number, to: number, cell: number): void {
    let sum = 0;
    let min = this.min[cell];
    let max = this.max[cell];
    for (let j = from; j < to; j++) {
      const x = values[j];
      sum += x;
      // Selects rather than branches, as in value-stats.ts's moments loop; a NaN here is redone below.
      min = x < min ? x : min;
      max = x > max ? x : max;
    }
    let seen = to - from;
    if (!(sum - sum === 0)) {
      sum = 0;
      seen = 0;
      min = this.min[cell];
      max = this.max[cell];
      for (let j = from; j < to; j++) {
        const x = values[j];
        if (x - x === 0) {
          sum += x;
          seen++;
          min = x < min ? x : min;
          max = x > max ? x : max;
        } else {
          this.locator?.note(this.base + j, x);
        }
      }
    }
    this.sum[cell] += sum;
    this.seen[cell] += seen;
    this.min[cell] = min;
    this.max[cell] = max;
  }

  /**
   * `addRun` without the extremes: a heatmap's cells. Four partial sums rather than one: a single running sum waits
   * on the previous add at every element, four let the adds overlap (the order of a cell's additions is not one a
   * mean shown as a colour can tell apart).
   */
  private addRunSum(values: ArrayLike<number>, from: number, to: number, cell: number): void {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = from;
    for (; j + 3 < to; j += 4) {
      s0 += values[j];
      s1 += values[j + 1];
      s2 += values[j + 2];
      s3 += values[j + 3];
    }
    for (; j < to; j++) {
      s0 += values[j];
    }
    let sum = s0 + s1 + (s2 + s3);
    let seen = to - from;
    if (!(sum - sum === 0)) {
      sum = 0;
      seen = 0;
      for (let j = from; j < to; j++) {
        const x = values[j];
        if (x - x === 0) {
          sum += x;
          seen++;
        } else {
          this.locator?.note(this.base + j, x);
        }
      }
    }
    this.sum[cell] += sum;
    this.seen[cell] += seen;
  }

  grid(): ValueGrid {
    const cells = this.sum.length;
    const mean = new Float32Array(cells);
    for (let i = 0; i < cells; i++) {
      mean[i] = this.seen[i] > 0 ? this.sum[i] / this.seen[i] : Number.NaN;
      if (this.seen[i] === 0 && i < this.min.length) {
        this.min[i] = Number.NaN;
        this.max[i] = Number.NaN;
      }
    }
    return {
      rows: this.rows,
      cols: this.cols,
      gridRows: this.gridRows,
      gridCols: this.gridCols,
      mean,
      min: this.min,
      max: this.max,
    };
  }
}

/** A tensor's shape seen as a matrix: [∏ leading dims, last dim]; a scalar or 1-D tensor is one row. */
export function matrixShape(dims: readonly number[]): { rows: number; cols: number } {
  if (dims.length <= 1) {
    return { rows: 1, cols: dims[0] ?? 1 };
  }
  const cols = dims[dims.length - 1];
  return { rows: dims.slice(0, -1).reduce((a, b) => a * b, 1), cols };
}
