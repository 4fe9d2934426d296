import { describe, expect, it } from 'vitest';
import { WarmBuffers } from './warm-memory';

describe('WarmBuffers', () => {
  it('hands out the smallest warmed buffer that holds a request, once', () => {
    const memory = new WarmBuffers();
    memory.warm(10_000);
    memory.warm(6_000);
    const taken = memory.take(5_000);
    expect(taken.byteLength).toBe(6_000);
    expect(new Uint8Array(taken).every((byte) => byte === 0)).toBe(true);
    expect(memory.sizes).toEqual([10_000]);
    expect(memory.take(7_000).byteLength).toBe(10_000);
    expect(memory.sizes).toEqual([]);
    expect(memory.take(7_000).byteLength).toBe(7_000);
  });

  it('allocates afresh for a request larger than any warmed buffer, or under half of the smallest that fits', () => {
    const memory = new WarmBuffers();
    memory.warm(10_000);
    expect(memory.take(10_001).byteLength).toBe(10_001);
    expect(memory.take(4_000).byteLength).toBe(4_000);
    expect(memory.sizes).toEqual([10_000]);
    memory.clear();
    expect(memory.sizes).toEqual([]);
  });

  it('warms nothing for an empty or invalid size', () => {
    const memory = new WarmBuffers();
    memory.warm(0);
    memory.warm(Number.NaN);
    expect(memory.sizes).toEqual([]);
  });
});
