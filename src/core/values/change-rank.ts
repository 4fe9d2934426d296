/**
 * How many directions a change uses: the singular values of ΔW = B − A over an even spread of its rows. A LoRA merged
 * into a weight adds scale · B·A, of rank r (8 to 128 in practice), so its ΔW has r singular values and then only
 * the rounding of storing the sum; full fine-tuning moves a weight in every direction. Any set of rows of a rank-r
 * matrix has rank r or less, so at most CHANGE_RANK_ROWS rows tell one from the other at a small cost: their Gram
 * matrix (rows × rows, Float64), whose eigenvalues are the squared singular values of the rows kept. NaN and
 * infinities count as no change (the non-finite notes place them).
 *
 * The rounding is not small: a LoRA update of 0.5 % of a BF16 weight leaves a third of its values where they were,
 * and its weaker directions sink into the rounding. So the floor is sized, not guessed: each value of B, rounded to
 * its float dtype's grid, is off by a uniform error of variance spacing² / 12, and k rows of n such independent
 * errors have singular values up to √v · (√n + √k) (Marchenko and Pastur's edge). The directions above the floor
 * are the rank, when what lies below it is no more than rounding. Pure.
 */
import { symmetricEigenvalues } from '../symmetric-eigenvalues';
import { CHANGE_RANK_ROWS } from './values-limits';
import { MANTISSA_BITS, MIN_NORMAL } from './decode';
import { forEachRowRun } from './row-runs';
import { rankGram } from './lora-gram';

/**
 * A direction counts when its singular value is over this × the rounding's edge: the edge of independent errors is
 * reached only in the limit, and the errors of neighbouring values of a weight are not quite independent.
 */
export const FLOOR_SLACK = 1.5;

/**
 * What the directions under the floor may hold, as a multiple of the rounding's expected ‖error‖²: about 1 when
 * they are rounding alone; a fine-tune's many smaller directions hold far more.
 */
export const TAIL_ROUNDINGS = 2;

/**
 * ‖ΔW‖² over the rounding's expected ‖error‖² below which a change is too close to the rounding to tell a low rank
 * from a high one, and none is claimed.
 */
export const MIN_OVER_ROUNDING = 10;

/** Rows kept fewer than this show too few directions to tell a low rank from a full one. */
export const MIN_RANK_ROWS = 16;

/** Singular values listed in the report, largest first. */
export const MAX_SINGULAR_VALUES_LISTED = 32;

/**
 * Columns kept per row (a Float32 each): 128 rows of 65,536 are 32 MiB and a Gram of half a second; a matrix of longer
 * rows (an LM head stored transposed) is not looked at.
 */
const MAX_RANK_COLUMNS = 1 << 16;

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
   * ‖ΔW‖² over the expected ‖error‖² of rounding B to its dtype (null when B is not a plain float): how far the change
   * stands above what storing it alone leaves.
   */
  overRounding: number | null;
  /**
   * A low-rank change: `rank` singular values over FLOOR_SLACK × the rounding's edge, at most half of `directions`,
   * the rest holding at most TAIL_ROUNDINGS × the rounding's ‖error‖²; `aboveFloor`: the `rank`-th singular value
   * over the edge. Null when none, or when B is not a plain float.
   */
  lowRank: { rank: number; aboveFloor: number } | null;
}

export class ChangeRankSampler {
  private readonly rows: number;
  private readonly cols: number;
  private readonly kept: Float32Array | null;
  /** The slot of each tensor row kept. */
  private readonly slots = new Map<number, number>();
  /** Each float exponent's rounding variance on B's grid (indexed by a Float32's exponent bits); null: unknown. */
  private readonly roundingVariance: Float64Array | null;
  /** The expected ‖error‖² of rounding B's kept values. */
  private rounding = 0;

  /**
   * `shape`: both tensors' (a matrix). `rowStride`: keep rows 0, s, 2s, … (for a whole read, ⌈rows /
   * CHANGE_RANK_ROWS⌉); in any case no more than CHANGE_RANK_ROWS rows, the first to arrive. `dtypeB`: the float
   * dtype B's values are stored in, whose grid sizes the rounding; null when they are dequantized or scaled.
   */
  constructor(
    shape: readonly number[],
    private readonly rowStride: number,
    dtypeB: string | null,
  ) {
    this.rows = shape.length === 2 ? shape[0] : 0;
    this.cols = shape.length === 2 ? shape[1] : 0;
    const fits = this.rows >= MIN_RANK_ROWS && this.cols >= MIN_RANK_ROWS && this.cols <= MAX_RANK_COLUMNS;
    this.kept = fits ? new Float32Array(Math.min(CHANGE_RANK_ROWS, this.rows) * this.cols) : null;
    this.roundingVariance = dtypeB === null ? null : roundingVarianceOf(dtypeB);
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
      this.addRounding(b, start, end);
    });
  }

  /** The rounding variance of each of B's values `start` to `end`, by its exponent as a Float32. */
  private addRounding(b: ArrayLike<number>, start: number, end: number): void {
    const table = this.roundingVariance;
    if (table === null) {
      return;
    }
    let sum = 0;
    for (let j = start; j < end; j++) {
      FLOAT_VIEW[0] = b[j];
      sum += table[(BITS_VIEW[0] >>> 23) & 0xff];
    }
    this.rounding += sum;
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
    const gram = rankGram(kept.subarray(0, k * cols), { rank: k, length: cols, rankFirst: true });
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
    const rounding = this.roundingVariance === null ? null : this.rounding;
    return {
      rowsRead: k,
      rows: this.rows,
      directions,
      singularValues: [...squared.subarray(0, MAX_SINGULAR_VALUES_LISTED)].map(Math.sqrt),
      directions90: directionsHolding(squared, total, 0.9),
      directions99: directionsHolding(squared, total, 0.99),
      overRounding: rounding === null ? null : rounding > 0 ? total / rounding : Infinity,
      lowRank: rounding === null ? null : lowRankOf(squared, total, rounding, k, cols),
    };
  }
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

/**
 * The directions over FLOOR_SLACK × the edge of `rounding` (the expected ‖error‖² of k rows of n rounded values),
 * when they are at most half of them, what lies under holds no more than TAIL_ROUNDINGS × the rounding, and the
 * change stands MIN_OVER_ROUNDING × over it.
 */
function lowRankOf(
  squared: Float64Array,
  total: number,
  rounding: number,
  k: number,
  n: number,
): ChangeRank['lowRank'] {
  // B all zeros where kept (rounding 0) leaves no floor to stand over.
  if (rounding === 0 || total < MIN_OVER_ROUNDING * rounding) {
    return null;
  }
  const edge = Math.sqrt(rounding / (k * n)) * (Math.sqrt(n) + Math.sqrt(k));
  const floor = FLOOR_SLACK * edge;
  let rank = 0;
  let head = 0;
  while (rank < squared.length && Math.sqrt(squared[rank]) > floor) {
    head += squared[rank];
    rank++;
  }
  if (rank === 0 || rank > Math.min(k, n) / 2 || total - head > TAIL_ROUNDINGS * rounding) {
    return null;
  }
  return { rank, aboveFloor: Math.sqrt(squared[rank - 1]) / edge };
}

/** A Float32 and its bits, to read a value's exponent. */
const FLOAT_VIEW = new Float32Array(1);
const BITS_VIEW = new Uint32Array(FLOAT_VIEW.buffer);

/**
 * For each Float32 exponent field e (the value in [2^(e−127), 2^(e−126))), the variance of rounding to `dtype`'s grid
 * there, spacing² / 12; 0 for zero (stored exactly) and for NaN and infinities. Null for a dtype without MANTISSA_BITS.
 */
function roundingVarianceOf(dtype: string): Float64Array | null {
  const bits = MANTISSA_BITS[dtype];
  if (bits === undefined) {
    return null;
  }
  const least = Math.log2(MIN_NORMAL[dtype]);
  const table = new Float64Array(256);
  for (let field = 1; field < 255; field++) {
    const spacing = 2 ** (Math.max(field - 127, least) - bits);
    table[field] = (spacing * spacing) / 12;
  }
  return table;
}
