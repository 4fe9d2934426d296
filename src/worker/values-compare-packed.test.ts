/**
 * "Compare values" on packed 4-bit weights: a GPTQ layout (fixtures/values/dequant.json, packed by numpy as AutoGPTQ
 * packs it) against the same codes with every scale doubled. The weight is compared in its dequantized values (so B
 * is exactly 2 × A: relative L2 1, cosine 1, max |Δ| the largest |value| numpy dequantized), its packed zero points
 * are not compared on their own, and the scales, values in their own right, are compared as stored.
 */
import { describe, expect, it } from 'vitest';
import { keptFile } from '../testing/kept-load';
import { buildSafetensors, type TensorSpec } from '../testing/build-safetensors';
import { base64Bytes, dequantFixtures, present } from '../testing/values-fixtures';
import { elementPairings } from '../testing/value-pairings';
import { type KeptLoad } from './load-source';
import { compareTensorValues } from './values-compare';
import { WorkerCompare } from '../testing/worker-compare';

const { gptq } = dequantFixtures();
const m = 'model.layers.0.mlp.down_proj.';
const groups = gptq.k / gptq.group;
const specs: TensorSpec[] = [
  { name: `${m}qweight`, dtype: 'I32', shape: [gptq.k / 8, gptq.n] },
  { name: `${m}qzeros`, dtype: 'I32', shape: [groups, gptq.n / 8] },
  { name: `${m}scales`, dtype: 'F16', shape: [groups, gptq.n] },
];

async function keep(scales: Uint8Array, name: string): Promise<KeptLoad> {
  const bytes = buildSafetensors(specs, {
    tensorData: {
      [`${m}qweight`]: base64Bytes(gptq.qweight),
      [`${m}qzeros`]: base64Bytes(gptq.qzeros),
      [`${m}scales`]: scales,
    },
  });
  return keptFile(bytes, name);
}

/** Every F16 scale times two, exactly: one more in the exponent of each (normal) value. */
function doubled(f16: Uint8Array): Uint8Array {
  const words = new Uint16Array(f16.slice().buffer);
  for (let i = 0; i < words.length; i++) {
    const exponent = (words[i] >> 10) & 0x1f;
    if (exponent === 0 || exponent >= 30) {
      throw new Error('the fixture scales are expected to be normal F16 values below 2^14');
    }
    words[i] += 0x400;
  }
  return new Uint8Array(words.buffer);
}

async function compare(scalesB: Uint8Array) {
  const a = await keep(base64Bytes(gptq.scales), 'base.safetensors');
  const b = await keep(scalesB, 'tuned.safetensors');
  const rows = specs.map((spec) => a.names.indexOf(spec.name));
  return compareTensorValues(
    a,
    b,
    elementPairings(
      a,
      rows.map((row) => [row, row]),
    ),
    {
      signal: new AbortController().signal,
      progress: () => {},
    },
  );
}

describe('compare values of packed 4-bit weights', () => {
  it('compares a GPTQ weight in its dequantized values, and its zero points only within them', async () => {
    const result = await compare(doubled(base64Bytes(gptq.scales)));
    const weight = present(
      result.tensors.find((entry) => entry.tensor === `${m}qweight`),
      'qweight compared',
    );
    const largest = Math.max(...gptq.values.map((value) => Math.abs(Math.fround(value))));
    expect(weight).toMatchObject({
      identical: false,
      identicalBy: 'values',
      decodedBy: 'dequantizing GPTQ',
      elements: gptq.n * gptq.k,
      basis: 'all',
    });
    expect(weight.relL2).toBe(1);
    expect(weight.cosine).toBeCloseTo(1, 12);
    expect(weight.maxAbs).toBe(largest);
    expect(weight.note).toContain('4-bit GPTQ');
    expect(result.skipped).toEqual([
      {
        tensor: `${m}qzeros`,
        reason: `packed codes of ${m}qweight's layout, compared within that weight's dequantized values`,
      },
    ]);
    const scales = present(
      result.tensors.find((entry) => entry.tensor === `${m}scales`),
      'scales compared',
    );
    expect(scales).toMatchObject({ identical: false, identicalBy: 'bytes' });
    expect(scales.relL2).toBe(1);
    expect(result.done).toBe(true);
  });

  it('the same codes and scales: the dequantized weights are equal', async () => {
    const result = await compare(base64Bytes(gptq.scales));
    const weight = present(
      result.tensors.find((entry) => entry.tensor === `${m}qweight`),
      'qweight compared',
    );
    expect(weight).toMatchObject({ identical: true, maxAbs: 0, relL2: 0 });
  });
});

describe('a model against its GPTQ quantization', () => {
  /** The plain model's `weight` [N, K] holding numpy's dequantized GPTQ values times `factor`, as F32. */
  function plainModel(factor: number): File {
    const values = Float32Array.from(gptq.values, (value) => value * factor);
    const bytes = buildSafetensors([{ name: `${m}weight`, dtype: 'F32', shape: [gptq.n, gptq.k] }], {
      tensorData: { [`${m}weight`]: new Uint8Array(values.buffer) },
    });
    return new File([bytes as BlobPart], 'plain.safetensors');
  }

  function gptqModel(): File {
    const bytes = buildSafetensors(specs, {
      tensorData: {
        [`${m}qweight`]: base64Bytes(gptq.qweight),
        [`${m}qzeros`]: base64Bytes(gptq.qzeros),
        [`${m}scales`]: base64Bytes(gptq.scales),
      },
    });
    return new File([bytes as BlobPart], 'gptq.safetensors');
  }

  it('pairs q_proj.qweight with q_proj.weight and compares dequantized against decoded, either side first', async () => {
    for (const factor of [1, 2]) {
      for (const gptqFirst of [true, false]) {
        const worker = new WorkerCompare();
        const gptqLoad = await worker.open({ kind: 'file', file: gptqModel() });
        const plainLoad = await worker.open({ kind: 'file', file: plainModel(factor) });
        const [a, b] = gptqFirst ? [gptqLoad, plainLoad] : [plainLoad, gptqLoad];
        const result = await worker.compareValues(worker.diff(a.loadId, b.loadId), a.loadId, b.loadId);
        const weight = present(
          result.tensors.find((entry) => entry.tensor === `${m}weight`),
          'the plain name compared',
        );
        expect(weight.decodedBy).toBe(
          gptqFirst ? 'dequantizing GPTQ and decoding F32' : 'decoding F32 and dequantizing GPTQ',
        );
        expect(weight.elements).toBe(gptq.n * gptq.k);
        expect(weight.cosine).toBeCloseTo(1, 9);
        // B = factor × A when the plain side is B, A = factor × B otherwise.
        const rel = factor === 1 ? 0 : gptqFirst ? 1 : 0.5;
        expect(weight.relL2).toBeCloseTo(rel, 6);
      }
    }
  });
});
