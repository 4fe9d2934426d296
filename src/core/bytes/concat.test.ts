import { describe, expect, it } from 'vitest';
import { concatChunks } from './concat';

describe('concatChunks', () => {
  it('joins chunks in order into a buffer of the total length', () => {
    const joined = concatChunks([Uint8Array.of(1, 2), Uint8Array.of(3), Uint8Array.of(4, 5)], 5);
    expect([...joined]).toEqual([1, 2, 3, 4, 5]);
  });

  it('keeps a lone whole chunk, but copies a view into a larger buffer', () => {
    const whole = Uint8Array.of(7, 8, 9);
    expect(concatChunks([whole], 3)).toBe(whole);
    const pool = Uint8Array.of(0, 7, 8, 9, 0);
    const view = pool.subarray(1, 4);
    const copied = concatChunks([view], 3);
    expect(copied).not.toBe(view);
    expect(copied.buffer).not.toBe(pool.buffer);
    expect([...copied]).toEqual([7, 8, 9]);
  });
});
