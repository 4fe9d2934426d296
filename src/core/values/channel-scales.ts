/**
 * Whether what changed between two matrices of one shape is one factor per channel: B ≈ s · A (the whole tensor, as
 * when an attention's 1/√d is folded into its query projection), B ≈ A · diag(s) (each input channel, a column: as
 * SmoothQuant and AWQ move an activation's range into the weight, or a norm's weight is folded into the linear after
 * it) or B ≈ diag(s) · A (each output channel, a row: the other half of such a move). A relative L2 of 0.8 then says
 * nothing wrong about B; the fit says what was done, and by how much.
 *
 * Each line's factor is its least-squares fit, s = Σ a·b / Σ a², and what the fits leave, Σ b² − (Σ a·b)² / Σ a² per
 * line, is set against the difference before the fit and against B: when scaling explains nine tenths of ‖b − a‖
 * and of ‖b‖ or more, the change is a scaling. Sums are kept per row and per column in Float64 over the elements
 * read (all, or the same row sample of both sides), in any order; a pair with NaN or an infinity on either side is
 * left out. A move is
 * function-preserving when another tensor's lines carry the reciprocal factors (a norm's elements, or the rows of the
 * linear before): `reciprocalPartners` finds those among the tensors compared. Pure.
 */
import { medianInPlace } from '../median';
import { matrixShape } from './grid';
import { MIN_LINES } from './line-magnitudes';
import { forEachRowRun } from './row-runs';

/**
 * The relative change (‖b − a‖ / ‖a‖) below which no fit is tried: a cast between float formats moves a weight by
 * 10⁻³ or less, and a fit of rounding noise explains nothing a user needs told.
 */
export const MIN_SCALED_CHANGE = 0.01;

/**
 * The share of ‖b − a‖ a fit may leave and still be what changed: a tenth (a hundredth of the squared difference).
 * A fine-tune's update is spread over every element, and a per-line fit removes about one part in the line's length
 * of it; B stored again in BF16 after scaling leaves its rounding, about 0.2 % of ‖b‖.
 */
export const FIT_EXPLAINS = 0.1;

/**
 * A line is scaled when its factor is off 1 by more than this: far above the rounding a fit over a line of eight or
 * more BF16 values sees (a few 10⁻⁴), far below any smoothing factor.
 */
export const SCALED_LINE_TOLERANCE = 0.001;

/**
 * Two lines' factors are reciprocal when their product is within this of 1, plus RECIPROCAL_ERRORS standard errors
 * of the two fits: a vector stored in BF16 rounds each element by up to 0.4 %, and a smoothing's factors run from
 * about 0.01 to 100.
 */
export const RECIPROCAL_TOLERANCE = 0.01;

/**
 * Standard errors of a line's factor (what its fit leaves, over its length) allowed on top: a weight quantized after
 * smoothing (int8 per output row, whose scale the smoothed outlier columns set) leaves a factor over 64 rows a few
 * percent off, and over a real layer's 4,096 rows a fraction of one.
 */
export const RECIPROCAL_ERRORS = 4;

/**
 * One factor for the whole tensor is the answer unless a factor per line leaves less than 1 / this of what it
 * leaves: a tensor scaled as a whole is fitted as well by its lines, with rounding left over either way.
 */
export const SIMPLER_FIT_SLACK = 2;

/** Scaled lines named, furthest from 1 first; the count stays exact. */
export const MAX_SCALED_LINES_LISTED = 20;

/** Lines fitted per axis: three Float64 sums each (24 MiB at most), so a longer axis is not fitted. */
const MAX_FITTED_LINES = 1 << 20;

export type ScaleAxis = 'tensor' | 'columns' | 'rows' | 'elements';

export interface ScaledLine {
  index: number;
  factor: number;
}

export interface ChannelScales {
  /**
   * What one factor multiplies: the whole tensor, each column (input channel) or each row (output channel) of a
   * matrix, or each element of a vector (said only when another tensor carries the reciprocal factors).
   */
  axis: ScaleAxis;
  /** ‖b − a‖ / ‖a‖ before the fit, and ‖b − fit‖ / ‖a‖ after it. */
  before: number;
  after: number;
  /** Lines with a factor (side A not all zeros there, among the lines read); for `tensor`, 1. */
  lines: number;
  /** Lines whose factor is off 1 by more than SCALED_LINE_TOLERANCE. */
  scaled: number;
  min: number;
  max: number;
  median: number;
  /** The lines scaled most (a sign flip first, then furthest from 1 up or down), at most MAX_SCALED_LINES_LISTED. */
  extremes: ScaledLine[];
  /**
   * Tensors whose lines this one's reciprocal factors scale, index for index (a norm's elements or the rows of the
   * linear before it, for a tensor whose columns are scaled; the columns of the linear after, for a vector or rows):
   * together the two compute what they computed before.
   */
  reciprocalIn?: string[];
}

/**
 * One factor for all of B: s = Σ a·b / Σ a², and what it leaves, ‖b − s·a‖ / ‖a‖ = √(Σ b² − s · Σ a·b) / ‖a‖.
 */
export function wholeFit(aa: number, ab: number, bb: number): { factor: number; after: number } {
  const factor = ab / aa;
  return { factor, after: Math.sqrt(Math.max(0, bb - ab * factor) / aa) };
}

/**
 * The most a fit may leave (relative to ‖a‖) and still be what changed, for a change of `before` = ‖b − a‖ / ‖a‖:
 * it must explain the change and B both, since when B is a tenth of A any factor near 0 leaves a tenth of ‖b − a‖.
 */
export function fitBound(before: number, aa: number, bb: number): number {
  return FIT_EXPLAINS * Math.min(before, Math.sqrt(bb / aa));
}

/**
 * B as A times one factor, from the pair's sums (Σ a², Σ a·b, Σ b²) and its relative change: the factor when the
 * change is at least MIN_SCALED_CHANGE, one factor explains it (fitBound) and it is off 1 by more than
 * SCALED_LINE_TOLERANCE; else null.
 */
export function wholeScale(aa: number, ab: number, bb: number, before: number | null): number | null {
  if (before === null || before < MIN_SCALED_CHANGE || !(aa > 0)) {
    return null;
  }
  const { factor, after } = wholeFit(aa, ab, bb);
  return after <= fitBound(before, aa, bb) && Math.abs(factor - 1) > SCALED_LINE_TOLERANCE ? factor : null;
}

/** Per-line sums of a·a, a·b and b·b. */
class LineSums {
  readonly aa: Float64Array;
  readonly ab: Float64Array;
  readonly bb: Float64Array;
  constructor(lines: number) {
    this.aa = new Float64Array(lines);
    this.ab = new Float64Array(lines);
    this.bb = new Float64Array(lines);
  }
}

/** A fit's factors (NaN where side A is all zeros or the line was not read) and what it leaves, Σ (b − s·a)². */
interface LineFit {
  factors: Float64Array;
  /** Each factor's standard error relative to it, for `reciprocalPartners`. */
  errors: Float64Array;
  residual: number;
  /** Σ a² over the elements fitted, which `residual` is set against. */
  aa: number;
}

export class ChannelScaleFit {
  private readonly rows: number;
  private readonly cols: number;
  private readonly rowSums: LineSums | null;
  private readonly colSums: LineSums | null;
  private aa = 0;
  private ab = 0;
  private bb = 0;

  /** `shape`: the tensors' (both sides'), seen as rows (every index but the last) by columns. */
  constructor(private readonly shape: readonly number[]) {
    const { rows, cols } = matrixShape(shape);
    this.rows = rows;
    this.cols = cols;
    this.rowSums = shape.length === 2 && rows <= MAX_FITTED_LINES ? new LineSums(rows) : null;
    this.colSums = shape.length <= 2 && cols <= MAX_FITTED_LINES ? new LineSums(cols) : null;
  }

  /** The same elements of A and of B, `first`, `first + 1`, … in row-major order. */
  add(a: ArrayLike<number>, b: ArrayLike<number>, first: number): void {
    const { rowSums, colSums } = this;
    forEachRowRun(Math.min(a.length, b.length), first, this.cols, (row, col, start, end) => {
      const [rowAa, rowAb, rowBb] = colSums
        ? addRowAndColumns(a, b, start, end, col, colSums)
        : rowSumsOf(a, b, start, end);
      if (rowSums !== null) {
        rowSums.aa[row] += rowAa;
        rowSums.ab[row] += rowAb;
        rowSums.bb[row] += rowBb;
      }
      this.aa += rowAa;
      this.ab += rowAb;
      this.bb += rowBb;
    });
  }

  /** ‖b − a‖ / ‖a‖ over the pairs added; null while A is all zeros. */
  private change(): number | null {
    return this.aa > 0 ? Math.sqrt(Math.max(0, this.bb - 2 * this.ab + this.aa) / this.aa) : null;
  }

  /**
   * What changed, when it is a scaling: of the whole tensor, else of its columns or its rows (whichever leaves
   * less). Null for an unchanged or nearly unchanged pair, a change no fit explains, or a tensor that is not a
   * matrix (a vector's elements are each their own line, which a fit always explains: see `elementFactors`).
   */
  result(): ChannelScales | null {
    const before = this.change();
    if (this.shape.length !== 2 || before === null || before < MIN_SCALED_CHANGE) {
      return null;
    }
    const bound = fitBound(before, this.aa, this.bb);
    const { factor: whole, after: wholeAfter } = wholeFit(this.aa, this.ab, this.bb);
    const lineFits: Array<{ axis: 'columns' | 'rows'; fit: LineFit }> = [];
    for (const axis of ['columns', 'rows'] as const) {
      const fit = this.fitAlong(axis);
      // A line's fit needs the other axis read at MIN_LINES or more, or it explains any change along it.
      if (fit && fit.length >= MIN_LINES) {
        lineFits.push({ axis, fit: fit.fit });
      }
    }
    const afterOf = (fit: LineFit) => (fit.aa > 0 ? Math.sqrt(fit.residual / fit.aa) : Infinity);
    const best = lineFits
      .filter((candidate) => afterOf(candidate.fit) <= bound)
      .sort((x, y) => afterOf(x.fit) - afterOf(y.fit))[0];
    if (wholeAfter <= bound && (!best || afterOf(best.fit) * SIMPLER_FIT_SLACK >= wholeAfter)) {
      return {
        axis: 'tensor',
        before,
        after: wholeAfter,
        lines: 1,
        scaled: Math.abs(whole - 1) > SCALED_LINE_TOLERANCE ? 1 : 0,
        min: whole,
        max: whole,
        median: whole,
        extremes: [],
      };
    }
    const summary = best && factorSummary(best.fit.factors);
    // Lines scaled only to zero are a pruning, which the zero-line note says in its own words.
    if (!best || summary === null || summary.scaled === 0 || summary.scaled === zeroLines(best.fit.factors)) {
      return null;
    }
    return { axis: best.axis, before, after: afterOf(best.fit), ...summary };
  }

  /** Each factor along `axis` and its relative standard error, for `reciprocalPartners`; null when not fitted. */
  lineFactors(axis: 'columns' | 'rows'): { factors: Float64Array; errors: Float64Array } | null {
    const fit = this.fitAlong(axis)?.fit;
    return fit ? { factors: fit.factors, errors: fit.errors } : null;
  }

  /** The fit of each line along `axis`, and the length of those lines (the rows read, for columns). */
  private fitAlong(axis: 'columns' | 'rows'): { fit: LineFit; length: number } | null {
    const [sums, length] = axis === 'columns' ? [this.colSums, this.rowsRead()] : [this.rowSums, this.cols];
    return sums && { fit: fitLines(sums, length), length };
  }

  /**
   * A vector's element-by-element ratios b / a and their summary, when it changed: the `elements` scaling that
   * `reciprocalPartners` may pair with a matrix's columns (a norm's weight divided by what the next linear's input
   * channels were multiplied by). Null for a matrix or an unchanged vector.
   */
  elementFactors(): { lines: { factors: Float64Array; errors: Float64Array }; scales: ChannelScales } | null {
    const before = this.change();
    if (this.shape.length !== 1 || this.colSums === null || before === null || before < MIN_SCALED_CHANGE) {
      return null;
    }
    // One element per line: no spread to estimate an error from, and none but the vector's rounding.
    const fit = fitLines(this.colSums, 1);
    const summary = factorSummary(fit.factors);
    if (summary === null || summary.scaled === 0) {
      return null;
    }
    return {
      lines: { factors: fit.factors, errors: fit.errors },
      scales: { axis: 'elements', before, after: Math.sqrt(fit.residual / fit.aa), ...summary },
    };
  }

  private rowsRead(): number {
    const sums = this.rowSums;
    if (sums === null) {
      return this.rows;
    }
    let read = 0;
    for (let row = 0; row < this.rows; row++) {
      if (sums.aa[row] > 0 || sums.bb[row] > 0) {
        read++;
      }
    }
    return read;
  }
}

/**
 * One row's pairs (elements `start` to `end` of the pieces, from column `col`) added to `columns`' sums; its own
 * sums returned. NaN or an infinity on either side (0 · ∞ is NaN too) leaves the pair out.
 */
function addRowAndColumns(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  start: number,
  end: number,
  col: number,
  columns: LineSums,
): [number, number, number] {
  const { aa, ab, bb } = columns;
  let rowAa = 0;
  let rowAb = 0;
  let rowBb = 0;
  for (let j = start, c = col; j < end; j++, c++) {
    const x = a[j];
    const y = b[j];
    const xy = x * y;
    if (xy - xy !== 0) {
      continue;
    }
    const xx = x * x;
    const yy = y * y;
    rowAa += xx;
    rowAb += xy;
    rowBb += yy;
    aa[c] += xx;
    ab[c] += xy;
    bb[c] += yy;
  }
  return [rowAa, rowAb, rowBb];
}

/** `addRowAndColumns` for a row whose columns are not fitted. */
function rowSumsOf(a: ArrayLike<number>, b: ArrayLike<number>, start: number, end: number): [number, number, number] {
  let rowAa = 0;
  let rowAb = 0;
  let rowBb = 0;
  for (let j = start; j < end; j++) {
    const x = a[j];
    const y = b[j];
    const xy = x * y;
    if (xy - xy !== 0) {
      continue;
    }
    rowAa += x * x;
    rowAb += xy;
    rowBb += y * y;
  }
  return [rowAa, rowAb, rowBb];
}

/**
 * Each line's factor, what the fits leave, and each factor's standard error relative to it, √(what its fit leaves /
 * (n − 1) / Σ a²) / |s| over a line of `length` (n) elements; 0 for a line of one element, which has no spread.
 */
function fitLines(sums: LineSums, length: number): LineFit {
  const { aa, ab, bb } = sums;
  const factors = new Float64Array(aa.length);
  const errors = new Float64Array(aa.length);
  let residual = 0;
  let total = 0;
  for (let line = 0; line < aa.length; line++) {
    total += aa[line];
    if (aa[line] > 0) {
      const factor = ab[line] / aa[line];
      const left = Math.max(0, bb[line] - ab[line] * factor);
      factors[line] = factor;
      residual += left;
      if (factor !== 0 && length > 1) {
        errors[line] = Math.sqrt(left / (length - 1) / aa[line]) / Math.abs(factor);
      }
    } else {
      // A line all zeros on side A has no factor; whatever B holds there stays unexplained.
      factors[line] = NaN;
      residual += bb[line];
    }
  }
  return { factors, errors, residual, aa: total };
}

function zeroLines(factors: Float64Array): number {
  let count = 0;
  for (const factor of factors) {
    count += factor === 0 ? 1 : 0;
  }
  return count;
}

/** How far a factor is from 1, up or down; a sign flip or a zero furthest. */
function distanceFromOne(factor: number): number {
  return factor > 0 ? Math.abs(Math.log(factor)) : Infinity;
}

function factorSummary(
  factors: Float64Array,
): Pick<ChannelScales, 'lines' | 'scaled' | 'min' | 'max' | 'median' | 'extremes'> | null {
  const defined = new Float64Array(factors.length);
  let lines = 0;
  let scaled = 0;
  let min = Infinity;
  let max = -Infinity;
  const extremes: Array<ScaledLine & { distance: number }> = [];
  for (let line = 0; line < factors.length; line++) {
    const factor = factors[line];
    if (factor !== factor) {
      continue;
    }
    defined[lines++] = factor;
    min = Math.min(min, factor);
    max = Math.max(max, factor);
    if (Math.abs(factor - 1) <= SCALED_LINE_TOLERANCE) {
      continue;
    }
    scaled++;
    const distance = distanceFromOne(factor);
    if (extremes.length === MAX_SCALED_LINES_LISTED && distance <= extremes[extremes.length - 1].distance) {
      continue;
    }
    let at = extremes.length;
    while (at > 0 && extremes[at - 1].distance < distance) {
      at--;
    }
    extremes.splice(at, 0, { index: line, factor, distance });
    if (extremes.length > MAX_SCALED_LINES_LISTED) {
      extremes.pop();
    }
  }
  if (lines === 0) {
    return null;
  }
  const median = medianInPlace(defined.subarray(0, lines)) as number;
  return { lines, scaled, min, max, median, extremes: extremes.map(({ index, factor }) => ({ index, factor })) };
}

/** A tensor's fitted factors along one axis, with their relative standard errors, for `reciprocalPartners`. */
export interface FittedLines {
  tensor: string;
  axis: 'columns' | 'rows' | 'elements';
  factors: Float64Array;
  errors: Float64Array;
}

/**
 * The tensors that undo each other's scaling: a tensor whose columns are scaled by s paired with each tensor of the
 * same length whose elements (a norm's weight) or rows (the linear before) are scaled by 1 / s, line for line
 * within the fits' errors, wherever both have a factor, with at least one line scaled. Both sides of each pair are
 * listed.
 */
export function reciprocalPartners(fitted: readonly FittedLines[]): Map<string, string[]> {
  const partners = new Map<string, string[]>();
  const link = (from: string, to: string) => partners.set(from, [...(partners.get(from) ?? []), to]);
  const before = fitted.filter((entry) => entry.axis !== 'columns');
  for (const after of fitted) {
    if (after.axis !== 'columns') {
      continue;
    }
    for (const candidate of before) {
      if (candidate.factors.length === after.factors.length && reciprocal(after, candidate)) {
        link(after.tensor, candidate.tensor);
        link(candidate.tensor, after.tensor);
      }
    }
  }
  return partners;
}

function reciprocal(after: FittedLines, before: FittedLines): boolean {
  const [s, r] = [after.factors, before.factors];
  let scaled = 0;
  for (let line = 0; line < s.length; line++) {
    const product = s[line] * r[line];
    if (product !== product) {
      continue;
    }
    const errors = after.errors[line] + before.errors[line];
    if (Math.abs(product - 1) > RECIPROCAL_TOLERANCE + RECIPROCAL_ERRORS * errors) {
      return false;
    }
    if (Math.abs(s[line] - 1) > SCALED_LINE_TOLERANCE) {
      scaled++;
    }
  }
  return scaled > 0;
}

/** What the fit says of one pair: the scaling to show, and the factors `reciprocalPartners` pairs (null for none). */
export interface FittedScales {
  scales: ChannelScales;
  lines: FittedLines | null;
}

/** `fit`'s verdict for `tensor`: a matrix's scaling, or a changed vector's element ratios; null when neither. */
export function fittedScales(fit: ChannelScaleFit, tensor: string): FittedScales | null {
  const vector = fit.elementFactors();
  if (vector) {
    return { scales: vector.scales, lines: { tensor, axis: 'elements', ...vector.lines } };
  }
  const scales = fit.result();
  if (scales === null) {
    return null;
  }
  const { axis } = scales;
  if (axis !== 'columns' && axis !== 'rows') {
    return { scales, lines: null };
  }
  const lines = fit.lineFactors(axis);
  return { scales, lines: lines && { tensor, axis, ...lines } };
}

/**
 * Sets each entry's `channelScales` from its fit, with the tensors that carry the reciprocal factors: a matrix's
 * scaling always, a vector's element ratios only when a matrix's columns undo them (alone they say only that it
 * changed).
 */
export function applyChannelScales(
  entries: ReadonlyArray<{ into: { channelScales?: ChannelScales }; fit: FittedScales }>,
): void {
  const partners = reciprocalPartners(entries.flatMap((entry) => (entry.fit.lines ? [entry.fit.lines] : [])));
  for (const { into, fit } of entries) {
    const reciprocalIn = fit.lines ? partners.get(fit.lines.tensor) : undefined;
    if (fit.scales.axis === 'elements' && !reciprocalIn) {
      continue;
    }
    into.channelScales = reciprocalIn ? { ...fit.scales, reciprocalIn } : fit.scales;
  }
}
