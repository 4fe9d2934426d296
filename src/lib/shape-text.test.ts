import { describe, expect, it } from 'vitest';
import { tensorShape } from '../core/model';
import { headerFromSpecs } from '../testing/models/header-from-specs';
import { MAX_VIEWER_ROWS } from './ChunkedText';
import { formatShape, groupDigits } from '../core/number-format';
import { MAX_SHAPE_DIMS_SHOWN, formatTensorShape } from '../core/number-format';
import { SHAPE_DIMS_PER_ROW, shapeRows } from './shape-text';

function columnsWith(shape: number[]) {
  return headerFromSpecs([{ name: 'w', dtype: 'U8', shape }]).tensors;
}

describe('formatTensorShape', () => {
  it('prints ordinary shapes exactly as formatShape does', () => {
    for (const shape of [[], [1], [4096, 11008], Array.from({ length: MAX_SHAPE_DIMS_SHOWN }, (_, i) => i + 1)]) {
      const columns = columnsWith(shape);
      expect(formatTensorShape(columns, 0)).toBe(formatShape(tensorShape(columns, 0)));
    }
  });

  it('bounds a hostile rank: first dims, the last two and the rank', () => {
    const rank = 2_000_000;
    const shape = Array.from({ length: rank }, (_, i) => (i === rank - 1 ? 7 : 1));
    const text = formatTensorShape(columnsWith(shape), 0);
    expect(text.endsWith(`, …, 1, 7] (${groupDigits(rank)} dims)`)).toBe(true);
    expect(text.length).toBeLessThan(120);
  });
});

describe('shapeRows', () => {
  it('covers every dim once, in order, on demand', () => {
    const shape = Array.from({ length: SHAPE_DIMS_PER_ROW * 3 + 5 }, (_, i) => i);
    const rows = shapeRows(columnsWith(shape), 0);
    expect(rows.rowCount).toBe(4);
    const all = Array.from({ length: rows.rowCount }, (_, i) => rows.rowText(i)).join('');
    expect(all).toBe(formatShape(shape));
  });
});

describe('shapeRows for a hostile rank', () => {
  it('keeps the viewer within MAX_VIEWER_ROWS rows, still covering every dim', () => {
    const rank = MAX_VIEWER_ROWS * SHAPE_DIMS_PER_ROW + 7;
    const dims = new Array<number>(rank).fill(1);
    dims[rank - 1] = 9;
    const rows = shapeRows(columnsWith(dims), 0);
    expect(rows.rowCount).toBeLessThanOrEqual(MAX_VIEWER_ROWS);
    expect(rows.rowText(rows.rowCount - 1).endsWith('9]')).toBe(true);
  });
});
