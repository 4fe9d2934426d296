import { describe, expect, it } from 'vitest';
import { GRID_MAX_COLS, GRID_MAX_ROWS, GridAccumulator, matrixShape } from './grid';

describe('GridAccumulator', () => {
  it('averages equal blocks of a large matrix, fed in uneven chunks', () => {
    const rows = GRID_MAX_ROWS * 2;
    const cols = GRID_MAX_COLS * 3;
    const values = Float32Array.from({ length: rows * cols }, (_, i) => Math.floor(i / cols) * 1000 + (i % cols));
    const grid = new GridAccumulator(rows, cols);
    grid.add(values.subarray(0, 777), 0);
    grid.add(values.subarray(777), 777);
    const out = grid.grid();
    expect([out.gridRows, out.gridCols]).toEqual([GRID_MAX_ROWS, GRID_MAX_COLS]);
    // Cell (1, 2) covers rows 2–3 and columns 6–8: mean row 2.5, mean column 7.
    expect(out.mean[1 * GRID_MAX_COLS + 2]).toBeCloseTo(2500 + 7, 3);
    expect(out.min[1 * GRID_MAX_COLS + 2]).toBe(2006);
    expect(out.max[1 * GRID_MAX_COLS + 2]).toBe(3008);
  });

  it('equals a per-element reference on uneven shapes, chunks and non-finite values', () => {
    for (const [rows, cols] of [
      [7, 1000],
      [300, 5],
      [1, 1234],
      [97, 193],
    ]) {
      const values = Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * 0.37) * (1 + (i % 11)));
      values[rows * cols - 3] = Number.NaN;
      values[Math.floor((rows * cols) / 2)] = -Infinity;
      const grid = new GridAccumulator(rows, cols);
      for (let at = 0, size = 5; at < values.length; at += size, size = size * 2 + 3) {
        grid.add(values.subarray(at, Math.min(values.length, at + size)), at);
      }
      const out = grid.grid();
      const sums = new Float64Array(out.gridRows * out.gridCols);
      const seen = new Float64Array(sums.length);
      const mins = new Float64Array(sums.length).fill(Infinity);
      values.forEach((x, i) => {
        if (Number.isFinite(x)) {
          const row = Math.floor(i / cols);
          const col = i % cols;
          const cell = Math.floor((row * out.gridRows) / rows) * out.gridCols + Math.floor((col * out.gridCols) / cols);
          sums[cell] += x;
          seen[cell]++;
          mins[cell] = Math.min(mins[cell], x);
        }
      });
      sums.forEach((sum, cell) => {
        if (seen[cell] === 0) {
          // A cell whose only value is the infinity.
          expect(out.mean[cell]).toBeNaN();
          return;
        }
        expect(out.mean[cell], `${rows}×${cols} cell ${cell}`).toBeCloseTo(sum / seen[cell], 5);
        expect(out.min[cell]).toBe(mins[cell]);
      });
    }
  });

  it('leaves unread rows empty (NaN), skips non-finite values, and shapes tensors as matrices', () => {
    const grid = new GridAccumulator(4, 2);
    grid.add([1, Number.NaN], 2);
    const out = grid.grid();
    expect([...out.mean]).toEqual([
      Number.NaN,
      Number.NaN,
      1,
      Number.NaN,
      Number.NaN,
      Number.NaN,
      Number.NaN,
      Number.NaN,
    ]);
    expect(matrixShape([2, 3, 4])).toEqual({ rows: 6, cols: 4 });
    expect(matrixShape([7])).toEqual({ rows: 1, cols: 7 });
    expect(matrixShape([])).toEqual({ rows: 1, cols: 1 });
  });
});
