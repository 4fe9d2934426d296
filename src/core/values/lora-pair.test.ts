import { describe, expect, it } from 'vitest';
import { compareUpdates, pairByLayer, type ModuleFactors } from './lora-pair';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
}

/** PEFT layout: A [r, in] rank-first, B [out, r] rank-last. */
function module(
  a: Float32Array,
  b: Float32Array,
  rank: number,
  inFeatures: number,
  out: number,
  scale: number,
): ModuleFactors {
  return {
    down: { values: a, layout: { rank, length: inFeatures, rankFirst: true } },
    up: { values: b, layout: { rank, length: out, rankFirst: false } },
    scale,
  };
}

function product(a: Float32Array, b: Float32Array, rank: number, inFeatures: number, out: number, scale: number) {
  const delta = new Float64Array(out * inFeatures);
  for (let o = 0; o < out; o++) {
    for (let i = 0; i < inFeatures; i++) {
      let sum = 0;
      for (let k = 0; k < rank; k++) {
        sum += b[o * rank + k] * a[k * inFeatures + i];
      }
      delta[o * inFeatures + i] = scale * sum;
    }
  }
  return delta;
}

const dot = (x: Float64Array, y: Float64Array) => x.reduce((sum, value, i) => sum + value * y[i], 0);

describe('compareUpdates', () => {
  it('gives the norms, cosine and relative difference of the two products, ranks and scales apart', () => {
    const next = random(21);
    const [inFeatures, out] = [9, 7];
    const a1 = Float32Array.from({ length: 3 * inFeatures }, next);
    const b1 = Float32Array.from({ length: out * 3 }, next);
    const a2 = Float32Array.from({ length: 5 * inFeatures }, next);
    const b2 = Float32Array.from({ length: out * 5 }, next);
    const figures = compareUpdates(module(a1, b1, 3, inFeatures, out, 2), module(a2, b2, 5, inFeatures, out, 0.5));
    const d1 = product(a1, b1, 3, inFeatures, out, 2);
    const d2 = product(a2, b2, 5, inFeatures, out, 0.5);
    const diff = d2.map((value, i) => value - d1[i]);
    expect(figures.normA).toBeCloseTo(Math.sqrt(dot(d1, d1)), 10);
    expect(figures.normB).toBeCloseTo(Math.sqrt(dot(d2, d2)), 10);
    expect(figures.cosine).toBeCloseTo(dot(d1, d2) / Math.sqrt(dot(d1, d1) * dot(d2, d2)), 10);
    expect(figures.relDiff).toBeCloseTo(Math.sqrt(dot(diff, diff) / dot(d1, d1)), 10);
  });

  it('sees the same update through rotated factors, which differ tensor by tensor', () => {
    const next = random(5);
    const [inFeatures, out] = [6, 4];
    const a = Float32Array.from({ length: 2 * inFeatures }, next);
    const b = Float32Array.from({ length: out * 2 }, next);
    // A' = Rᵀ·A, B' = B·R with R a rotation by 90°: B'·A' = B·A, every factor value moved.
    const rotatedA = Float32Array.from({ length: a.length }, (_, i) =>
      i < inFeatures ? a[i + inFeatures] : -a[i - inFeatures],
    );
    const rotatedB = Float32Array.from({ length: b.length }, (_, i) => (i % 2 === 0 ? b[i + 1] : -b[i - 1]));
    const figures = compareUpdates(
      module(a, b, 2, inFeatures, out, 1),
      module(rotatedA, rotatedB, 2, inFeatures, out, 1),
    );
    expect(figures.cosine).toBeCloseTo(1, 6);
    expect(figures.relDiff).toBeCloseTo(0, 3);
    expect(rotatedA).not.toEqual(a);
  });

  it('has no cosine for a zero update, and averages per layer what it has', () => {
    const zero = compareUpdates(
      module(new Float32Array(4), new Float32Array(4), 2, 2, 2, 1),
      module(Float32Array.of(1, 0, 0, 1), Float32Array.of(1, 0, 0, 1), 2, 2, 2, 1),
    );
    expect(zero).toMatchObject({ normA: 0, cosine: null, relDiff: null });
    expect(
      pairByLayer([
        { module: 'm.layers.1.q', normA: 1, normB: 1, cosine: 1, relDiff: 0 },
        { module: 'm.layers.1.v', normA: 1, normB: 1, cosine: 0.5, relDiff: 1 },
        { module: 'm.layers.0.q', normA: 0, normB: 1, cosine: null, relDiff: null },
      ]),
    ).toEqual([{ stack: 'm.layers.', layer: 1, relDiff: 0.5, cosine: 0.75, modules: 2 }]);
  });
});
