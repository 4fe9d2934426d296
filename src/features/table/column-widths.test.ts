import { describe, expect, it } from 'vitest';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { tensorShape } from '../../core/model';
import { formatShape, groupDigits } from '../../core/number-format';
import {
  tensorColumnWidths,
  widerColumns,
  widestNameChars,
  widestNumberChars,
  widestShapeChars,
} from './column-widths';

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

  it('measure the longest name, capped', () => {
    const { tensors: columns } = headerFromSpecs([
      { name: 'lm_head.weight', dtype: 'F32', shape: [2] },
      { name: 'model.layers.61.post_attention_layernorm.weight', dtype: 'F32', shape: [2] },
    ]);
    expect(widestNameChars(columns)).toBe('model.layers.61.post_attention_layernorm.weight'.length);
    expect(widestNameChars(columns, 0, 1)).toBe('lm_head.weight'.length);
    expect(widestNameChars(columns, 0, 2, 20)).toBe(20);
  });

  it('measure grouped integers, NaN included', () => {
    expect(widestNumberChars([1, 999, 1000])).toBe(groupDigits(1000).length);
    expect(widestNumberChars([12_345_678_901, 5])).toBe(groupDigits(12_345_678_901).length);
    expect(widestNumberChars([NaN, 3])).toBe(3);
    expect(widestNumberChars([5, Infinity, 10])).toBe('Infinity'.length);
    expect(widestNumberChars([-Infinity, 2])).toBe('-Infinity'.length);
    expect(widestNumberChars([NaN, 123_456_789])).toBe(groupDigits(123_456_789).length);
    expect(widestNumberChars([1, 2, 99_999], 0, 2)).toBe(1);
  });

  it('measure a slice of the rows, or all of them', () => {
    const { tensors: columns } = headerFromSpecs([
      { name: 'a', dtype: 'F32', shape: [3] },
      { name: 'b', dtype: 'F32', shape: [129280, 7168] },
    ]);
    expect(tensorColumnWidths(columns, 0, 1).shape).toBe('[3]'.length);
    expect(tensorColumnWidths(columns, 1, 2).shape).toBe('[129 280, 7 168]'.length);
    expect(tensorColumnWidths(columns).shape).toBe('[129 280, 7 168]'.length);
    expect(tensorColumnWidths(columns).elements).toBe(groupDigits(129280 * 7168).length);
  });

  it('merge slices into the measurement of the whole table, whatever the slice size', () => {
    const { tensors: columns } = headerFromSpecs(
      Array.from({ length: 23 }, (_, i) => ({
        name: `t${i}`,
        dtype: 'F32',
        shape: i % 7 === 3 ? [i * 4099, 17] : [i],
      })),
    );
    const whole = tensorColumnWidths(columns);
    for (const slice of [1, 2, 5, 22, 23, 100]) {
      let merged = tensorColumnWidths(columns, 0, slice);
      for (let from = slice; from < columns.count; from += slice) {
        merged = widerColumns(merged, tensorColumnWidths(columns, from, from + slice));
      }
      expect(merged, `slices of ${slice}`).toEqual(whole);
    }
  });
});
