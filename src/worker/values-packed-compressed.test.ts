/**
 * "Read values", "Scan all values" and "Compare values" over compressed-tensors and ModelOpt packed weights, as their
 * tensors sit in a file (the layouts scripts/values-fixtures.py packs as compress_weight and ModelOpt's export do):
 * the dequantized W [N, K] numpy computes, labelled with the tensors used.
 */
import { describe, expect, it } from 'vitest';
import { buildSafetensors, type TensorSpec } from '../testing/build-safetensors';
import { keptFile } from '../testing/kept-load';
import { base64Bytes, dequantFixtures, present } from '../testing/values-fixtures';
import { readTensorValues, scanValues, type ValuesJob } from './values-handler';

const fixtures = dequantFixtures();
const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });
const M = 'model.layers.0.mlp.down_proj';

function file(tensors: Array<TensorSpec & { bytes: Uint8Array }>, name: string) {
  return keptFile(
    buildSafetensors(tensors, { tensorData: Object.fromEntries(tensors.map((t) => [t.name, t.bytes])) }),
    name,
  );
}

function minMax(values: readonly number[]): [number, number] {
  return [Math.min(...values), Math.max(...values)];
}

async function expectDequantized(
  load: Awaited<ReturnType<typeof keptFile>>,
  weight: string,
  want: number[],
  n: number,
  k: number,
) {
  const values = await readTensorValues(load, load.names.indexOf(weight), false, job());
  expect(values.decoded).toBe('dequantized');
  expect(values.shape).toEqual([n, k]);
  expect(values.stats.count).toBe(n * k);
  const [min, max] = minMax(want);
  expect(values.stats.min).toBe(Math.fround(min));
  expect(values.stats.max).toBe(Math.fround(max));
  expect(values.first.map((first) => first.value)).toEqual(want.slice(0, values.first.length).map(Math.fround));
  return values;
}

describe('compressed-tensors and ModelOpt weights read dequantized', () => {
  it('pack-quantized ints: symmetric groups, packed zero points along N, and unpacked zero points with g_idx', async () => {
    for (const [index, c] of fixtures.compressed_int.entries()) {
      const words = base64Bytes(c.packed).length / 4 / c.n;
      const perWord = Math.floor(32 / c.bits);
      const tensors: Array<TensorSpec & { bytes: Uint8Array }> = [
        { name: `${M}.weight_packed`, dtype: 'I32', shape: [c.n, words], bytes: base64Bytes(c.packed) },
        { name: `${M}.weight_scale`, dtype: 'F16', shape: [c.n, c.groups], bytes: base64Bytes(c.scale) },
        { name: `${M}.weight_shape`, dtype: 'I64', shape: [2], bytes: base64Bytes(c.shape) },
      ];
      if (c.g_idx) {
        tensors.push({ name: `${M}.weight_g_idx`, dtype: 'I32', shape: [c.k], bytes: base64Bytes(c.g_idx) });
      }
      if (c.zero_packed) {
        const zero = base64Bytes(c.zero_packed);
        tensors.push({
          name: `${M}.weight_zero_point`,
          dtype: 'I32',
          shape: [Math.ceil(c.n / perWord), c.groups],
          bytes: zero,
        });
      } else if (c.zero_values) {
        tensors.push({
          name: `${M}.weight_zero_point`,
          dtype: 'I8',
          shape: [c.n, c.groups],
          bytes: base64Bytes(c.zero_values),
        });
      }
      const load = await file(tensors, `ct-${index}.safetensors`);
      const values = await expectDequantized(load, `${M}.weight_packed`, c.values, c.n, c.k);
      expect(values.dequantizedBy?.detail).toContain(`${c.bits}-bit compressed-tensors pack-quantized`);
      expect(values.dequantizedBy?.tensors).toContain(`${M}.weight_scale`);
      // The scan reads it dequantized too, and leaves the shape and packed zero points to it.
      const scan = await scanValues(load, job());
      const entry = present(scan.perTensor.find((t) => t.tensor === `${M}.weight_packed`));
      expect(entry.count).toBe(c.n * c.k);
      expect(scan.perTensor.map((t) => t.tensor)).not.toContain(`${M}.weight_shape`);
    }
  });

  it('FP4: compressed-tensors NVFP4 and MXFP4, ModelOpt NVFP4 with its 0-d weight_scale_2', async () => {
    for (const c of fixtures.fp4) {
      const modelOpt = c.producer === 'ModelOpt';
      const weight = modelOpt ? `${M}.weight` : `${M}.weight_packed`;
      const tensors: Array<TensorSpec & { bytes: Uint8Array }> = [
        { name: weight, dtype: 'U8', shape: [c.n, c.k / 2], bytes: base64Bytes(c.packed) },
        {
          name: `${M}.weight_scale`,
          dtype: c.scheme === 'MXFP4' ? 'U8' : 'F8_E4M3',
          shape: [c.n, c.k / c.group],
          bytes: base64Bytes(c.scale),
        },
      ];
      if (c.second) {
        const name = modelOpt ? `${M}.weight_scale_2` : `${M}.weight_global_scale`;
        tensors.push({ name, dtype: 'F32', shape: modelOpt ? [] : [1], bytes: base64Bytes(c.second) });
      }
      const load = await file(tensors, `${c.producer}-${c.scheme}.safetensors`);
      const values = await expectDequantized(load, weight, c.values, c.n, c.k);
      expect(values.dequantizedBy?.detail).toContain(`${c.scheme} (${c.producer})`);
    }
  });

  it('a weight_shape that does not fit the packed rows, or asks for too many values, says so and shows the codes', async () => {
    for (const [dims, message] of [
      [[5, 16], 'does not match the packed rows'],
      [[4, 2 ** 40], 'this page dequantizes at once'],
      [[4, 3], 'fit no bit width'],
    ] as const) {
      const tensors: Array<TensorSpec & { bytes: Uint8Array }> = [
        { name: `${M}.weight_packed`, dtype: 'I32', shape: [4, 2], bytes: new Uint8Array(32) },
        { name: `${M}.weight_scale`, dtype: 'F32', shape: [4, 1], bytes: new Uint8Array(16) },
        {
          name: `${M}.weight_shape`,
          dtype: 'I64',
          shape: [2],
          bytes: new Uint8Array(BigInt64Array.from(dims.map(BigInt)).buffer),
        },
      ];
      const load = await file(tensors, 'lying-shape.safetensors');
      const values = await readTensorValues(load, 0, false, job());
      expect(values.decoded).toBe('stored');
      expect(values.notes.join(' ')).toContain(message);
    }
  });
});
