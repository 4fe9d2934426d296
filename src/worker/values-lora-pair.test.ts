/**
 * "Compare values" of two LoRAs: two runs of a PEFT adapter for the tiny llama (scripts/lora-update-fixtures.py),
 * compared update against update, each module's cosine and relative difference against numpy's full products.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPARE_RULES } from '../core/compare/align';
import { compareSides } from '../core/compare/compare';
import { valuePairings } from '../core/compare/value-pairs';
import { buildSafetensors } from '../testing/build-safetensors';
import { keptFile, keptLoad } from '../testing/kept-load';
import { adapterFolder, keptValuesFixture, loraAnswers } from '../testing/lora-fixtures';
import { present } from '../testing/values-fixtures';
import { compareTensorValues } from './values-compare';

interface Expected {
  normA: number;
  normB: number;
  cosine: number;
  relDiff: number;
}

const EXPECTED = loraAnswers<Expected>('lora-tiny-llama-b/adapter_model.safetensors');

const job = () => ({ signal: new AbortController().signal, progress: () => {} });

describe('Compare values: two LoRAs, update against update', () => {
  it('gives each module both adapt its cosine and relative difference, as numpy does from the full products', async () => {
    const a = await keptLoad(adapterFolder('lora-tiny-llama'));
    const b = await keptLoad(adapterFolder('lora-tiny-llama-b'));
    const output = compareSides(a, b, DEFAULT_COMPARE_RULES);
    const result = await compareTensorValues(a, b, valuePairings(a, b, output.entries, output.ggufNames), job());
    const pair = present(result.loraPair, 'loraPair');
    expect(pair).toMatchObject({ onlyA: 0, onlyB: 0, unmeasured: 0 });
    expect(pair.modules.map((m) => m.module).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const module of pair.modules) {
      const want = EXPECTED[module.module];
      expect(Math.abs(module.normA - want.normA), module.module).toBeLessThanOrEqual(1e-6 * want.normA);
      expect(Math.abs(module.normB - want.normB), module.module).toBeLessThanOrEqual(1e-6 * want.normB);
      expect(Math.abs((module.cosine ?? NaN) - want.cosine), module.module).toBeLessThanOrEqual(1e-6);
      expect(Math.abs((module.relDiff ?? NaN) - want.relDiff), module.module).toBeLessThanOrEqual(1e-5);
    }
    // Layer 0's factors were rotated: every factor tensor changed, the updates did not.
    const rotated = result.tensors.filter((t) => t.tensor.includes('layers.0.') && !t.identical);
    expect(rotated).toHaveLength(6);
    expect(pair.byLayer.map((layer) => [layer.layer, layer.modules])).toEqual([
      [0, 3],
      [1, 3],
    ]);
    expect(pair.byLayer[0].cosine).toBeCloseTo(1, 6);
    expect(pair.byLayer[1].relDiff).toBeGreaterThan(0.1);
  });

  it('a LoKr against the same update as a LoRA pair, and against itself with one half doubled', async () => {
    const module = 'lora_unet_down_blocks_0_attentions_0_proj_in';
    // ΔW = kron(W1 [2, 2], a2 [4, 2] · b2 [2, 3]), scale alpha 2 / dim 2 = 1.
    const w1 = [0.5, -1, 2, 0.25];
    const a2 = [1, 0, 0.5, -0.5, -1, 2, 0.25, 1];
    const b2 = [0.1, -0.2, 0.3, 0.4, 0.5, -0.6];
    const lokr = (first: number[]) =>
      f32File({
        [`${module}.lokr_w1`]: [[2, 2], first],
        [`${module}.lokr_w2_a`]: [[4, 2], a2],
        [`${module}.lokr_w2_b`]: [[2, 3], b2],
        [`${module}.alpha`]: [[], [2]],
      });
    // The same ΔW as a LoRA pair, factored otherwise than the LoKr's: kron(W1, a2) · kron(I₂, b2), alpha 4 / rank 4.
    const up = kronOf([2, 2], w1, [4, 2], a2);
    const down = kronOf([2, 2], [1, 0, 0, 1], [2, 3], b2);
    const pairFile = f32File({
      [`${module}.lora_down.weight`]: [[4, 6], down],
      [`${module}.lora_up.weight`]: [[8, 4], up],
      [`${module}.alpha`]: [[], [4]],
    });
    const compare = async (a: Uint8Array, b: Uint8Array) => {
      const [left, right] = await Promise.all([keptFile(a, 'a.safetensors'), keptFile(b, 'b.safetensors')]);
      const output = compareSides(left, right, DEFAULT_COMPARE_RULES);
      const result = await compareTensorValues(
        left,
        right,
        valuePairings(left, right, output.entries, output.ggufNames),
        job(),
      );
      return present(result.loraPair, 'loraPair');
    };
    const same = await compare(lokr(w1), pairFile);
    expect(same).toMatchObject({ onlyA: 0, onlyB: 0, unmeasured: 0 });
    expect(same.modules[0].cosine).toBeCloseTo(1, 6);
    expect(same.modules[0].relDiff).toBeLessThan(1e-6);
    expect(same.modules[0].normA).toBeCloseTo(same.modules[0].normB, 6);
    const doubled = await compare(lokr(w1), lokr(w1.map((v) => 2 * v)));
    expect(doubled.modules[0].cosine).toBeCloseTo(1, 6);
    expect(doubled.modules[0].relDiff).toBeCloseTo(1, 6);
  });

  it('has no pair section when only one side is a LoRA', async () => {
    const a = await keptLoad(adapterFolder('lora-tiny-llama'));
    const b = await keptValuesFixture('tiny-llama-hf.safetensors');
    const output = compareSides(a, b, DEFAULT_COMPARE_RULES);
    const result = await compareTensorValues(a, b, valuePairings(a, b, output.entries, output.ggufNames), job());
    expect(result.loraPair).toBeUndefined();
  });
});

/** A safetensors file of F32 tensors: name → [shape, values]. */
function f32File(tensors: Record<string, [number[], number[]]>): Uint8Array {
  const specs = Object.entries(tensors).map(([name, [shape]]) => ({ name, dtype: 'F32', shape }));
  const tensorData = Object.fromEntries(
    Object.entries(tensors).map(([name, [, values]]) => [name, new Uint8Array(Float32Array.from(values).buffer)]),
  );
  return buildSafetensors(specs, { tensorData });
}

/** kron(x, y) of two row-major matrices, row-major. */
function kronOf(xShape: [number, number], x: number[], yShape: [number, number], y: number[]): number[] {
  const [xr, xc] = xShape;
  const [yr, yc] = yShape;
  const out: number[] = [];
  for (let p = 0; p < xr; p++) {
    for (let q = 0; q < yr; q++) {
      for (let k = 0; k < xc; k++) {
        for (let l = 0; l < yc; l++) {
          out.push(x[p * xc + k] * y[q * yc + l]);
        }
      }
    }
  }
  return out;
}
