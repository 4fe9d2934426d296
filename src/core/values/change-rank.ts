/**
 * How many directions a change uses: the singular values of ΔW = B − A over an even spread of its rows. A LoRA merged
 * into a weight adds scale · B·A, of rank r (8 to 128 in practice), so its ΔW has r singular values and then only
 * the rounding of storing the sum; full fine-tuning moves a weight in every direction. Any set of rows of a rank-r
 * matrix has rank r or less, so at most CHANGE_RANK_ROWS rows tell one from the other at a small cost: their Gram
 * matrix (rows × rows, Float64), whose eigenvalues are the squared singular values of the rows kept. NaN and
 * infinities count as no change (the non-finite notes place them). Pure.
 */
import { symmetricEigenvalues } from '../symmetric-eigenvalues';
import { CHANGE_RANK_ROWS } from './values-limits';
import { forEachRowRun } from './row-runs';

/**
 * How far the singular values must fall after the r-th for a change to be called rank r: a merged LoRA's last
 * direction stands far above the rounding of storing the sum, while a fine-tune's spectrum falls smoothly.
 */
export const RANK_GAP = 10;

/** The share of ‖ΔW‖² the directions past the rank may hold: rounding, not a direction of the update. */
export const RANK_TAIL_SHARE = 0.01;

/** Rows kept fewer than this show too few directions to tell a low rank from a full one. */
export const MIN_RANK_ROWS = 16;

/** Singular values listed in the report, largest first. */
export const MAX_SINGULAR_VALUES_LISTED = 32;

/** Columns kept per row (a Float32 each): a matrix of longer rows is not looked at. */
const MAX_RANK_COLUMNS = 1 << 18;

export interface ChangeRank {
  /** Rows of ΔW looked at, of the tensor's rows. */
  rowsRead: number;
  rows: number;
  /** Directions the rows read can show: the smaller of their count and the row length. */
  directions: number;
  /** The largest singular values of ΔW over the rows read, largest first, at most MAX_SINGULAR_VALUES_LISTED. */
  singularValues: number[];
  /** How many directions hold 90 % and 99 % of ‖ΔW‖² over the rows read. */
  directions90: number;
  directions99: number;
  /**
   * A low-rank change: the singular values fall at least RANK_GAP× after the `rank`-th (`gap`: by how much) and
   * the rest hold at most RANK_TAIL_SHARE of ‖ΔW‖², the rank at most half of `directions` (so as many directions
   * past it show the floor); null when none.
   */
  lowRank: { rank: number; gap: number } | null;
}

export class ChangeRankSampler {
  private readonly rows: number;
  private readonly cols: number;
  private readonly kept: Float32Array | null;
  /** The slot of each tensor row kept. */
  private readonly slots = new Map<number, number>();

  /**
   * `shape`: both tensors' (a matrix). `rowStride`: keep rows 0, s, 2s, … (for a whole read, ⌈rows /
   * CHANGE_RANK_ROWS⌉); in any case no more than CHANGE_RANK_ROWS rows, the first to arrive.
   */
  constructor(
    shape: readonly number[],
    private readonly rowStride: number,
  ) {
    this.rows = shape.length === 2 ? shape[0] : 0;
    this.cols = shape.length === 2 ? shape[1] : 0;
    const fits = this.rows >= MIN_RANK_ROWS && this.cols >= MIN_RANK_ROWS && this.cols <= MAX_RANK_COLUMNS;
    this.kept = fits ? new Float32Array(Math.min(CHANGE_RANK_ROWS, this.rows) * this.cols) : null;
  }

  /** The same elements of A and of B, `first`, `first + 1`, … in row-major order. */
  add(a: ArrayLike<number>, b: ArrayLike<number>, first: number): void {
    const { kept, cols } = this;
    if (kept === null) {
      return;
    }
    forEachRowRun(Math.min(a.length, b.length), first, cols, (row, col, start, end) => {
      const slot = row % this.rowStride === 0 ? this.slotOf(row) : null;
      if (slot === null) {
        return;
      }
      const at = slot * cols + col - start;
      for (let j = start; j < end; j++) {
        const d = b[j] - a[j];
        kept[at + j] = d - d === 0 ? d : 0;
      }
    });
  }

  private slotOf(row: number): number | null {
    const known = this.slots.get(row);
    if (known !== undefined) {
      return known;
    }
    if (this.slots.size >= CHANGE_RANK_ROWS || this.slots.size >= this.rows) {
      return null;
    }
    this.slots.set(row, this.slots.size);
    return this.slots.size - 1;
  }

  /**
   * The spectrum of the rows kept; null for too few rows, a matrix not looked at, or a change of under half the rows
   * kept (new tokens' rows, a pruning: a few rows are a few directions whatever made them, and say nothing of a
   * LoRA; the zero-line and embedding notes describe those).
   */
  result(): ChangeRank | null {
    const { kept, cols } = this;
    const k = this.slots.size;
    if (kept === null || k < MIN_RANK_ROWS) {
      return null;
    }
    const gram = gramOf(kept, k, cols);
    let rowsChanged = 0;
    for (let i = 0; i < k; i++) {
      rowsChanged += gram[i * k + i] > 0 ? 1 : 0;
    }
    if (rowsChanged * 2 < k) {
      return null;
    }
    const squared = symmetricEigenvalues(gram, k).map((value) => Math.max(0, value));
    let total = 0;
    for (const value of squared) {
      total += value;
    }
    if (total === 0) {
      return null;
    }
    const directions = Math.min(k, cols);
    return {
      rowsRead: k,
      rows: this.rows,
      directions,
      singularValues: [...squared.subarray(0, MAX_SINGULAR_VALUES_LISTED)].map(Math.sqrt),
      directions90: directionsHolding(squared, total, 0.9),
      directions99: directionsHolding(squared, total, 0.99),
      lowRank: lowRankOf(squared, total, Math.floor(directions / 2)),
    };
  }
}

/**
 * The Gram matrix of the first `k` rows of `rows` (each `cols` long), four rows against one at a time so each value of
 * the one is loaded once for four products: a third less time than one pair at a time (docs/performance.md).
 */
function gramOf(rows: Float32Array, k: number, cols: number): Float64Array {
  const gram = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    const base = i * cols;
    let j = 0;
    for (; j + 3 <= i; j += 4) {
      const [b0, b1, b2, b3] = [j * cols, (j + 1) * cols, (j + 2) * cols, (j + 3) * cols];
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let c = 0; c < cols; c++) {
        const x = rows[base + c];
        s0 += x * rows[b0 + c];
        s1 += x * rows[b1 + c];
        s2 += x * rows[b2 + c];
        s3 += x * rows[b3 + c];
      }
      gram[i * k + j] = s0;
      gram[i * k + j + 1] = s1;
      gram[i * k + j + 2] = s2;
      gram[i * k + j + 3] = s3;
    }
    for (; j <= i; j++) {
      let sum = 0;
      const other = j * cols;
      for (let c = 0; c < cols; c++) {
        sum += rows[base + c] * rows[other + c];
      }
      gram[i * k + j] = sum;
    }
    for (let j2 = 0; j2 < i; j2++) {
      gram[j2 * k + i] = gram[i * k + j2];
    }
  }
  return gram;
}

/** The fewest leading directions whose squared singular values add up to `share` of `total`. */
function directionsHolding(squared: Float64Array, total: number, share: number): number {
  let sum = 0;
  for (let i = 0; i < squared.length; i++) {
    sum += squared[i];
    if (sum >= share * total) {
      return i + 1;
    }
  }
  return squared.length;
}

/** The first rank r ≤ `most` after which the singular values fall RANK_GAP× and leave the rest a small tail. */
function lowRankOf(squared: Float64Array, total: number, most: number): ChangeRank['lowRank'] {
  let head = 0;
  for (let r = 1; r <= most && r < squared.length; r++) {
    head += squared[r - 1];
    const next = squared[r];
    const fall = next > 0 ? Math.sqrt(squared[r - 1] / next) : Infinity;
    if (fall >= RANK_GAP && total - head <= RANK_TAIL_SHARE * total) {
      return { rank: r, gap: fall };
    }
  }
  return null;
}
