import { describe, expect, it } from 'vitest';
import { partingOf } from './encoding-parting';

describe('partingOf', () => {
  it('is null for the same ids', () => {
    expect(partingOf([1, 2, 3], [1, 2, 3])).toBeNull();
    expect(partingOf([], [])).toBeNull();
  });

  it('marks the middle where a word split otherwise, keeping the shared start and end', () => {
    // "<s> Hello world !": B splits "world" in two.
    expect(partingOf([1, 10, 20, 5], [1, 10, 21, 22, 5])).toEqual({ from: 2, toA: 3, toB: 4 });
  });

  it('marks a token one side adds around the text', () => {
    expect(partingOf([1, 10, 20], [10, 20])).toEqual({ from: 0, toA: 1, toB: 0 });
    expect(partingOf([10, 20], [10, 20, 2])).toEqual({ from: 2, toA: 2, toB: 3 });
  });

  it('never lets the shared end overlap the shared start', () => {
    expect(partingOf([7, 7], [7, 7, 7])).toEqual({ from: 2, toA: 2, toB: 3 });
  });
});
