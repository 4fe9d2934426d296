import { describe, expect, it } from 'vitest';
import { CELL_PADDING_PX, charsInCell, columnsGivingWay, type FitColumn } from './column-fit';

const CH = 7.5;
/** The tensor table's columns as TensorTable.tsx declares them for a Llama file. */
const LLAMA: FitColumn[] = [
  { id: 'name', widthCh: 28, contentCh: 41, flexible: true },
  { id: 'dtype', widthCh: 7 },
  { id: 'shape', widthCh: 14 },
  { id: 'elements', widthCh: 11 },
  { id: 'bytes', widthCh: 9 },
  { id: 'begin', widthCh: 13, givesWay: 2 },
  { id: 'end', widthCh: 13, givesWay: 1 },
];
const px = (columns: readonly FitColumn[]) =>
  columns.reduce((sum, column) => sum + Math.max(column.widthCh, column.contentCh ?? 0) * CH + CELL_PADDING_PX, 0);

describe('columnsGivingWay', () => {
  it('hides nothing when every column fits at its content width', () => {
    expect(columnsGivingWay(LLAMA, px(LLAMA), CH)).toEqual(new Set());
  });

  it('hides End first, then Begin, and stops as soon as the name fits', () => {
    expect(columnsGivingWay(LLAMA, px(LLAMA) - 1, CH)).toEqual(new Set(['end']));
    expect(columnsGivingWay(LLAMA, px(LLAMA) - 13 * CH - CELL_PADDING_PX, CH)).toEqual(new Set(['end']));
    expect(columnsGivingWay(LLAMA, px(LLAMA) - 13 * CH - CELL_PADDING_PX - 1, CH)).toEqual(new Set(['end', 'begin']));
    // Far too narrow: only the columns that may give way do; the name is cut after that.
    expect(columnsGivingWay(LLAMA, 200, CH)).toEqual(new Set(['end', 'begin']));
  });

  it('hides nothing before the table is measured', () => {
    expect(columnsGivingWay(LLAMA, 0, CH)).toEqual(new Set());
    expect(columnsGivingWay(LLAMA, 800, 0)).toEqual(new Set());
  });
});

describe('charsInCell', () => {
  it('counts whole characters inside the padding', () => {
    expect(charsInCell(41 * CH + CELL_PADDING_PX, CH)).toBe(41);
    expect(charsInCell(41 * CH + CELL_PADDING_PX - 1, CH)).toBe(40);
    expect(charsInCell(0, CH)).toBeNull();
  });
});
