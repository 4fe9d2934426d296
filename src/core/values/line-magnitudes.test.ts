import { describe, expect, it } from 'vitest';
import { median } from '../median';
import { codeTable } from './decode';
import {
  LINE_OUTLIER_FACTOR,
  LineMagnitudesTracker,
  MAX_OUTLIER_LINES,
  MIN_LINES,
  PROFILE_BUCKETS,
} from './line-magnitudes';

/** Seeded values in (-1, 1), never 0. */
function noise(count: number, seed: number): Float32Array {
  let state = seed;
  return Float32Array.from({ length: count }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return (state / 2 ** 31) * 1.8 - 0.9 + (state % 2 ? 0.05 : -0.05);
  });
}

/** Each row's and column's abs-max, the plain way, finite values only. */
function lineMaxima(values: Float32Array, rows: number, cols: number) {
  const rowMax = new Array<number>(rows).fill(0);
  const colMax = new Array<number>(cols).fill(0);
  const rowPeak = new Array<number>(rows).fill(0);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const a = Math.abs(values[r * cols + c]);
      if (Number.isFinite(a) && a > rowMax[r]) {
        rowMax[r] = a;
        rowPeak[r] = c;
      }
      if (Number.isFinite(a)) {
        colMax[c] = Math.max(colMax[c], a);
      }
    }
  }
  return { rowMax, colMax, rowPeak };
}

/** Lines over the factor × the median of the positive maxima, largest first. */
function outliersOf(maxima: number[]) {
  const typical = median(maxima.filter((m) => m > 0)) as number;
  return maxima
    .map((absMax, index) => ({ index, absMax }))
    .filter((line) => line.absMax > typical * LINE_OUTLIER_FACTOR)
    .sort((a, b) => b.absMax - a.absMax);
}

describe('LineMagnitudesTracker', () => {
  it('gives each row and column its abs-max, the median and the lines far above it, in any piece order', () => {
    const [rows, cols] = [40, 24];
    const values = noise(rows * cols, 3);
    // Columns 5 and 17 weigh 30× and 60× the rest; row 9 is 25× the rest; row 12 is all zeros.
    for (let r = 0; r < rows; r++) {
      values[r * cols + 5] *= 30;
      values[r * cols + 17] *= 60;
    }
    for (let c = 0; c < cols; c++) {
      values[9 * cols + c] *= 25;
      values[12 * cols + c] = 0;
    }
    const { rowMax, colMax, rowPeak } = lineMaxima(values, rows, cols);
    const tracker = new LineMagnitudesTracker([rows, cols]);
    // Pieces of 7 values, rows split anywhere, the last first.
    for (let start = Math.floor((values.length - 1) / 7) * 7; start >= 0; start -= 7) {
      tracker.add(values.subarray(start, start + 7), start);
    }
    const result = tracker.result();
    const positiveRows = rowMax.filter((m) => m > 0);
    expect(result?.rows?.of).toBe(rows - 1);
    expect(result?.rows?.median).toBeCloseTo(median(positiveRows) as number, 6);
    expect(result?.rows?.max).toBeCloseTo(Math.max(...rowMax), 6);
    expect(result?.rows?.maxAt).toBe(rowMax.indexOf(Math.max(...rowMax)));
    const columnOutliers = outliersOf(colMax);
    expect(columnOutliers.map((line) => line.index)).toEqual([17, 5]);
    expect(result?.columns?.outliers.map((line) => line.index)).toEqual([17, 5]);
    expect(result?.columns?.outlierCount).toBe(2);
    expect(result?.columns?.of).toBe(cols);
    expect(result?.columns?.median).toBeCloseTo(median(colMax) as number, 6);
    const peaking = rowPeak.filter((col, row) => rowMax[row] > 0 && (col === 5 || col === 17)).length;
    expect(result?.columns?.rowsPeakingInOutliers).toBe(peaking);
    expect(peaking).toBeGreaterThan(rows / 2);
    expect(result?.rowDims).toEqual([rows]);
    // Fewer lines than bars: one line a bar.
    expect(result?.columns?.profile).toEqual(colMax.map((m) => Math.fround(m)));
  });

  it('draws many lines as runs, each its largest, and marks runs no line of which was read', () => {
    const rows = PROFILE_BUCKETS * 4;
    const values = new Float32Array(rows * 8).fill(0.25);
    values[(4 * 7 + 2) * 8 + 3] = 9;
    const tracker = new LineMagnitudesTracker([rows, 8]);
    tracker.add(values.subarray(0, rows * 4), 0);
    const profile = tracker.result()?.rows?.profile ?? [];
    expect(profile).toHaveLength(PROFILE_BUCKETS);
    expect(profile[7]).toBe(9);
    expect(profile.filter((top) => top === 0.25)).toHaveLength(PROFILE_BUCKETS / 2 - 1);
    expect(profile.slice(PROFILE_BUCKETS / 2)).toEqual(new Array(PROFILE_BUCKETS / 2).fill(-1));
  });

  it('names a stacked tensor its rows by every index but the last, and has no columns', () => {
    const shape = [4, 8, 16];
    const values = noise(4 * 8 * 16, 5);
    // Row [2, 3] (flat row 19) peaks at 40× the rest.
    values[19 * 16 + 7] = 36;
    const tracker = new LineMagnitudesTracker(shape);
    tracker.add(values, 0);
    const result = tracker.result();
    expect(result?.rowDims).toEqual([4, 8]);
    expect(result?.columns).toBeNull();
    expect(result?.rows?.outliers).toEqual([{ index: 19, absMax: 36 }]);
    expect(result?.rows?.maxAt).toBe(19);
  });

  it('leaves NaN and infinities out, and counts only the rows read', () => {
    const [rows, cols] = [32, 16];
    const values = noise(rows * cols, 11);
    values[3] = Number.POSITIVE_INFINITY;
    values[cols + 4] = Number.NEGATIVE_INFINITY;
    values[2 * cols + 5] = Number.NaN;
    const tracker = new LineMagnitudesTracker([rows, cols]);
    // A row sample: rows 0–9 and 20–29.
    tracker.add(values.subarray(0, 10 * cols), 0);
    tracker.add(values.subarray(20 * cols, 30 * cols), 20 * cols);
    const result = tracker.result();
    expect(result?.rows?.of).toBe(20);
    expect(Number.isFinite(result?.rows?.max)).toBe(true);
    const sampled = new Float32Array(values.length).fill(0);
    sampled.set(values.subarray(0, 10 * cols), 0);
    sampled.set(values.subarray(20 * cols, 30 * cols), 20 * cols);
    const { colMax } = lineMaxima(sampled, rows, cols);
    expect(result?.columns?.max).toBeCloseTo(Math.max(...colMax), 6);
    expect(result?.columns?.outlierCount).toBe(0);
  });

  it('keeps the largest outliers, largest first, and counts them all', () => {
    const rows = 400;
    const cols = 8;
    const values = new Float32Array(rows * cols).fill(0.5);
    // 60 rows peak far above the rest, each at its own height.
    for (let k = 0; k < 60; k++) {
      values[(k * 6 + 1) * cols] = 100 + k;
    }
    const tracker = new LineMagnitudesTracker([rows, cols]);
    tracker.add(values, 0);
    const spread = tracker.result()?.rows;
    expect(spread?.outlierCount).toBe(60);
    expect(spread?.outliers).toHaveLength(MAX_OUTLIER_LINES);
    expect(spread?.outliers[0]).toEqual({ index: 59 * 6 + 1, absMax: 159 });
    expect(spread?.outliers.map((line) => line.absMax)).toEqual(
      Array.from({ length: MAX_OUTLIER_LINES }, (_, k) => 159 - k),
    );
    expect(spread?.median).toBe(0.5);
  });

  it('looks at every s-th row when asked for at most so many, from values or from codes alike', () => {
    const [rows, cols] = [100, 16];
    const values = noise(rows * cols, 9);
    // Row 30 is looked at (stride 5), row 31 is not.
    values.fill(80, 30 * cols, 31 * cols);
    values.fill(160, 31 * cols, 32 * cols);
    const strided = new LineMagnitudesTracker([rows, cols], 20);
    expect(strided.rowStride).toBe(5);
    for (let start = 0; start < values.length; start += 37) {
      strided.add(values.subarray(start, start + 37), start);
    }
    const result = strided.result();
    expect(result?.rows?.of).toBe(20);
    expect(result?.rows?.max).toBe(80);
    expect(result?.rows?.maxAt).toBe(30);
    // Columns show in every row: one far above the rest is found in the rows looked at.
    const channels = noise(rows * cols, 13);
    for (let r = 0; r < rows; r++) {
      channels[r * cols + 4] *= 50;
    }
    const columns = new LineMagnitudesTracker([rows, cols], 20);
    columns.add(channels, 0);
    expect(columns.result()?.columns?.outliers.map((line) => line.index)).toEqual([4]);
    expect(columns.result()?.columns?.rowsPeakingInOutliers).toBe(20);

    // The same through BF16 codes: the values rounded to BF16, decoded only for the rows looked at.
    const table = codeTable('BF16') as Float32Array;
    const codes = Uint16Array.from(values, (value) => new Uint16Array(new Float32Array([value]).buffer)[1]);
    const fromCodes = new LineMagnitudesTracker([rows, cols], 20);
    for (let start = 0; start < codes.length; start += 37) {
      fromCodes.addCodes(codes.subarray(start, start + 37), table, start);
    }
    const decoded = new LineMagnitudesTracker([rows, cols], 20);
    decoded.add(
      Float32Array.from(codes, (code) => table[code]),
      0,
    );
    expect(fromCodes.result()).toEqual(decoded.result());
    expect(fromCodes.result()?.rows?.maxAt).toBe(30);
  });

  it('looks at no tensor too small or too flat to have a spread', () => {
    for (const shape of [[4096], [MIN_LINES - 1, 64], [64, 4], []]) {
      const tracker = new LineMagnitudesTracker(shape);
      tracker.add(
        noise(
          shape.reduce((a, b) => a * b, 1),
          1,
        ),
        0,
      );
      expect(tracker.result()).toBeNull();
    }
    // Enough rows but too few of them hold anything: no median.
    const tracker = new LineMagnitudesTracker([64, 16]);
    tracker.add(noise(16 * (MIN_LINES - 1), 1), 0);
    expect(tracker.result()?.rows).toBeNull();
  });
});
