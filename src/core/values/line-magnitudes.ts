/**
 * Each row's and each column's largest magnitude (abs-max), and the lines far above the rest. This is what decides
 * how a weight quantizes: one scale for the whole tensor is set by its largest row, so a row whose abs-max is a
 * fiftieth of it keeps a fiftieth of an integer format's levels; one scale per row (per output channel) is set by that
 * row's largest value, which in a weight [out, in] with a few input channels far above the rest (outlier features)
 * lies in one of those columns for most rows. A tensor-wide abs-max or histogram says neither.
 *
 * A row sample gives every column's abs-max over the rows read: outlier columns show in every row, so a sample sees
 * them (a row outlier it may miss, and the figures say "of the rows read"). Pieces may arrive in any order and split
 * rows anywhere. NaN and infinities are left out (the non-finite note places them). Pure.
 */
import { medianInPlace } from '../median';
import { tokenTextList, type TokenTextList, type TokenTexts } from '../analysis/tokenizer/token-texts';
import { matrixShape } from './grid';
import { MIN_LINE_LENGTH } from './zero-lines';

/**
 * How far above the median line's abs-max a line must be to be named: the rows of a trained weight, thousands of
 * roughly bell-shaped values each, peak within about 1.5× of one another, and the scan names a tensor an outlier
 * of its role at the same factor.
 */
export const LINE_OUTLIER_FACTOR = 10;

/** Lines named per kind, largest first; the count stays exact. */
export const MAX_OUTLIER_LINES = 20;

/** Fewer lines than this have no median worth comparing with: a [2, 4096] pair of rows is not a spread. */
export const MIN_LINES = 8;

/** Rows tracked: a float each, and an int for a matrix's (32 MiB at most); a tensor of more rows is not looked at. */
const MAX_ROWS_TRACKED = 1 << 22;

/** Columns tracked: a float each (16 MiB at most), so a matrix of longer rows is not looked at by column. */
const MAX_COLUMNS_TRACKED = 1 << 22;

/** Bars of a line profile: two units each across the view's 480-unit charts. */
export const PROFILE_BUCKETS = 240;

/** A row not read yet; a row read holds its abs-max, 0 when it held only zeros, NaN or infinities. */
const UNREAD = -1;

export interface LineOutlier {
  index: number;
  absMax: number;
}

export interface LineMagnitudeSpread {
  /** The tensor's lines of this kind, read or not. */
  lines: number;
  /** Lines read holding a non-zero finite value: the median is over these (lines all zeros are left out). */
  of: number;
  median: number;
  /** The largest line abs-max and the line holding it. */
  max: number;
  maxAt: number;
  /** Lines over LINE_OUTLIER_FACTOR × the median, largest first, at most MAX_OUTLIER_LINES of them. */
  outliers: LineOutlier[];
  outlierCount: number;
  /**
   * The lines in order, in at most PROFILE_BUCKETS runs of consecutive lines, each its largest abs-max (so a single
   * outlier line stands out at any size); -1 for a run of which no line was read. For the view, not the report.
   */
  profile: number[];
}

export interface LineMagnitudes {
  /** The dimensions a row index runs over: the tensor's every dimension but the last. */
  rowDims: number[];
  /** Each row's abs-max (every index but the last, flattened row-major over `rowDims`), over the rows read. */
  rows: LineMagnitudeSpread | null;
  /**
   * Each column's abs-max over the rows read, for a matrix; `rowsPeakingInOutliers` counts the rows (of
   * `rows.of`) whose largest value lies in one of the outlier columns.
   */
  columns: (LineMagnitudeSpread & { rowsPeakingInOutliers: number }) | null;
  /** A token embedding's: the token of each outlier row (its id is the row), from the token list at hand. */
  rowTokens?: TokenTextList;
}

/** `found` with the tokens of its outlier rows, for a token embedding (a matrix with a row per token id). */
export function withRowTokenTexts(found: LineMagnitudes, texts: Pick<TokenTexts, 'origin' | 'text'>): LineMagnitudes {
  const outliers = found.rows?.outliers ?? [];
  if (found.rowDims.length !== 1 || outliers.length === 0) {
    return found;
  }
  return {
    ...found,
    rowTokens: tokenTextList(
      texts,
      outliers.map((line) => line.index),
    ),
  };
}

export class LineMagnitudesTracker {
  private readonly cols: number;
  private readonly rowMax: Float32Array | null;
  /** For a matrix: the column of each row's largest value. */
  private readonly rowPeak: Int32Array | null;
  private readonly colMax: Float32Array | null;
  /** Only rows 0, rowStride, 2 · rowStride, … are looked at. */
  readonly rowStride: number;
  /** Decoded values of one row piece given as codes (`addCodes`), reused. */
  private scratch = new Float32Array(0);

  /**
   * `shape`: the tensor's, seen as a matrix of rows (every index but the last) and columns (the last).
   * `rowsAtMost`: look at no more rows than this, evenly spread (rows 0, s, 2s, … with s = ⌈rows / rowsAtMost⌉),
   * for a scan of every tensor that wants the columns, which show in every row, at little cost per tensor.
   */
  constructor(
    private readonly shape: readonly number[],
    rowsAtMost = Infinity,
  ) {
    const { rows, cols } = matrixShape(shape);
    this.cols = cols;
    this.rowStride = Math.max(1, Math.ceil(rows / rowsAtMost));
    const lines = shape.length >= 2 && cols >= MIN_LINE_LENGTH && rows >= MIN_LINES && rows <= MAX_ROWS_TRACKED;
    this.rowMax = lines ? new Float32Array(rows).fill(UNREAD) : null;
    const columns = lines && shape.length === 2 && cols >= MIN_LINES && cols <= MAX_COLUMNS_TRACKED;
    this.colMax = columns ? new Float32Array(cols) : null;
    this.rowPeak = columns ? new Int32Array(rows) : null;
  }

  /** Values of elements `first`, `first + 1`, … in row-major order. */
  add(values: ArrayLike<number>, first: number): void {
    const { cols, rowMax, rowPeak, colMax } = this;
    if (rowMax === null) {
      return;
    }
    const n = values.length;
    let row = Math.floor(first / cols);
    let col = first - row * cols;
    let i = 0;
    while (i < n) {
      const end = Math.min(n, i + (cols - col));
      if (row % this.rowStride !== 0) {
        i = end;
        row++;
        col = 0;
        continue;
      }
      let peak = rowMax[row] === UNREAD ? 0 : rowMax[row];
      if (colMax === null || rowPeak === null) {
        for (let j = i; j < end; j++) {
          const a = Math.abs(values[j]);
          if (a > peak && a !== Infinity) {
            peak = a;
          }
        }
      } else {
        let peakAt = rowPeak[row];
        // Math.abs, not a test of the sign: the sign of a weight is a coin toss, and a branch on it runs 4× slower.
        // NaN fails every comparison; an infinity would set every figure, and the non-finite note places it.
        for (let j = i, c = col; j < end; j++, c++) {
          const a = Math.abs(values[j]);
          if (a > colMax[c] && a !== Infinity) {
            colMax[c] = a;
          }
          if (a > peak && a !== Infinity) {
            peak = a;
            peakAt = c;
          }
        }
        rowPeak[row] = peakAt;
      }
      rowMax[row] = peak;
      i = end;
      row++;
      col = 0;
    }
  }

  /**
   * Codes of an 8- or 16-bit float (decode.ts's codesOf) with the table of their values, as `add` takes values:
   * decoded only for the rows looked at, so a strided tracker costs a scan of codes almost nothing.
   */
  addCodes(codes: Uint8Array | Uint16Array, table: Float32Array, first: number): void {
    if (this.rowMax === null) {
      return;
    }
    const { cols, rowStride } = this;
    const n = codes.length;
    let row = Math.floor(first / cols);
    let i = 0;
    while (i < n) {
      const pieceStart = i;
      const end = Math.min(n, (row + 1) * cols - first);
      if (row % rowStride === 0) {
        if (this.scratch.length < end - pieceStart) {
          this.scratch = new Float32Array(cols);
        }
        const piece = this.scratch.subarray(0, end - pieceStart);
        for (let j = pieceStart; j < end; j++) {
          piece[j - pieceStart] = table[codes[j]];
        }
        this.add(piece, first + pieceStart);
      }
      i = end;
      row++;
    }
  }

  /** Each column's abs-max, which are outliers, and their median; null without columns or too few holding a value. */
  columnOutliers(): { marks: Uint8Array; maxima: Float32Array; median: number } | null {
    const figures = this.columnFigures();
    return figures && { marks: figures.marks, maxima: figures.maxima, median: figures.spread.median };
  }

  result(): LineMagnitudes | null {
    const { rowMax, rowPeak } = this;
    if (rowMax === null) {
      return null;
    }
    const rows = spreadOf(rowMax);
    let columns: LineMagnitudes['columns'] = null;
    const figures = this.columnFigures();
    if (figures && rowPeak) {
      let rowsPeakingInOutliers = 0;
      for (let row = 0; row < rowMax.length; row++) {
        if (rowMax[row] > 0 && figures.marks[rowPeak[row]] === 1) {
          rowsPeakingInOutliers++;
        }
      }
      columns = { ...figures.spread, rowsPeakingInOutliers };
    }
    return rows === null && columns === null ? null : { rowDims: this.shape.slice(0, -1), rows, columns };
  }

  /** The columns' spread and which are outliers; null without columns or too few holding a value. */
  private columnFigures(): { spread: LineMagnitudeSpread; marks: Uint8Array; maxima: Float32Array } | null {
    const maxima = this.colMax;
    const spread = maxima === null ? null : spreadOf(maxima);
    return maxima === null || spread === null ? null : { spread, marks: outlierMarks(maxima, spread.median), maxima };
  }
}

/** `spread` without its bar profile, which only the view draws: for the report and the scan's lists. */
export function withoutProfile<T extends LineMagnitudeSpread>(spread: T): Omit<T, 'profile'> {
  const { profile: _profile, ...figures } = spread;
  return figures;
}

/** Outlier columns (over LINE_OUTLIER_FACTOR × the median column's abs-max) of one side only, largest first. */
export interface OutlierColumnsOnOneSide {
  count: number;
  /** At most MAX_OUTLIER_LINES, each with its abs-max on that side. */
  columns: LineOutlier[];
  /** That side's median column abs-max. */
  median: number;
}

/** The outlier columns two matrices of one shape do not share, over the same rows of both. */
export interface OutlierColumnsChange {
  onlyA: OutlierColumnsOnOneSide | null;
  onlyB: OutlierColumnsOnOneSide | null;
}

/**
 * What `a` and `b`, fed the same elements of two matrices of one shape, tell apart: input channels far above the
 * rest on one side only, as a quantization that rotates or smooths a weight removes them (QuaRot, SpinQuant,
 * SmoothQuant) and a fine-tune may grow one. Null when neither side has one the other lacks.
 */
export function outlierColumnsChange(a: LineMagnitudesTracker, b: LineMagnitudesTracker): OutlierColumnsChange | null {
  const sideA = a.columnOutliers();
  const sideB = b.columnOutliers();
  if (sideA === null || sideB === null || sideA.maxima.length !== sideB.maxima.length) {
    return null;
  }
  const onlyOn = (
    side: { marks: Uint8Array; maxima: Float32Array; median: number },
    other: Uint8Array,
  ): OutlierColumnsOnOneSide | null => {
    const columns: LineOutlier[] = [];
    let count = 0;
    for (let col = 0; col < side.marks.length; col++) {
      if (side.marks[col] === 1 && other[col] === 0) {
        count++;
        keepLargest(columns, { index: col, absMax: side.maxima[col] });
      }
    }
    return count === 0 ? null : { count, columns, median: side.median };
  };
  const onlyA = onlyOn(sideA, sideB.marks);
  const onlyB = onlyOn(sideB, sideA.marks);
  return onlyA === null && onlyB === null ? null : { onlyA, onlyB };
}

/** The spread of the positive line maxima in `maxima` (unread and zero lines left out); null for too few lines. */
function spreadOf(maxima: Float32Array): LineMagnitudeSpread | null {
  const positive = new Float32Array(maxima.length);
  let of = 0;
  let max = 0;
  let maxAt = 0;
  for (let line = 0; line < maxima.length; line++) {
    const m = maxima[line];
    if (m > 0) {
      positive[of++] = m;
      if (m > max) {
        max = m;
        maxAt = line;
      }
    }
  }
  if (of < MIN_LINES) {
    return null;
  }
  const median = medianInPlace(positive.subarray(0, of)) as number;
  const outliers: LineOutlier[] = [];
  let outlierCount = 0;
  const bound = median * LINE_OUTLIER_FACTOR;
  for (let line = 0; line < maxima.length; line++) {
    if (maxima[line] > bound) {
      outlierCount++;
      keepLargest(outliers, { index: line, absMax: maxima[line] });
    }
  }
  return { lines: maxima.length, of, median, max, maxAt, outliers, outlierCount, profile: profileOf(maxima) };
}

/** `maxima` in at most PROFILE_BUCKETS runs, each its largest (UNREAD when none of its lines was read). */
function profileOf(maxima: Float32Array): number[] {
  const buckets = Math.min(PROFILE_BUCKETS, maxima.length);
  const profile: number[] = [];
  for (let b = 0; b < buckets; b++) {
    const end = Math.floor(((b + 1) * maxima.length) / buckets);
    let top = UNREAD;
    for (let line = Math.floor((b * maxima.length) / buckets); line < end; line++) {
      top = Math.max(top, maxima[line]);
    }
    profile.push(top);
  }
  return profile;
}

/** Adds `line` to `kept` (largest first, at most MAX_OUTLIER_LINES) if it is among the largest so far. */
function keepLargest(kept: LineOutlier[], line: LineOutlier): void {
  if (kept.length === MAX_OUTLIER_LINES && line.absMax <= kept[kept.length - 1].absMax) {
    return;
  }
  let at = kept.length;
  while (at > 0 && kept[at - 1].absMax < line.absMax) {
    at--;
  }
  kept.splice(at, 0, line);
  if (kept.length > MAX_OUTLIER_LINES) {
    kept.pop();
  }
}

/** 1 at each line whose abs-max is over LINE_OUTLIER_FACTOR × `median`. */
function outlierMarks(maxima: Float32Array, median: number): Uint8Array {
  const marks = new Uint8Array(maxima.length);
  const bound = median * LINE_OUTLIER_FACTOR;
  for (let line = 0; line < maxima.length; line++) {
    marks[line] = maxima[line] > bound ? 1 : 0;
  }
  return marks;
}
