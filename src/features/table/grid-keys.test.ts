import { describe, expect, it } from 'vitest';
import { moveGridCursor } from './grid-keys';

const size = { rows: 100, cols: 5, page: 10 };

describe('moveGridCursor', () => {
  it('moves by one cell with arrows and stops at the edges', () => {
    expect(moveGridCursor({ row: 0, col: 0 }, 'ArrowDown', size)).toEqual({ row: 1, col: 0 });
    expect(moveGridCursor({ row: 0, col: 0 }, 'ArrowUp', size)).toEqual({ row: 0, col: 0 });
    expect(moveGridCursor({ row: 3, col: 4 }, 'ArrowRight', size)).toEqual({ row: 3, col: 4 });
    expect(moveGridCursor({ row: 3, col: 4 }, 'ArrowLeft', size)).toEqual({ row: 3, col: 3 });
  });

  it('pages by a screenful and jumps to the ends', () => {
    expect(moveGridCursor({ row: 5, col: 2 }, 'PageDown', size)).toEqual({ row: 15, col: 2 });
    expect(moveGridCursor({ row: 95, col: 2 }, 'PageDown', size)).toEqual({ row: 99, col: 2 });
    expect(moveGridCursor({ row: 5, col: 2 }, 'PageUp', size)).toEqual({ row: 0, col: 2 });
    expect(moveGridCursor({ row: 50, col: 1 }, 'End', size)).toEqual({ row: 99, col: 1 });
    expect(moveGridCursor({ row: 50, col: 1 }, 'Home', size)).toEqual({ row: 0, col: 1 });
  });

  it('ignores other keys and empty grids', () => {
    expect(moveGridCursor({ row: 0, col: 0 }, 'a', size)).toBeNull();
    expect(moveGridCursor({ row: 0, col: 0 }, 'ArrowDown', { rows: 0, cols: 5, page: 10 })).toBeNull();
  });
});
