/**
 * "Compare values" between a checkpoint in the reference code's layout (Mistral's consolidated.safetensors) and its
 * transformers copy: names paired through llama.cpp's map (core/compare/reference-names.ts), q and k rows put back
 * in transformers' per-head order with the head counts of either side's config.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPARE_RULES } from '../core/compare/align';
import { compareFactsOf, compareSides } from '../core/compare/compare';
import { valuePairings } from '../core/compare/value-pairs';
import { configFromNativeParams } from '../core/analysis/native-params';
import { keptFile } from '../testing/kept-load';
import { headerFromSpecs } from '../testing/models/header-from-specs';
import { TINY_NATIVE_PARAMS, tinyMistralNativeTensors, tinyReferencePair } from '../testing/models/mistral-native';
import { compareTensorValues } from './values-compare';

async function compare(files: ReturnType<typeof tinyReferencePair>, withParams = true) {
  const a = await keptFile(files.reference, 'consolidated.safetensors');
  const b = await keptFile(files.transformers, 'model.safetensors');
  if (withParams) {
    // As the worker does once the params.json beside it is read (publish.ts).
    Object.assign(
      a,
      compareFactsOf(headerFromSpecs(tinyMistralNativeTensors()), configFromNativeParams(TINY_NATIVE_PARAMS)),
    );
  }
  const output = compareSides(a, b, DEFAULT_COMPARE_RULES);
  const lined = valuePairings(a, b, output.entries, output.ggufNames);
  const job = { signal: new AbortController().signal, progress: () => {} };
  return { output, lined, result: await compareTensorValues(a, b, lined, job) };
}

describe("Compare: Mistral's consolidated.safetensors against its transformers copy", () => {
  it('pairs every tensor by name and finds the values equal once q/k rows are put back', async () => {
    const { output, result } = await compare(tinyReferencePair());
    expect(output.ggufNames).toMatchObject({ enabled: true, kind: 'reference', ggufSide: 'a', architecture: 'llama' });
    expect(output.ggufNames?.counts).toMatchObject({ 'only-gguf': 0, 'only-hf': 0, shape: 0 });
    expect(result.skipped).toEqual([]);
    expect(result.tensors).toHaveLength(tinyMistralNativeTensors().length);
    expect(result.tensors.every((entry) => entry.identical)).toBe(true);
    const q = result.tensors.find((entry) => entry.tensor === 'model.layers.1.self_attn.q_proj.weight');
    expect(q?.note).toBe(
      "reference rows put back in Hugging Face order (transformers' converter reorders q/k rows per head; 4 heads of 32 rows, from the config)",
    );
  });

  it('a changed weight shows as the one difference', async () => {
    const { result } = await compare(
      tinyReferencePair((name, values) => {
        if (name === 'layers.0.feed_forward.w2.weight') {
          values[5] += 1;
        }
      }),
    );
    expect(result.tensors.filter((entry) => !entry.identical).map((entry) => entry.tensor)).toEqual([
      'model.layers.0.mlp.down_proj.weight',
    ]);
  });

  it('without a head count q and k are skipped, saying which config would give it', async () => {
    const { lined } = await compare(tinyReferencePair(), false);
    expect(lined.skipped).toHaveLength(4);
    expect(lined.skipped[0].reason).toMatch(/^the reference checkpoint keeps q\/k rows in Meta's per-head order/);
  });
});
