/** "Compare values" over a finetune pair: exactly the tensors whose bytes changed are named, with their difference. */
import { describe, expect, it } from 'vitest';
import { keptFile } from '../testing/kept-load';
import { buildSafetensors } from '../testing/build-safetensors';
import { compareTensorValues } from './values-compare';
import { elementPairings } from '../testing/value-pairings';

const keep = keptFile;

function f32(values: number[]): Uint8Array {
  return new Uint8Array(Float32Array.from(values).buffer);
}

function bf16(values: number[]): Uint8Array {
  const words = new Uint32Array(Float32Array.from(values).buffer);
  return new Uint8Array(Uint16Array.from(words, (word) => word >>> 16).buffer);
}

describe('compareTensorValues', () => {
  it('a finetune pair: the two changed tensors and nothing else, with max |Δ|, relative L2 and cosine', async () => {
    const specs = [0, 1, 2, 3].map((layer) => ({
      name: `model.layers.${layer}.mlp.weight`,
      dtype: 'F32',
      shape: [2, 2],
    }));
    const base: Record<string, Uint8Array> = {};
    const tuned: Record<string, Uint8Array> = {};
    for (let layer = 0; layer < 4; layer++) {
      const name = `model.layers.${layer}.mlp.weight`;
      base[name] = f32([1, 2, 3, 4]);
      tuned[name] = f32(layer === 1 ? [1, 2, 3, 4.5] : layer === 3 ? [2, 4, 6, 8] : [1, 2, 3, 4]);
    }
    const a = await keep(buildSafetensors(specs, { tensorData: base }), 'base.safetensors');
    const b = await keep(buildSafetensors(specs, { tensorData: tuned }), 'tuned.safetensors');
    const pairs: Array<[number, number]> = [0, 1, 2, 3].map((row) => [row, row]);
    const result = await compareTensorValues(a, b, elementPairings(a, pairs), {
      signal: new AbortController().signal,
      progress: () => {},
    });
    expect(result.tensors.filter((t) => !t.identical).map((t) => t.tensor)).toEqual([
      'model.layers.1.mlp.weight',
      'model.layers.3.mlp.weight',
    ]);
    const [, one, , three] = result.tensors;
    expect(one).toMatchObject({ basis: 'all', identicalBy: 'bytes', maxAbs: 0.5, elements: 4 });
    expect(one.relL2).toBeCloseTo(0.5 / Math.sqrt(30), 12);
    expect(three.relL2).toBeCloseTo(1, 12);
    expect(three.cosine).toBeCloseTo(1, 12);
    expect(result.byLayer.map((entry) => entry.layer)).toEqual([0, 1, 2, 3]);
    expect(result.byLayer[0].relL2).toBe(0);
    expect(result).toMatchObject({ done: true, skipped: [], bytes: 4 * 2 * 16 });
  });

  it('across dtypes it compares decoded values, and calls them identical only when every value is equal', async () => {
    const values = [0.5, -1.25, 3, 0.0078125];
    const a = await keep(
      buildSafetensors([{ name: 'w', dtype: 'F32', shape: [4] }], { tensorData: { w: f32(values) } }),
      'a.safetensors',
    );
    const b = await keep(
      buildSafetensors([{ name: 'w', dtype: 'BF16', shape: [4] }], { tensorData: { w: bf16(values) } }),
      'b.safetensors',
    );
    const result = await compareTensorValues(a, b, elementPairings(a, [[0, 0]]), {
      signal: new AbortController().signal,
      progress: () => {},
    });
    expect(result.tensors[0]).toMatchObject({
      identical: true,
      identicalBy: 'values',
      decodedBy: 'decoding F32 and decoding BF16',
      maxAbs: 0,
      relL2: 0,
      cosine: 1,
    });
  });
});
