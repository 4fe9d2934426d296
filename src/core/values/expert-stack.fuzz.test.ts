/**
 * Stacks of experts of any values a damaged or hostile file holds (random bit patterns, NaN and infinities, zeros,
 * copies, experts all NaN), read in pieces of any size in any order: the scan's per-expert figures, its map of
 * scales and "Compare values"' per-expert sums end without throwing or looping, name only experts that exist, and
 * give a number or null, never NaN.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpertChangesTracker } from './expert-changes';
import { expertChangeMap, stackObservations } from './expert-map';
import { seededRandom } from './read-plan';
import { EXPERT_MARK, expertScaleMap } from './expert-scale-map';
import { scannedTensor } from '../../testing/scan-tensors';
import { TensorScanAccumulator } from './value-scan';

const NAME = 'blk.0.ffn_up_exps.weight';

/** Seeded values: random bit patterns, or ordinary weights with planted zeros, NaN, infinities and copied experts. */
function stack(experts: number, per: number, seed: number, kind: 'bits' | 'planted'): Float32Array {
  const next = seededRandom(seed);
  if (kind === 'bits') {
    return new Float32Array(Uint32Array.from({ length: experts * per }, () => Math.floor(next() * 2 ** 32)).buffer);
  }
  const values = Float32Array.from({ length: experts * per }, () => (next() - 0.5) * 0.04);
  for (let expert = 0; expert < experts; expert++) {
    const pick = next();
    const slice = values.subarray(expert * per, (expert + 1) * per);
    if (pick < 0.15) {
      slice.fill(0);
    } else if (pick < 0.3 && expert > 0) {
      slice.set(values.subarray(0, per));
    } else if (pick < 0.4) {
      slice[Math.floor(next() * per)] = next() < 0.5 ? NaN : -Infinity;
    } else if (pick < 0.5) {
      slice.fill(NaN);
    }
  }
  return values;
}

/** Cuts [0, length) into pieces and shuffles them. */
function pieces(length: number, seed: number): Array<[number, number]> {
  const next = seededRandom(seed);
  const cuts: Array<[number, number]> = [];
  for (let at = 0; at < length;) {
    const end = Math.min(length, at + 1 + Math.floor(next() * 700));
    cuts.push([at, end]);
    at = end;
  }
  return cuts.sort(() => next() - 0.5);
}

const numberOrNull = (value: number | null) => value === null || Number.isFinite(value);

describe('stacks of experts of any values, in pieces of any order', () => {
  it('the scan names only experts that exist, in disjoint groups, with finite figures', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 9 }),
        // Past 4,096 values an expert is also looked at for copies.
        fc.oneof(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 4096, max: 4200 })),
        fc.integer(),
        fc.constantFrom('bits' as const, 'planted' as const),
        (experts, per, seed, kind) => {
          const values = stack(experts, per, seed, kind);
          const scan = new TensorScanAccumulator('F32', values.length, [experts, per, 1], NAME);
          for (const [start, end] of pieces(values.length, seed ^ 0x5bd1)) {
            scan.add(new Uint8Array(values.slice(start, end).buffer), start);
          }
          const figures = scan.result().experts;
          expect(figures).not.toBeNull();
          const found = figures ?? { zeroExperts: [], nonFiniteExperts: [], copies: [], rmsOutliers: [], medianRms: 0 };
          const named = [...found.zeroExperts, ...found.nonFiniteExperts, ...found.copies.flat()];
          expect(named.every((expert) => Number.isInteger(expert) && expert >= 0 && expert < experts)).toBe(true);
          const grouped = found.copies.flat();
          expect(new Set(grouped).size).toBe(grouped.length);
          expect(found.copies.every((group) => group.length >= 2)).toBe(true);
          expect(numberOrNull(found.medianRms)).toBe(true);
          expect(found.rmsOutliers.every(({ rms, ratio }) => Number.isFinite(rms) && Number.isFinite(ratio))).toBe(
            true,
          );
          // The scan's map of scales over the same stack: one cell per expert, a positive ratio or none, and the
          // experts the figures name marked.
          const map = figures && expertScaleMap([{ ...scannedTensor(NAME), experts: figures }], new Set());
          expect(map?.marks.filter((marks) => marks !== null)).toHaveLength(experts);
          expect(map?.ratio.every((ratio) => ratio === null || (Number.isFinite(ratio) && ratio > 0))).toBe(true);
          for (const expert of found.zeroExperts) {
            expect((map?.marks[expert] ?? 0) & EXPERT_MARK.zeros).toBe(EXPERT_MARK.zeros);
          }
          for (const expert of found.nonFiniteExperts) {
            expect((map?.marks[expert] ?? 0) & EXPERT_MARK.nonFinite).toBe(EXPERT_MARK.nonFinite);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('the comparison sums each expert once, and its map holds one cell per expert read', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 9 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer(),
        (experts, per, seed) => {
          const a = stack(experts, per, seed, 'planted');
          const b = stack(experts, per, seed ^ 0x9e37, 'bits');
          const tracker = new ExpertChangesTracker(experts, per);
          for (const [start, end] of pieces(a.length, seed)) {
            tracker.add(a.subarray(start, end), b.subarray(start, end), start);
          }
          const result = tracker.result();
          expect(result?.read.map((expert) => expert.expert)).toEqual([...Array(experts).keys()]);
          for (const expert of result?.read ?? []) {
            expect(expert.elements).toBe(per);
            expect(numberOrNull(expert.relL2) && numberOrNull(expert.cosine) && numberOrNull(expert.scale)).toBe(true);
            expect(expert.changedShare >= 0 && expert.changedShare <= 1).toBe(true);
          }
          const map =
            result && expertChangeMap(stackObservations('model.layers.3.mlp.experts.down_proj', result, false));
          expect(map?.changed.filter((cell) => cell !== null)).toHaveLength(experts);
        },
      ),
      { numRuns: 200 },
    );
  });
});
