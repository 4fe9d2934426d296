import { describe, expect, it } from 'vitest';
import { forEachRowRun } from './row-runs';

describe('forEachRowRun', () => {
  it('cuts a piece that starts and ends inside rows at each row end', () => {
    const runs: number[][] = [];
    forEachRowRun(9, 5, 4, (row, col, start, end) => runs.push([row, col, start, end]));
    // Elements 5 … 13 of a 4-column matrix: row 1 from column 1, row 2, row 3 up to column 1.
    expect(runs).toEqual([
      [1, 1, 0, 3],
      [2, 0, 3, 7],
      [3, 0, 7, 9],
    ]);
  });

  it('visits nothing for an empty piece, and one run for a piece inside a row', () => {
    const runs: number[][] = [];
    forEachRowRun(0, 3, 4, (...run) => runs.push(run));
    forEachRowRun(2, 9, 4, (...run) => runs.push(run));
    expect(runs).toEqual([[2, 1, 0, 2]]);
  });
});
