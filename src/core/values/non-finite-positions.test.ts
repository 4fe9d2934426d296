import { describe, expect, it } from 'vitest';
import { indexIn, MAX_NON_FINITE_POSITIONS, NonFiniteLocator } from './non-finite-positions';

describe('NonFiniteLocator', () => {
  it('keeps the first positions by index whatever order the pieces arrive in, once each', () => {
    const locator = new NonFiniteLocator([100, 10], 100, 10);
    const elements = Array.from({ length: 40 }, (_, i) => 995 - i * 25);
    for (const element of elements) {
      locator.note(element, Number.NaN);
    }
    locator.note(20, Number.NaN);
    const found = locator.result();
    const ascending = [...elements].sort((a, b) => a - b).slice(0, MAX_NON_FINITE_POSITIONS);
    expect(found?.first.map((position) => position.element)).toEqual(ascending);
    expect(found?.first[0]).toEqual({ element: 20, at: [2, 0], kind: 'NaN' });
    expect(found).toMatchObject({ rows: 40, ofRows: 100 });
  });

  it('names the kind of each: NaN, +Inf, −Inf', () => {
    const locator = new NonFiniteLocator([4], 1, 4);
    locator.note(3, -Infinity);
    locator.note(1, Infinity);
    expect(locator.result()?.first.map((position) => position.kind)).toEqual(['+Inf', '−Inf']);
    expect(locator.result()?.rows).toBe(1);
  });

  it('nothing seen: null; more rows than are counted: positions without a row count', () => {
    expect(new NonFiniteLocator([8, 8], 8, 8).result()).toBeNull();
    const huge = new NonFiniteLocator([2 ** 25, 2], 2 ** 25, 2);
    huge.note(2 ** 25, Number.NaN);
    expect(huge.result()).toEqual({
      first: [{ element: 2 ** 25, at: [2 ** 24, 0], kind: 'NaN' }],
      rows: null,
      ofRows: 2 ** 25,
    });
  });

  it('indexIn unravels a flat index over a shape, row-major', () => {
    expect(indexIn([8, 4, 3, 3], 2 * 36 + 1 * 9 + 0 * 3 + 2)).toEqual([2, 1, 0, 2]);
    expect(indexIn([], 0)).toEqual([]);
  });
});
