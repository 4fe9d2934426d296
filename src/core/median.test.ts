import { describe, expect, it } from 'vitest';
import { median, medianInPlace } from './median';

describe('median', () => {
  it('takes the middle value, the mean of the two middle ones, or null for none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});

describe('medianInPlace', () => {
  it('agrees with sorting on random, repeated and ordered values, of odd and even counts', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 10 - 5;
    const cases: number[][] = [
      [3],
      [2, 1],
      Array.from({ length: 1001 }, random),
      Array.from({ length: 1000 }, random),
      Array.from({ length: 999 }, (_, i) => i % 3),
      Array.from({ length: 500 }, (_, i) => i),
      Array.from({ length: 500 }, (_, i) => 500 - i),
      Array.from({ length: 64 }, () => 1),
    ];
    for (const values of cases) {
      expect(medianInPlace(Float64Array.from(values))).toBe(median(values));
    }
    expect(medianInPlace(new Float32Array(0))).toBeNull();
  });
});
