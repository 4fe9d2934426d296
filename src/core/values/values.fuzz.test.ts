/**
 * Every decodable dtype, fed random bytes (any bit pattern a damaged or hostile file holds): "Read values" and the
 * whole-model scan end without throwing, every value lands in a histogram bin, and no figure is NaN where a number is
 * shown (a NaN value is counted as one, never averaged in).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DTYPES } from '../dtypes';
import { decodeUnit } from './decode';
import { GGUF_BLOCKS } from './gguf-blocks';
import { planValuesRead, seededRandom } from './read-plan';
import { ValuesAccumulator } from './tensor-values';
import { TensorScanAccumulator } from './value-scan';

const DECODABLE = [...DTYPES, ...Object.keys(GGUF_BLOCKS)].filter((dtype) => decodeUnit(dtype) !== null);

/** Seeded bytes, so a failing case can be drawn again. */
function noise(length: number, seed: number): Uint8Array {
  const next = seededRandom(seed);
  return Uint8Array.from({ length }, () => Math.floor(next() * 256));
}

function finiteOrNull(value: number | null): boolean {
  return value === null || Number.isFinite(value);
}

describe('values of random bytes, every decodable dtype', () => {
  it.each(DECODABLE)('%s', (dtype) => {
    const unit = decodeUnit(dtype);
    if (unit === null) {
      throw new Error(`${dtype} is not decodable`);
    }
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer(),
        // A constant tensor too: one bit pattern repeated, the range a histogram must still widen.
        fc.boolean(),
        (units, rows, seed, constant) => {
          const elements = units * unit.elements * rows;
          let bytes = noise(units * unit.bytes * rows, seed);
          if (constant) {
            const first = bytes.slice(0, unit.bytes);
            bytes = bytes.map((_, i) => first[i % unit.bytes]);
          }
          const values = new ValuesAccumulator(dtype, [rows, elements / rows], null);
          values.add(bytes, 0);
          const plan = planValuesRead({ byteLength: bytes.length, unit, rows, cols: elements / rows, whole: true });
          const result = values.result('t', 0, plan, { tensorBytes: bytes.length, confirmed: false, started: 0 });
          const { stats, histogram } = result;
          for (const key of ['min', 'max', 'mean', 'std', 'absMax', 'p1', 'p50', 'p99'] as const) {
            expect(finiteOrNull(stats[key]), key).toBe(true);
          }
          const finite = stats.count - stats.nan - stats.posInf - stats.negInf;
          if (histogram !== null) {
            expect(Object.keys(histogram.counts).every((key) => /^\d+$/.test(key))).toBe(true);
            expect(histogram.counts.reduce((a, b) => a + b, 0)).toBe(finite);
            expect(histogram.edges.every(Number.isFinite)).toBe(true);
          }
          const scan = new TensorScanAccumulator(dtype, elements, [rows, elements / rows]);
          scan.add(bytes, 0);
          const scanned = scan.result().stats;
          for (const key of ['min', 'max', 'mean', 'std', 'absMax'] as const) {
            expect(finiteOrNull(scanned[key]), `scan ${key}`).toBe(true);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
