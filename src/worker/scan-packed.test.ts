/**
 * "Scan all values" over a GPTQ layout (fixtures/values/dequant.json, packed by numpy as AutoGPTQ packs it): the
 * weight is scanned in its dequantized values, its packed zero points are not scanned on their own, and the bytes
 * announced are the bytes read. A layout whose every code equals its zero point dequantizes to zeros although no
 * stored integer is zero: the scan names it as all-zero. Marlin's B is scanned dequantized, its kernel workspace not.
 */
import { describe, expect, it } from 'vitest';
import { keptFile } from '../testing/kept-load';
import { buildSafetensors, type TensorSpec } from '../testing/build-safetensors';
import { base64Bytes, dequantFixtures, present } from '../testing/values-fixtures';
import { type KeptLoad } from './load-source';
import { scanBytes, scanValues, type ValuesJob } from './values-handler';

const { gptq, marlin } = dequantFixtures();
const m = 'model.layers.0.mlp.down_proj.';
const groups = gptq.k / gptq.group;

async function keep(data: Record<string, Uint8Array>): Promise<KeptLoad> {
  const specs: TensorSpec[] = [
    { name: `${m}qweight`, dtype: 'I32', shape: [gptq.k / 8, gptq.n] },
    { name: `${m}qzeros`, dtype: 'I32', shape: [groups, gptq.n / 8] },
    { name: `${m}scales`, dtype: 'F16', shape: [groups, gptq.n] },
    { name: 'model.norm.weight', dtype: 'F32', shape: [4] },
  ];
  const bytes = buildSafetensors(specs, {
    tensorData: { ...data, 'model.norm.weight': new Uint8Array(Float32Array.from([1, -2, 3, 0.5]).buffer) },
  });
  return keptFile(bytes, 'gptq.safetensors');
}

function job(): ValuesJob & { seen: Array<[number, number]> } {
  const seen: Array<[number, number]> = [];
  return { signal: new AbortController().signal, progress: (read, total) => seen.push([read, total]), seen };
}

const words = (count: number, word: number) => new Uint8Array(new Uint32Array(count).fill(word).buffer);

describe('scan all values over packed 4-bit weights', () => {
  it('scans a GPTQ weight in its dequantized values and leaves its zero points to it', async () => {
    const load = await keep({
      [`${m}qweight`]: base64Bytes(gptq.qweight),
      [`${m}qzeros`]: base64Bytes(gptq.qzeros),
      [`${m}scales`]: base64Bytes(gptq.scales),
    });
    const progress = job();
    const scan = await scanValues(load, progress);
    expect(scan.perTensor.map((entry) => entry.tensor).sort()).toEqual(
      [`${m}qweight`, `${m}scales`, 'model.norm.weight'].sort(),
    );
    const weight = present(scan.perTensor.find((entry) => entry.tensor === `${m}qweight`));
    const values = gptq.values.map((value) => Math.fround(value));
    expect(weight.count).toBe(gptq.n * gptq.k);
    expect(weight.absMax).toBe(Math.max(...values.map(Math.abs)));
    expect(weight.zeros).toBe(values.filter((value) => value === 0).length);
    // Announced and read: the weight with every companion (the scales read twice: as a tensor and for the weight),
    // the norm, and no qzeros on their own.
    const total = scanBytes(load);
    const scales = base64Bytes(gptq.scales).length;
    const packed = base64Bytes(gptq.qweight).length + base64Bytes(gptq.qzeros).length + scales;
    expect(total).toBe(packed + scales + 16);
    expect(scan.bytes).toBe(total);
    expect(progress.seen.at(-1)).toEqual([total, total]);
    expect(scan.done).toBe(true);
  });

  it('names a weight whose every code equals its zero point as all-zero, though no stored integer is zero', async () => {
    // Code 8 in every nibble, zero points stored as 7 (AutoGPTQ stores zero − 1): every dequantized value is 0.
    const load = await keep({
      [`${m}qweight`]: words((gptq.k / 8) * gptq.n, 0x88888888),
      [`${m}qzeros`]: words((groups * gptq.n) / 8, 0x77777777),
      [`${m}scales`]: base64Bytes(gptq.scales),
    });
    const scan = await scanValues(load, job());
    expect(scan.allZeroTensors.map((entry) => entry.tensor)).toEqual([`${m}qweight`]);
  });

  it('scans a Marlin weight dequantized and leaves its kernel workspace (zeros by design) out of the all-zero list', async () => {
    const [grouped] = marlin;
    const p = 'model.layers.1.mlp.up_proj.';
    const bytes = buildSafetensors(
      [
        { name: `${p}B`, dtype: 'I32', shape: [grouped.k / 16, 2 * grouped.n] },
        { name: `${p}s`, dtype: 'F16', shape: [grouped.k / grouped.group, grouped.n] },
        { name: `${p}workspace`, dtype: 'I32', shape: [16] },
      ],
      { tensorData: { [`${p}B`]: base64Bytes(grouped.B), [`${p}s`]: base64Bytes(grouped.s) } },
    );
    const scan = await scanValues(await keptFile(bytes, 'marlin.safetensors'), job());
    expect(scan.perTensor.map((entry) => entry.tensor).sort()).toEqual([`${p}B`, `${p}s`]);
    const weight = present(scan.perTensor.find((entry) => entry.tensor === `${p}B`));
    expect(weight.count).toBe(grouped.k * grouped.n);
    expect(weight.absMax).toBe(Math.max(...grouped.values.map((value) => Math.abs(Math.fround(value)))));
    expect(scan.allZeroTensors).toEqual([]);
  });
});
