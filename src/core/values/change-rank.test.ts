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

/** A [rows, cols] A and a B = A + U·Vᵀ of the given rank, plus iid noise of `noise` (rounding). */
function pair(rows: number, cols: number, rank: number, noise: number): { a: Float64Array; b: Float64Array } {
  const random = seeded(rows * 31 + cols + rank);
  const u = Array.from({ length: rank }, () => Float64Array.from({ length: rows }, random));
  const v = Array.from({ length: rank }, (_, r) => Float64Array.from({ length: cols }, () => random() / (r + 1)));
  const a = Float64Array.from({ length: rows * cols }, random);
  const b = a.map((value, i) => {
    const [row, col] = [Math.floor(i / cols), i % cols];
    let update = 0;
    for (let r = 0; r < rank; r++) {
      update += u[r][row] * v[r][col];
    }
    return value + update + noise * random();
  });
  return { a, b };
}

function sampled(shape: [number, number], a: Float64Array, b: Float64Array, stride: number) {
  const sampler = new ChangeRankSampler(shape, stride);
  sampler.add(a, b, 0);
  return sampler.result();
}

describe('ChangeRankSampler', () => {
  it('names the rank of a low-rank change above a rounding floor', () => {
    const { a, b } = pair(256, 96, 5, 1e-5);
    const found = sampled([256, 96], a, b, 2);
    expect(found).toMatchObject({ rowsRead: 128, rows: 256, directions: 96 });
    expect(found?.lowRank?.rank).toBe(5);
    expect(found?.lowRank?.gap).toBeGreaterThan(100);
    expect(found?.directions99).toBeLessThanOrEqual(5);
    expect(found?.singularValues).toHaveLength(32);
  });

  it('finds no low rank in a change in every direction, nor past half the directions', () => {
    const random = seeded(9);
    const a = Float64Array.from({ length: 64 * 64 }, random);
    const everywhere = sampled(
      [64, 64],
      a,
      a.map((value) => value + random() * 0.01),
      1,
    );
    expect(everywhere?.lowRank).toBeNull();
    expect(everywhere?.directions90).toBeGreaterThan(32);
    const { a: base, b: wide } = pair(64, 64, 40, 1e-6);
    const found = sampled([64, 64], base, wide, 1);
    expect(found?.directions99).toBeLessThanOrEqual(40);
    expect(found?.lowRank).toBeNull();
  });

  it('takes pieces split anywhere, keeps rows 0, s, 2s, … and at most CHANGE_RANK_ROWS of them', () => {
    const { a, b } = pair(600, 40, 3, 0);
    const whole = sampled([600, 40], a, b, 5);
    const pieces = new ChangeRankSampler([600, 40], 5);
    for (let at = 0; at < a.length; at += 997) {
      pieces.add(a.subarray(at, at + 997), b.subarray(at, at + 997), at);
    }
    expect(pieces.result()).toEqual(whole);
    expect(whole?.rowsRead).toBe(CHANGE_RANK_ROWS - 8);
    expect(sampled([600, 40], a, b, 1)?.rowsRead).toBe(CHANGE_RANK_ROWS);
  });

  it('counts NaN and infinities as no change, and says nothing of no change or too little to see', () => {
    const { a, b } = pair(64, 32, 2, 0);
    const broken = Float64Array.from(b);
    broken[5] = NaN;
    broken[70] = Infinity;
    expect(sampled([64, 32], a, broken, 1)?.lowRank?.rank).toBe(2);
    expect(sampled([64, 32], a, a, 1)).toBeNull();
    // Four rows changed (new tokens trained, say): four directions, but no low-rank update of the matrix.
    const fewRows = a.map((value, i) => (Math.floor(i / 32) % 20 === 3 ? value + 0.1 : value));
    expect(sampled([64, 32], a, fewRows, 1)).toBeNull();
    expect(sampled([MIN_RANK_ROWS - 1, 32], a.subarray(0, 15 * 32), b.subarray(0, 15 * 32), 1)).toBeNull();
    expect(new ChangeRankSampler([4, 8, 8], 1).result()).toBeNull();
  });
});
