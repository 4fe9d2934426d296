import { describe, expect, it } from 'vitest';
import { movedCell, PAGE_LAYERS } from './grid-keys';

describe('movedCell', () => {
  const at = { row: 5, expert: 3 };
  const move = (key: string, ctrl = false, cell = at) => movedCell(key, ctrl, cell, 30, 8);

  it('moves one cell with the arrows and a page of layers with Page Up and Down', () => {
    expect(move('ArrowLeft')).toEqual({ row: 5, expert: 2 });
    expect(move('ArrowRight')).toEqual({ row: 5, expert: 4 });
    expect(move('ArrowUp')).toEqual({ row: 4, expert: 3 });
    expect(move('ArrowDown')).toEqual({ row: 6, expert: 3 });
    expect(move('PageDown')).toEqual({ row: 5 + PAGE_LAYERS, expert: 3 });
    expect(move('PageUp')).toEqual({ row: 0, expert: 3 });
  });

  it('goes to the ends of the row with Home and End, and of the map with Ctrl', () => {
    expect(move('Home')).toEqual({ row: 5, expert: 0 });
    expect(move('End')).toEqual({ row: 5, expert: 7 });
    expect(move('Home', true)).toEqual({ row: 0, expert: 0 });
    expect(move('End', true)).toEqual({ row: 29, expert: 7 });
  });

  it('stays inside the map at its edges', () => {
    expect(move('ArrowLeft', false, { row: 0, expert: 0 })).toEqual({ row: 0, expert: 0 });
    expect(move('ArrowUp', false, { row: 0, expert: 0 })).toEqual({ row: 0, expert: 0 });
    expect(move('ArrowRight', false, { row: 29, expert: 7 })).toEqual({ row: 29, expert: 7 });
    expect(move('ArrowDown', false, { row: 29, expert: 7 })).toEqual({ row: 29, expert: 7 });
    expect(move('PageDown', false, { row: 25, expert: 1 })).toEqual({ row: 29, expert: 1 });
  });

  it('is no move for other keys', () => {
    expect(move('Enter')).toBeNull();
    expect(move('a')).toBeNull();
    expect(move('Tab')).toBeNull();
  });
});
