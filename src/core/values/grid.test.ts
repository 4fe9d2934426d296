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
