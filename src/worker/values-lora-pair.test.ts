/**
 * "Compare values" of two LoRAs: two runs of a PEFT adapter for the tiny llama (scripts/lora-update-fixtures.py),
 * compared update against update, each module's cosine and relative difference against numpy's full products.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPARE_RULES } from '../core/compare/align';
import { compareSides } from '../core/compare/compare';
import { valuePairings } from '../core/compare/value-pairs';
import { keptLoad } from '../testing/kept-load';
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

  it('has no pair section when only one side is a LoRA', async () => {
    const a = await keptLoad(adapterFolder('lora-tiny-llama'));
    const b = await keptValuesFixture('tiny-llama-hf.safetensors');
    const output = compareSides(a, b, DEFAULT_COMPARE_RULES);
    const result = await compareTensorValues(a, b, valuePairings(a, b, output.entries, output.ggufNames), job());
    expect(result.loraPair).toBeUndefined();
  });
});
