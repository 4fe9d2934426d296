import { describe, expect, it } from 'vitest';
import { codeTable } from './decode';
import { MAX_COLUMNS_TRACKED, MAX_ZERO_RUNS, MIN_LINE_LENGTH, ZeroLinesTracker } from './zero-lines';

/** A rows × cols matrix of ones but for the zero rows and columns given, row-major. */
function matrix(rows: number, cols: number, zeroRows: number[], zeroCols: number[]): Float32Array {
  const values = new Float32Array(rows * cols).fill(1);
  for (const row of zeroRows) {
    values.fill(0, row * cols, (row + 1) * cols);
  }
  for (let row = 0; row < rows; row++) {
    for (const col of zeroCols) {
      values[row * cols + col] = 0;
    }
  }
  return values;
}

describe('ZeroLinesTracker', () => {
  it('finds zero rows and columns as runs, in one piece or many in any order', () => {
    const values = matrix(10, 8, [0, 4, 5, 9], [2, 3, 7]);
    const whole = new ZeroLinesTracker([10, 8]);
    whole.add(values, 0);
    const expected = {
      rowDims: [10],
      rows: {
        count: 4,
        of: 10,
        runs: [
          [0, 0],
          [4, 5],
          [9, 9],
        ],
      },
      columns: {
        count: 3,
        of: 8,
        runs: [
          [2, 3],
          [7, 7],
        ],
      },
    };
    expect(whole.result(true)).toEqual(expected);

    // Pieces of 7 values (rows split anywhere), added last first.
    const pieces = new ZeroLinesTracker([10, 8]);
    for (let start = Math.floor((values.length - 1) / 7) * 7; start >= 0; start -= 7) {
      pieces.add(values.subarray(start, start + 7), start);
    }
    expect(pieces.result(true)).toEqual(expected);
  });

  it('-0 is zero, NaN is not; a dense tensor has none', () => {
    // Ones but row 0 all -0 and +0, row 1 zero but for one NaN, column 1 zero but for a NaN.
    const values = matrix(8, 8, [0, 1], [1]);
    values[0] = -0;
    values[8 + 5] = Number.NaN;
    values[8 * 4 + 1] = Number.NaN;
    const tracker = new ZeroLinesTracker([8, 8]);
    tracker.add(values, 0);
    expect(tracker.result(true)).toEqual({
      rowDims: [8],
      rows: { count: 1, of: 8, runs: [[0, 0]] },
      columns: null,
    });
    // A row whose only non-zero value is its last, a column whose only one is negative: neither is zero.
    const edges = matrix(8, 8, [0, 1, 2], [0, 2, 3]);
    edges[7] = 5;
    edges[8 + 3] = -3;
    const tracker2 = new ZeroLinesTracker([8, 8]);
    tracker2.add(edges, 0);
    expect(tracker2.result(true)).toEqual({
      rowDims: [8],
      rows: { count: 1, of: 8, runs: [[2, 2]] },
      columns: {
        count: 2,
        of: 8,
        runs: [
          [0, 0],
          [2, 2],
        ],
      },
    });
    const dense = new ZeroLinesTracker([8, 8]);
    dense.add(matrix(8, 8, [], []), 0);
    expect(dense.result(true)).toBeNull();
  });

  it('codes of a 16-bit float are judged by their value: either zero code is zero', () => {
    const table = codeTable('BF16');
    if (table === null) {
      throw new Error('BF16 has a code table');
    }
    // 1.0 (0x3f80) everywhere but row 2 and column 5, which alternate -0 (0x8000) and +0.
    const codes = Uint16Array.from(matrix(8, 8, [2], [5]), (value, i) => (value === 1 ? 0x3f80 : i % 2 ? 0x8000 : 0));
    const tracker = new ZeroLinesTracker([8, 8]);
    tracker.addCodes(codes, table, 0);
    expect(tracker.result(true)).toEqual({
      rowDims: [8],
      rows: { count: 1, of: 8, runs: [[2, 2]] },
      columns: { count: 1, of: 8, runs: [[5, 5]] },
    });
  });

  it('a row sample counts only the rows read, and says nothing of columns', () => {
    const values = matrix(100, 8, [10, 11, 50], [1]);
    const tracker = new ZeroLinesTracker([100, 8]);
    for (const row of [3, 10, 11, 50, 70]) {
      tracker.add(values.subarray(row * 8, row * 8 + 8), row * 8);
    }
    expect(tracker.result(false)).toEqual({
      rowDims: [100],
      rows: {
        count: 3,
        of: 5,
        runs: [
          [10, 11],
          [50, 50],
        ],
      },
      columns: null,
    });
  });

  it('rows of a 3-D tensor are every index but the last; columns only for 2-D', () => {
    // [2 experts, 8 rows, 8 cols], expert 1 all zeros, column 0 zero everywhere.
    const values = matrix(16, 8, [8, 9, 10, 11, 12, 13, 14, 15], [0]);
    const tracker = new ZeroLinesTracker([2, 8, 8]);
    tracker.add(values, 0);
    expect(tracker.result(true)).toEqual({
      rowDims: [2, 8],
      rows: { count: 8, of: 16, runs: [[8, 15]] },
      columns: null,
    });
  });

  it(`1-D tensors, single rows or columns, and lines under ${MIN_LINE_LENGTH} values are not looked at`, () => {
    for (const shape of [[8], [1, 8], [8, 1], [], [2, 16, 3]]) {
      const tracker = new ZeroLinesTracker(shape);
      tracker.add(new Float32Array(shape.reduce((a, b) => a * b, 1)), 0);
      expect(tracker.result(true)).toBeNull();
    }
    // Rows of 8 are looked at, columns of 7 are not, and the reverse.
    const short = new ZeroLinesTracker([MIN_LINE_LENGTH - 1, 8]);
    short.add(new Float32Array((MIN_LINE_LENGTH - 1) * 8), 0);
    expect(short.result(true)?.columns).toBeNull();
    expect(short.result(true)?.rows?.count).toBe(MIN_LINE_LENGTH - 1);
    const narrow = new ZeroLinesTracker([8, MIN_LINE_LENGTH - 1]);
    narrow.add(new Float32Array(8 * (MIN_LINE_LENGTH - 1)), 0);
    expect(narrow.result(true)?.rows).toBeNull();
    expect(narrow.result(true)?.columns?.count).toBe(MIN_LINE_LENGTH - 1);
  });

  it(`columns are looked at up to ${MAX_COLUMNS_TRACKED} of them`, () => {
    // Nothing added: every column tracked is one no non-zero value was seen in.
    expect(new ZeroLinesTracker([8, MAX_COLUMNS_TRACKED]).result(true)?.columns?.count).toBe(MAX_COLUMNS_TRACKED);
    expect(new ZeroLinesTracker([8, MAX_COLUMNS_TRACKED + 1]).result(true)).toBeNull();
  });

  it('lists at most MAX_ZERO_RUNS runs and keeps the count exact', () => {
    const zeroRows = Array.from({ length: 50 }, (_, i) => i * 2);
    const tracker = new ZeroLinesTracker([100, 8]);
    tracker.add(matrix(100, 8, zeroRows, []), 0);
    const rows = tracker.result(true)?.rows;
    expect(rows?.count).toBe(50);
    expect(rows?.runs).toHaveLength(MAX_ZERO_RUNS);
    expect(rows?.runs.at(-1)).toEqual([38, 38]);
  });

  it('checks columns only while some column is still unseen', () => {
    const tracker = new ZeroLinesTracker([1000, 64]);
    let reads = 0;
    const dense = matrix(1000, 64, [], []);
    const counting = new Proxy(dense, {
      get(target, key) {
        if (typeof key === 'string' && /^\d+$/.test(key)) {
          reads++;
        }
        return Reflect.get(target, key) as unknown;
      },
    });
    tracker.add(counting, 0);
    // The first row's 64 values for the columns and one per row for the rows: about 1,064, not 64,000.
    expect(reads).toBeLessThan(1200);
    expect(tracker.result(true)).toBeNull();
  });
});
