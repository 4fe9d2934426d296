import { describe, expect, it } from 'vitest';
import { loraDeltaChunks, loraDeltaLayout, type LoraDeltaLayout } from './lora-delta';
import { planLoraUpdates } from './lora-update';
import { LORA_DELTA_CHUNK_VALUES } from './values-limits';

/** A seeded stream of values in [-1, 1). */
function randomValues(count: number, seed: number): Float32Array {
  let state = seed >>> 0;
  return Float32Array.from({ length: count }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 31 - 1;
  });
}

function layoutOf(tensors: Record<string, number[]>, factor: string): LoraDeltaLayout {
  const names = Object.keys(tensors);
  const dims = (row: number) => tensors[names[row]];
  const layout = loraDeltaLayout(planLoraUpdates(names, dims), names, names.indexOf(factor), dims);
  if (typeof layout === 'string') {
    throw new Error(layout);
  }
  return layout;
}

function formed(layout: LoraDeltaLayout, down: Float32Array, up: Float32Array, scale: number) {
  const out = new Float32Array(layout.rows * layout.cols);
  let chunks = 0;
  let next = 0;
  for (const chunk of loraDeltaChunks(layout, down, up, scale)) {
    expect(chunk.firstElement).toBe(next);
    expect(chunk.values.length % layout.cols).toBe(0);
    out.set(chunk.values, chunk.firstElement);
    next += chunk.values.length;
    chunks++;
  }
  expect(next).toBe(out.length);
  return { out, chunks };
}

/** ΔW[i][j] by the definition: scale · Σ_k B[i][k]·A[k][j], with B as [out, r] and A as [r, in]. */
function bruteForce(b: (i: number, k: number) => number, a: (k: number, j: number) => number, sizes: number[]) {
  const [out, rank, inFeatures, scale] = sizes;
  const delta = new Float32Array(out * inFeatures);
  for (let i = 0; i < out; i++) {
    for (let j = 0; j < inFeatures; j++) {
      let sum = 0;
      for (let k = 0; k < rank; k++) {
        sum += b(i, k) * a(k, j);
      }
      delta[i * inFeatures + j] = scale * sum;
    }
  }
  return delta;
}

describe('loraDeltaChunks', () => {
  it("PEFT's A [r, in] and B [out, r]: ΔW [out, in]", () => {
    const layout = layoutOf({ 'm.lora_A.weight': [3, 7], 'm.lora_B.weight': [5, 3] }, 'm.lora_B.weight');
    const a = randomValues(21, 1);
    const b = randomValues(15, 2);
    expect(layout.shape).toEqual([5, 7]);
    const { out } = formed(layout, a, b, 0.5);
    expect(out).toEqual(
      bruteForce(
        (i, k) => b[i * 3 + k],
        (k, j) => a[k * 7 + j],
        [5, 3, 7, 0.5],
      ),
    );
  });

  it("MLX's a [in, r] and b [r, out]: the same ΔW [out, in]", () => {
    const layout = layoutOf({ 'm.lora_a': [7, 3], 'm.lora_b': [3, 5] }, 'm.lora_a');
    const a = randomValues(21, 3);
    const b = randomValues(15, 4);
    expect(layout.shape).toEqual([5, 7]);
    expect(formed(layout, a, b, 2).out).toEqual(
      bruteForce(
        (i, k) => b[k * 5 + i],
        (k, j) => a[j * 3 + k],
        [5, 3, 7, 2],
      ),
    );
  });

  it("PEFT's embedding: (B·A)ᵀ, [vocab, dim] as the embedding holds it", () => {
    const layout = layoutOf({ 'e.lora_embedding_A': [2, 11], 'e.lora_embedding_B': [4, 2] }, 'e.lora_embedding_A');
    const a = randomValues(22, 5);
    const b = randomValues(8, 6);
    expect(layout.shape).toEqual([11, 4]);
    // Row v of ΔW is token v: Σ_k A[k][v] · B[:, k].
    expect(formed(layout, a, b, 1).out).toEqual(
      bruteForce(
        (v, k) => a[k * 11 + v],
        (k, d) => b[d * 2 + k],
        [11, 2, 4, 1],
      ),
    );
  });

  it("a conv: kohya's [r, in, 3, 3] and [out, r, 1, 1], ΔW [out, in, 3, 3]", () => {
    const layout = layoutOf(
      { 'c.lora_down.weight': [2, 3, 3, 3], 'c.lora_up.weight': [4, 2, 1, 1] },
      'c.lora_down.weight',
    );
    expect(layout.shape).toEqual([4, 3, 3, 3]);
    expect([layout.rows, layout.cols]).toEqual([4, 27]);
    const a = randomValues(54, 7);
    const b = randomValues(8, 8);
    expect(formed(layout, a, b, 1).out).toEqual(
      bruteForce(
        (i, k) => b[i * 2 + k],
        (k, j) => a[k * 27 + j],
        [4, 2, 27, 1],
      ),
    );
  });

  it('rows too long for one chunk come a few at a time, never split', () => {
    const cols = Math.floor(LORA_DELTA_CHUNK_VALUES / 2) + 1;
    const layout = layoutOf({ 'w.lora_A.weight': [1, cols], 'w.lora_B.weight': [3, 1] }, 'w.lora_A.weight');
    const a = randomValues(cols, 9);
    const b = Float32Array.from([1, -2, 0.5]);
    const { out, chunks } = formed(layout, a, b, 1);
    expect(chunks).toBe(3);
    expect(out[2 * cols + 5]).toBe(Math.fround(0.5 * a[5]));
  });

  it('a NaN in a factor reaches every value of its column, even times 0, as numpy’s product does', () => {
    const layout = layoutOf({ 'm.lora_A.weight': [2, 3], 'm.lora_B.weight': [2, 2] }, 'm.lora_A.weight');
    const a = Float32Array.from([1, NaN, 0, 1, 1, 1]);
    const b = Float32Array.from([0, 1, 1, 0]);
    const { out } = formed(layout, a, b, 1);
    expect([...out].map((v) => Number.isNaN(v))).toEqual([false, true, false, false, true, false]);
  });
});
