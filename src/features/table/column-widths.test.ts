import { describe, expect, it } from 'vitest';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { tensorShape } from '../../core/model';
import { formatShape, groupDigits } from '../../core/number-format';
import { tensorColumnWidths, widestNumberChars, widestShapeChars } from './column-widths';

describe('column widths', () => {
  it('measure the widest shape exactly as formatShape prints it', () => {
    const { tensors: columns } = headerFromSpecs([
      { name: 'a', dtype: 'F32', shape: [129280, 7168] },
      { name: 'b', dtype: 'F32', shape: [3] },
      { name: 'c', dtype: 'F32', shape: [] },
    ]);
    let widest = 0;
    for (let row = 0; row < columns.count; row++) {
      widest = Math.max(widest, formatShape(tensorShape(columns, row)).length);
    }
    expect(widestShapeChars(columns)).toBe(widest);
    expect(widest).toBe('[129 280, 7 168]'.length);
  });

  it('measure grouped integers, NaN included', () => {
    expect(widestNumberChars([1, 999, 1000])).toBe(groupDigits(1000).length);
    expect(widestNumberChars([12_345_678_901, 5])).toBe(groupDigits(12_345_678_901).length);
    expect(widestNumberChars([NaN, 3])).toBe(3);
  });

  it('measure a prefix of the rows, or all of them', () => {
    const { tensors: columns } = headerFromSpecs([
      { name: 'a', dtype: 'F32', shape: [3] },
      { name: 'b', dtype: 'F32', shape: [129280, 7168] },
    ]);
    expect(tensorColumnWidths(columns, 1).shape).toBe('[3]'.length);
    expect(tensorColumnWidths(columns).shape).toBe('[129 280, 7 168]'.length);
    expect(tensorColumnWidths(columns).elements).toBe(groupDigits(129280 * 7168).length);
  });
});
