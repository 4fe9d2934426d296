import { describe, expect, it } from 'vitest';
import { GRID_MAX_COLS, GRID_MAX_ROWS, GridAccumulator, LINE_MAX_POINTS, matrixShape } from './grid';

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
    // A heatmap shows means only and keeps no extremes per cell.
    expect([out.min.length, out.max.length]).toEqual([0, 0]);
  });

  it("a line's cells keep their least and greatest values", () => {
    const values = Float32Array.from({ length: 2000 }, (_, i) => (i % 7) - 3 + i / 1000);
    const grid = new GridAccumulator(1, values.length);
    grid.add(values.subarray(0, 333), 0);
    grid.add(values.subarray(333), 333);
    const out = grid.grid();
    expect([out.gridRows, out.gridCols, out.min.length]).toEqual([1, LINE_MAX_POINTS, LINE_MAX_POINTS]);
    for (let cell = 0; cell < LINE_MAX_POINTS; cell++) {
      const from = Math.ceil((cell * values.length) / LINE_MAX_POINTS);
      const to = Math.ceil(((cell + 1) * values.length) / LINE_MAX_POINTS);
      const run = values.subarray(from, to);
      expect(out.min[cell]).toBe(Math.min(...run));
      expect(out.max[cell]).toBe(Math.max(...run));
    }
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
      const maxs = new Float64Array(sums.length).fill(-Infinity);
      values.forEach((x, i) => {
        if (Number.isFinite(x)) {
          const row = Math.floor(i / cols);
          const col = i % cols;
          const cell = Math.floor((row * out.gridRows) / rows) * out.gridCols + Math.floor((col * out.gridCols) / cols);
          sums[cell] += x;
          seen[cell]++;
          mins[cell] = Math.min(mins[cell], x);
          maxs[cell] = Math.max(maxs[cell], x);
        }
      });
      sums.forEach((sum, cell) => {
        if (seen[cell] === 0) {
          // A cell whose only value is the infinity.
          expect(out.mean[cell]).toBeNaN();
          return;
        }
        expect(out.mean[cell], `${rows}×${cols} cell ${cell}`).toBeCloseTo(sum / seen[cell], 5);
        if (rows === 1) {
          expect(out.min[cell]).toBe(mins[cell]);
          expect(out.max[cell]).toBe(maxs[cell]);
        }
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
