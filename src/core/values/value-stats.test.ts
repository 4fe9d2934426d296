import { describe, expect, it } from 'vitest';
import { caseBytes, valuesFixture, present } from '../../testing/values-fixtures';
import { codesOf, codeTable, decodeValues, MIN_NORMAL } from './decode';
import { HISTOGRAM_BINS, StatsAccumulator } from './value-stats';

/** 2^−7: the sketch's relative bound for values BF16 cannot hold (stats.ts). */
const SKETCH_BOUND = 2 ** -7;

describe('StatsAccumulator against numpy over the stored values', () => {
  it.each(valuesFixture('stats').map((entry) => [entry.dtype, entry] as const))('%s', (dtype, entry) => {
    const want = present(entry.stats);
    const values = present(decodeValues(dtype, caseBytes(entry)));
    const stats = new StatsAccumulator(MIN_NORMAL[dtype]);
    // Uneven chunks, so the merge is exercised.
    for (let at = 0, size = 1; at < values.length; at += size, size = size * 3 + 7) {
      stats.add(values.subarray(at, Math.min(values.length, at + size)));
    }
    const got = stats.stats();
    for (const key of ['count', 'nan', 'posInf', 'negInf', 'zeros', 'subnormals', 'min', 'max', 'absMax'] as const) {
      expect(got[key], key).toBe(want[key]);
    }
    expect(Math.abs(present(got.mean) - (want.mean as number)) / Math.abs(want.mean as number)).toBeLessThan(1e-9);
    expect(Math.abs(present(got.std) - (want.std as number)) / (want.std as number)).toBeLessThan(1e-9);
    const bf16Exact = dtype === 'BF16';
    for (const key of ['p1', 'p50', 'p99'] as const) {
      const expected = want[key] as number;
      if (bf16Exact) {
        expect(got[key], key).toBeCloseTo(expected, 12);
      } else {
        expect(Math.abs(present(got[key]) - expected), key).toBeLessThanOrEqual(SKETCH_BOUND * Math.abs(expected) * 2);
      }
    }
    const histogram = present(stats.histogram(HISTOGRAM_BINS));
    expect(histogram.edges).toEqual(want.histogram.edges);
    expect(histogram.counts.reduce((a, b) => a + b, 0)).toBe(want.histogram.counts.reduce((a, b) => a + b, 0));
    if (bf16Exact) {
      expect(histogram.counts).toEqual(want.histogram.counts);
    } else {
      const moved = histogram.counts.reduce((sum, count, i) => sum + Math.abs(count - want.histogram.counts[i]), 0);
      expect(moved / got.count).toBeLessThan(0.02);
    }
  });

  it('a tensor with no finite value has counts and no moments', () => {
    const stats = new StatsAccumulator(2 ** -126);
    stats.add(new Float32Array([Number.NaN, Infinity, -Infinity]));
    expect(stats.stats()).toMatchObject({ count: 3, nan: 1, posInf: 1, negInf: 1, min: null, mean: null, p50: null });
    expect(stats.histogram()).toBeNull();
  });

  it('a constant tensor: std 0 and numpy’s ±0.5 histogram range', () => {
    const stats = new StatsAccumulator(2 ** -126);
    stats.add(new Float32Array(1000).fill(0.25));
    expect(stats.stats()).toMatchObject({ mean: 0.25, std: 0, p1: 0.25, p99: 0.25 });
    const histogram = present(stats.histogram(4));
    expect(histogram.edges).toEqual([-0.25, 0, 0.25, 0.5, 0.75]);
    expect(histogram.counts).toEqual([0, 0, 1000, 0]);
  });

  it('mean and std stay sound far from zero (no Σx² − (Σx)²/n cancellation)', () => {
    const values = new Float64Array(100000).map((_, i) => 1e9 + (i % 2 ? 1 : -1));
    const stats = new StatsAccumulator(0);
    for (let at = 0; at < values.length; at += 4096) {
      stats.add(values.subarray(at, at + 4096));
    }
    expect(stats.stats().mean).toBe(1e9);
    expect(stats.stats().std).toBeCloseTo(1, 12);
  });
});

describe('StatsAccumulator.addCodes (8- and 16-bit floats counted by code)', () => {
  const coded = valuesFixture('stats').filter((entry) => codeTable(entry.dtype) !== null);

  it('the fixture holds code-table dtypes', () => {
    expect(coded.map((entry) => entry.dtype)).toEqual(expect.arrayContaining(['F16', 'BF16']));
  });

  it.each(coded.map((entry) => [entry.dtype, entry] as const))('%s equals numpy', (dtype, entry) => {
    const want = present(entry.stats);
    const bytes = caseBytes(entry);
    const table = present(codeTable(dtype));
    const stats = new StatsAccumulator(MIN_NORMAL[dtype]);
    const unit = dtype.startsWith('F8_') ? 1 : 2;
    for (let at = 0, size = unit; at < bytes.length; at += size, size = (size * 3 + 7 * unit) & ~(unit - 1)) {
      // Odd offsets too: the codes are then copied out of an unaligned view.
      const part = new Uint8Array(bytes.length + 1).subarray(1, 1 + Math.min(size, bytes.length - at));
      part.set(bytes.subarray(at, at + part.length));
      stats.addCodes(codesOf(dtype, part), table);
    }
    const got = stats.stats();
    for (const key of ['count', 'nan', 'posInf', 'negInf', 'zeros', 'subnormals', 'min', 'max', 'absMax'] as const) {
      expect(got[key], key).toBe(want[key]);
    }
    expect(Math.abs(present(got.mean) - (want.mean as number)) / Math.abs(want.mean as number)).toBeLessThan(1e-9);
    expect(Math.abs(present(got.std) - (want.std as number)) / (want.std as number)).toBeLessThan(1e-9);
    const histogram = present(stats.histogram(HISTOGRAM_BINS));
    expect(histogram.edges).toEqual(want.histogram.edges);
    if (dtype === 'BF16') {
      expect(histogram.counts).toEqual(want.histogram.counts);
      expect(got.p50).toBeCloseTo(want.p50 as number, 12);
    }
  });

  it('mixes with float chunks in one accumulator', () => {
    const stats = new StatsAccumulator(2 ** -126);
    stats.add(new Float32Array([1, 2, Number.NaN]));
    stats.addCodes(new Uint16Array([0x3f80, 0x4000, 0x0000, 0x7f80]), present(codeTable('BF16')));
    expect(stats.stats()).toMatchObject({ count: 7, nan: 1, posInf: 1, zeros: 1, min: 0, max: 2, mean: 1.2 });
  });
});

describe('StatsAccumulator: the finite float32 loop equals the checked loop', () => {
  it.each([
    ['F32 with zeros and subnormals', 2 ** -126, [0, -0, 1e-40, -3e-42, 0.5, -2, 3.25, 1e-3]],
    ['dequantized (no subnormals: only zeros are counted)', 0, [0, 1e-40, -0.75, 4, 0, 2.5e-39]],
    ['far from zero', 2 ** -126, Array.from({ length: 5000 }, (_, i) => 3e4 + (i % 7) * 0.125)],
    [
      'F16 decoded: subnormal below 2^-14, normal just above it, first seen in a later chunk',
      2 ** -14,
      [0.5, -1, 2, 3, 4, 5, 2 ** -14, -(2 ** -14) * 1.001, 2 ** -15, -(2 ** -20), 0, 7],
    ],
  ])('%s', (_, minNormal, list) => {
    const float32 = Float32Array.from(list as number[]);
    const fast = new StatsAccumulator(minNormal as number);
    const checked = new StatsAccumulator(minNormal as number);
    for (let at = 0; at < float32.length; at += 3) {
      fast.add(float32.subarray(at, at + 3));
      checked.add(Float64Array.from(float32.subarray(at, at + 3)));
    }
    const want = checked.stats();
    const got = fast.stats();
    for (const key of ['count', 'zeros', 'subnormals', 'min', 'max', 'p1', 'p50', 'p99'] as const) {
      expect(got[key], key).toBe(want[key]);
    }
    expect(present(got.mean)).toBeCloseTo(present(want.mean), 9);
    expect(present(got.std)).toBeCloseTo(present(want.std), 9);
    expect(fast.histogram()).toEqual(checked.histogram());
    const scan = new StatsAccumulator(minNormal as number, false);
    for (let at = 0; at < float32.length; at += 3) {
      scan.add(float32.subarray(at, at + 3));
    }
    expect([scan.stats().zeros, scan.stats().subnormals]).toEqual([want.zeros, want.subnormals]);
  });
});

describe('histogram and quantiles at the ends of the number line', () => {
  const histogramOf = (values: Float32Array | Float64Array) => {
    const stats = new StatsAccumulator(0);
    stats.add(values);
    return { histogram: present(stats.histogram(HISTOGRAM_BINS)), stats: stats.stats() };
  };
  const wellFormed = (histogram: { edges: number[]; counts: number[] }, total: number) => {
    // Every value lands in a bin (none under a stray key), and the edges are finite and ascending.
    expect(Object.keys(histogram.counts).every((key) => /^\d+$/.test(key))).toBe(true);
    expect(histogram.counts.reduce((a, b) => a + b, 0)).toBe(total);
    expect(histogram.edges.every((edge) => Number.isFinite(edge))).toBe(true);
    expect(histogram.edges.every((edge, i) => i === 0 || edge >= histogram.edges[i - 1])).toBe(true);
  };

  it('a constant past 2^53, where ±0.5 vanishes, still has one bin of width', () => {
    for (const value of [1e38, 2 ** 127, -3e38, 2 ** 60]) {
      const { histogram } = histogramOf(new Float32Array(5).fill(value));
      wellFormed(histogram, 5);
      expect(histogram.edges[0]).toBeLessThan(value);
      expect(histogram.edges[HISTOGRAM_BINS]).toBeGreaterThan(value);
    }
    // Below 2^53 the range is numpy's: the value ± 0.5.
    expect(histogramOf(new Float32Array(3).fill(7)).histogram.edges[0]).toBe(6.5);
  });

  it('float64 values near ±1.8e308: the width overflows, the bins and quantiles do not', () => {
    const values = Float64Array.from([-1.5e308, 0, 1.5e308, 1.7e308]);
    const { histogram, stats } = histogramOf(values);
    wellFormed(histogram, 4);
    expect(histogram.counts[0]).toBe(1);
    expect(histogram.counts[HISTOGRAM_BINS - 1]).toBe(2);
    for (const key of ['p1', 'p50', 'p99'] as const) {
      expect(Number.isFinite(present(stats[key])), key).toBe(true);
    }
    // The squares overflow: no standard deviation rather than NaN.
    expect(stats.std).toBeNull();
    expect(stats.min).toBe(-1.5e308);
  });
});
