/** Planning a LyCORIS module's update, and its norms against ΔW formed whole. */
import { describe, expect, it } from 'vitest';
import { lycorisDeltaChunks } from './lycoris-delta';
import { lycorisFactors, lycorisProduct, planLycorisModule, type LycorisModulePlan } from './lycoris-update';

/** A module's parts from suffix → shape, rows numbered in that order. */
function planOf(parts: Record<string, number[]>): LycorisModulePlan | string {
  const shapes = Object.values(parts);
  const rows = new Map(Object.keys(parts).map((suffix, row) => [suffix, row]));
  return planLycorisModule('m', rows, (row) => shapes[row]);
}

/** Deterministic values in [-1, 1) for a part of `size` values. */
function valuesOf(size: number, seed: number): Float32Array {
  return Float32Array.from({ length: size }, (_, i) => (((i * 7919 + seed * 104_729) % 1000) - 500) / 500);
}

describe('planLycorisModule', () => {
  it('a LoKr: sizes, the rank bound, and the dim its scale divides alpha by', () => {
    const plan = planOf({ '.lokr_w1': [4, 2], '.lokr_w2_a': [8, 3], '.lokr_w2_b': [3, 16, 3, 3], '.alpha': [] });
    expect(plan).toMatchObject({ kind: 'lokr', outFeatures: 32, inFeatures: 2 * 144, dim: 3, rank: 2 * 3 });
    expect((plan as LycorisModulePlan).parts.has('.alpha')).toBe(false);
    expect(planOf({ '.lokr_w1': [2, 2], '.lokr_w2': [3, 3] })).toMatchObject({ dim: 0, rank: 6 });
  });

  it('says why a module is not measured', () => {
    expect(planOf({ '.lokr_w1': [2, 2] })).toBe('its half W2 is missing (neither lokr_w2 nor both its factors)');
    expect(planOf({ '.lokr_w1': [2, 2], '.lokr_w2_a': [4, 2], '.lokr_w2_b': [3, 4] })).toBe(
      'its lokr_w2_a and lokr_w2_b do not multiply',
    );
    expect(
      planOf({ '.lokr_w1': [2, 2], '.lokr_w2_a': [2, 4], '.lokr_w2_b': [3, 5], '.lokr_t2': [2, 3, 3, 3] }),
    ).toMatchObject({ kind: 'lokr', outFeatures: 8, inFeatures: 2 * 45, rank: 4, dim: 3 });
    expect(planOf({ '.lokr_w1': [2, 2], '.lokr_w2_a': [2, 4], '.lokr_w2_b': [2, 5], '.lokr_t2': [2, 3, 3, 3] })).toBe(
      'its Tucker core lokr_t2 and factors do not multiply',
    );
    expect(planOf({ '.hada_w1_a': [4, 2], '.hada_w1_b': [2, 4], '.hada_w2_a': [4, 2] })).toBe(
      'its hada_w2_b is missing',
    );
    expect(planOf({ '.hada_w1_a': [4, 2], '.hada_w1_b': [2, 4], '.hada_w2_a': [5, 2], '.hada_w2_b': [2, 4] })).toBe(
      'its LoHa factors do not multiply into one shape',
    );
    expect(planOf({ '.oft_blocks': [4, 2, 2] })).toMatch(/OFT/);
    // A part too large to hold decoded, however cheap its Gram (a whole half of 2 × 10⁸ values at rank 2).
    expect(planOf({ '.lokr_w1': [100_000_000, 2], '.lokr_w2': [2, 2] })).toBe('a part holds over 33554432 values');
  });
});

describe('lycorisProduct', () => {
  /** ‖ΔW‖²_F of the module's ΔW at scale 1, formed whole by lycorisDeltaChunks. */
  function formed(plan: LycorisModulePlan, values: Map<string, Float32Array>): number {
    let sum = 0;
    for (const chunk of lycorisDeltaChunks(plan, values, 1)) {
      for (const value of chunk.values) {
        sum += value * value;
      }
    }
    return sum;
  }

  it.each([
    [
      'LoKr, both halves factored',
      { '.lokr_w1_a': [3, 2], '.lokr_w1_b': [2, 5], '.lokr_w2_a': [4, 2], '.lokr_w2_b': [2, 6] },
    ],
    ['LoKr, a tall whole half', { '.lokr_w1': [6, 2], '.lokr_w2_a': [4, 2], '.lokr_w2_b': [2, 6] }],
    ['LoKr, a wide whole half', { '.lokr_w1': [2, 6], '.lokr_w2': [3, 5] }],
    ['LoHa', { '.hada_w1_a': [7, 3], '.hada_w1_b': [3, 9], '.hada_w2_a': [7, 2], '.hada_w2_b': [2, 9] }],
    ['LoKr, a Tucker W2', { '.lokr_w1': [2, 3], '.lokr_w2_a': [2, 4], '.lokr_w2_b': [3, 2], '.lokr_t2': [2, 3, 3, 3] }],
    [
      'LoHa, a Tucker H1',
      {
        '.hada_w1_a': [2, 5],
        '.hada_w1_b': [2, 2],
        '.hada_t1': [2, 2, 3, 3],
        '.hada_w2_a': [5, 2],
        '.hada_w2_b': [2, 18],
      },
    ],
    [
      'LoCon, its core apart',
      { '.lora_up.weight': [5, 2, 1, 1], '.lora_mid.weight': [2, 3, 3, 3], '.lora_down.weight': [3, 4, 1, 1] },
    ],
  ])('%s: the Grams give ΔW formed whole', (_, parts) => {
    const plan = planOf(parts) as LycorisModulePlan;
    const values = new Map(
      [...plan.parts].map(([suffix, row]) => [suffix, valuesOf(plan.sizes.get(row) as number, row + 1)]),
    );
    const product = lycorisProduct(plan, values);
    const want = formed(plan, values);
    expect(Math.abs(product.frobenius2 - want)).toBeLessThanOrEqual(1e-5 * want);
    // σ²_max lies between the mean and the total of the squared singular values.
    expect(product.spectral2).toBeLessThanOrEqual(product.frobenius2 * (1 + 1e-9));
    expect(product.spectral2).toBeGreaterThanOrEqual(product.frobenius2 / plan.rank - 1e-9);
    // Its factors multiply into ΔW as the loaders form it, element for element.
    const { up, down } = lycorisFactors(plan, values);
    const { outFeatures: out, inFeatures: inputs, rank } = plan;
    const formedValues = new Float32Array(out * inputs);
    for (const chunk of lycorisDeltaChunks(plan, values, 1)) {
      formedValues.set(chunk.values, chunk.firstElement);
    }
    for (let o = 0; o < out; o++) {
      for (let i = 0; i < inputs; i++) {
        let cell = 0;
        for (let k = 0; k < rank; k++) {
          cell += up[o * rank + k] * down[k * inputs + i];
        }
        expect(Math.abs(cell - formedValues[o * inputs + i])).toBeLessThanOrEqual(1e-5);
      }
    }
  });
});
