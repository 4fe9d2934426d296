import { describe, expect, it } from 'vitest';
import { headerFromSpecs } from '../../core/testing/models/header-from-specs';
import { tensorShape } from '../../core/model';
import { formatShape, groupDigits } from '../../lib/format';
import { widestNumberChars, widestShapeChars } from './column-widths';

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
});
