import { describe, expect, it } from 'vitest';
import { ChangeRankSampler, MIN_RANK_ROWS } from './change-rank';
import { CHANGE_RANK_ROWS } from './values-limits';

/** A seeded stream of values in [−0.5, 0.5) (xorshift). */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32 - 0.5;
  };
}

const F32 = new Float32Array(1);
const BITS = new Uint32Array(F32.buffer);

/** `x` rounded to the nearest bfloat16 (ties to even), as a merge saving BF16 stores it. */
function bf16(x: number): number {
  F32[0] = x;
  const bits = BITS[0];
  BITS[0] = ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) << 16;
  return F32[0];
}

/**
 * A BF16 [rows, cols] A and B = bf16(A + U·Vᵀ) of the given rank, its directions weakening by `decay` each and the
 * update `relative` of ‖A‖: a LoRA merged and saved in BF16.
 */
function merged(rows: number, cols: number, rank: number, relative: number, decay = 0.9) {
  const random = seeded(rows * 31 + cols + rank);
  const a = Float64Array.from({ length: rows * cols }, () => bf16(random() * 0.05));
  const u = Array.from({ length: rank }, () => Float64Array.from({ length: rows }, random));
  const v = Array.from({ length: rank }, (_, r) => Float64Array.from({ length: cols }, () => random() * decay ** r));
  const update = a.map((_, i) => u.reduce((sum, ur, r) => sum + ur[Math.floor(i / cols)] * v[r][i % cols], 0));
  const norm = (x: Float64Array) => Math.sqrt(x.reduce((sum, value) => sum + value * value, 0));
  const k = (relative * norm(a)) / norm(update);
  return { a, b: a.map((value, i) => bf16(value + k * update[i])) };
}

function sampled(shape: [number, number], a: Float64Array, b: Float64Array, stride: number, dtype: string | null) {
  const sampler = new ChangeRankSampler(shape, stride, dtype);
  sampler.add(a, b, 0);
  return sampler.result();
}

describe('ChangeRankSampler', () => {
  it('names the rank of a merged LoRA over the rounding of its BF16 values', () => {
    const { a, b } = merged(256, 192, 5, 0.05);
    const found = sampled([256, 192], a, b, 2, 'BF16');
    expect(found).toMatchObject({ rowsRead: 128, rows: 256, directions: 128 });
    expect(found?.lowRank?.rank).toBe(5);
    expect(found?.lowRank?.aboveFloor).toBeGreaterThan(5);
    expect(found?.overRounding).toBeGreaterThan(100);
    expect(found?.singularValues).toHaveLength(32);
  });

  it('counts only the directions over the rounding, and claims no rank for a change too close to it', () => {
    // Rank 24 whose directions fall to 0.8²³ ≈ 0.006 of the first: the weakest sink into the rounding.
    const { a, b } = merged(256, 192, 24, 0.02, 0.8);
    const rank = sampled([256, 192], a, b, 2, 'BF16')?.lowRank?.rank ?? 0;
    expect(rank).toBeGreaterThan(5);
    expect(rank).toBeLessThan(24);
    const tiny = merged(256, 192, 4, 0.0005);
    const found = sampled([256, 192], tiny.a, tiny.b, 2, 'BF16');
    expect(found?.overRounding).toBeLessThan(10);
    expect(found?.lowRank).toBeNull();
  });

  it('finds no low rank in a change in every direction, nor without a float grid to size the rounding', () => {
    const random = seeded(9);
    const a = Float64Array.from({ length: 64 * 64 }, () => bf16(random()));
    const everywhere = sampled(
      [64, 64],
      a,
      a.map((value) => bf16(value + random() * 0.05)),
      1,
      'BF16',
    );
    expect(everywhere?.lowRank).toBeNull();
    expect(everywhere?.directions90).toBeGreaterThan(32);
    const { a: base, b: lora } = merged(64, 64, 3, 0.05);
    expect(sampled([64, 64], base, lora, 1, 'BF16')?.lowRank?.rank).toBe(3);
    expect(sampled([64, 64], base, lora, 1, null)).toMatchObject({ lowRank: null, overRounding: null });
  });

  it('takes pieces split anywhere, keeps rows 0, s, 2s, … and at most CHANGE_RANK_ROWS of them', () => {
    const { a, b } = merged(600, 40, 3, 0.05);
    const whole = sampled([600, 40], a, b, 5, 'BF16');
    const pieces = new ChangeRankSampler([600, 40], 5, 'BF16');
    for (let at = 0; at < a.length; at += 997) {
      pieces.add(a.subarray(at, at + 997), b.subarray(at, at + 997), at);
    }
    expect(pieces.result()).toEqual(whole);
    expect(whole?.rowsRead).toBe(CHANGE_RANK_ROWS - 8);
    expect(sampled([600, 40], a, b, 1, 'BF16')?.rowsRead).toBe(CHANGE_RANK_ROWS);
  });

  it('counts NaN and infinities as no change, and says nothing of no change, a few rows, or too little to see', () => {
    const { a, b } = merged(64, 32, 2, 0.05);
    const broken = Float64Array.from(b);
    broken[5] = NaN;
    broken[70] = Infinity;
    expect(sampled([64, 32], a, broken, 1, 'BF16')?.lowRank?.rank).toBe(2);
    expect(sampled([64, 32], a, a, 1, 'BF16')).toBeNull();
    // Four rows changed (new tokens trained, say): four directions, but no low-rank update of the matrix.
    const fewRows = a.map((value, i) => (Math.floor(i / 32) % 20 === 3 ? value + 0.1 : value));
    expect(sampled([64, 32], a, fewRows, 1, 'BF16')).toBeNull();
    expect(sampled([MIN_RANK_ROWS - 1, 32], a.subarray(0, 15 * 32), b.subarray(0, 15 * 32), 1, 'BF16')).toBeNull();
    expect(new ChangeRankSampler([4, 8, 8], 1, 'BF16').result()).toBeNull();
  });
});
