/**
 * "Read values" on packed 4-bit weights in a safetensors file: GPTQ, AWQ and bitsandbytes NF4 codes packed as their
 * producers pack them (fixtures/values/dequant.json, written with numpy by scripts/values-fixtures.py, with the
 * dequantized values numpy computed) read through the worker, dequantized with their companions, and their stored
 * codes still on offer.
 */
import { describe, expect, it } from 'vitest';
import { keptFile } from '../testing/kept-load';
import { NF4_CODE } from '../core/values/dequant';
import { nestedAbsmax, packedPlan, parseBnbQuantState } from '../core/values/packed';
import { buildSafetensors, type TensorSpec } from '../testing/build-safetensors';
import { base64Bytes, dequantFixtures, present } from '../testing/values-fixtures';
import { type KeptLoad } from './load-source';
import { readTensorValues, type ValuesJob } from './values-handler';

const { gptq, gptq3, awq, nf4, marlin } = dequantFixtures();

async function keepTensors(specs: TensorSpec[], data: Record<string, Uint8Array>): Promise<KeptLoad> {
  return keptFile(buildSafetensors(specs, { tensorData: data }), 'packed.safetensors');
}

/** A GPTQ or AWQ layer `m` from its fixture: qweight and qzeros in the shapes given, scales [groups, N]. */
function keepIntLayer(
  m: string,
  fixture: typeof gptq,
  qweightShape: number[],
  qzerosShape: number[],
): Promise<KeptLoad> {
  return keepTensors(
    [
      { name: `${m}qweight`, dtype: 'I32', shape: qweightShape },
      { name: `${m}qzeros`, dtype: 'I32', shape: qzerosShape },
      { name: `${m}scales`, dtype: 'F16', shape: [fixture.k / fixture.group, fixture.n] },
    ],
    {
      [`${m}qweight`]: base64Bytes(fixture.qweight),
      [`${m}qzeros`]: base64Bytes(fixture.qzeros),
      [`${m}scales`]: base64Bytes(fixture.scales),
    },
  );
}

function job(): ValuesJob & { seen: Array<[number, number]> } {
  const seen: Array<[number, number]> = [];
  return { signal: new AbortController().signal, progress: (read, total) => seen.push([read, total]), seen };
}

/** numpy's figures over the dequantized values: exact counts and extremes (as float32), mean and std. */
function expectFigures(
  stats: { count: number; min: number | null; max: number | null; mean: number | null },
  want: number[],
) {
  const f32 = want.map((value) => Math.fround(value));
  expect(stats.count).toBe(want.length);
  expect(stats.min).toBe(Math.min(...f32));
  expect(stats.max).toBe(Math.max(...f32));
  const mean = want.reduce((a, b) => a + b, 0) / want.length;
  expect(Math.abs(present(stats.mean) - mean)).toBeLessThanOrEqual(1e-3 * Math.abs(mean) + 1e-9);
}

const f32Bytes = (values: ArrayLike<number>) => new Uint8Array(Float32Array.from(values).buffer);
const i32Bytes = (values: ArrayLike<number>) => new Uint8Array(Int32Array.from(values).buffer);

describe('packed 4-bit weights: dequantized with their companions, stored codes on offer', () => {
  it('GPTQ: W [N, K] from qweight, qzeros, scales and g_idx', async () => {
    const m = 'model.layers.0.mlp.down_proj.';
    const gIdx = Array.from({ length: gptq.k }, (_, k) => Math.floor(k / gptq.group));
    const groups = gptq.k / gptq.group;
    const load = await keepTensors(
      [
        { name: `${m}qweight`, dtype: 'I32', shape: [gptq.k / 8, gptq.n] },
        { name: `${m}qzeros`, dtype: 'I32', shape: [groups, gptq.n / 8] },
        { name: `${m}scales`, dtype: 'F16', shape: [groups, gptq.n] },
        { name: `${m}g_idx`, dtype: 'I32', shape: [gptq.k] },
      ],
      {
        [`${m}qweight`]: base64Bytes(gptq.qweight),
        [`${m}qzeros`]: base64Bytes(gptq.qzeros),
        [`${m}scales`]: base64Bytes(gptq.scales),
        [`${m}g_idx`]: i32Bytes(gIdx),
      },
    );
    const row = load.names.indexOf(`${m}qweight`);
    const progress = job();
    const values = await readTensorValues(load, row, false, progress);
    expect(values).toMatchObject({
      decoded: 'dequantized',
      dtype: 'I32',
      shape: [gptq.n, gptq.k],
      alternative: 'stored',
    });
    expect(values.dequantizedBy?.scheme).toBe('GPTQ');
    expect(values.dequantizedBy?.tensors).toEqual([`${m}scales`, `${m}qzeros`, `${m}g_idx`]);
    expectFigures(values.stats, gptq.values);
    expect(values.first.map((value) => value.value)).toEqual(gptq.values.slice(0, 16).map((v) => Math.fround(v)));
    const total = progress.seen[0][1];
    expect(progress.seen.at(-1)).toEqual([total, total]);

    const stored = await readTensorValues(load, row, false, job(), true);
    expect(stored).toMatchObject({ decoded: 'stored', shape: [gptq.k / 8, gptq.n], alternative: 'dequantized' });
    expect(stored.stats.count).toBe((gptq.k / 8) * gptq.n);
  });

  it('GPTQ 3-bit without g_idx: the bits from qzeros, W [N, K] as numpy unpacked it', async () => {
    const m = 'model.layers.0.self_attn.o_proj.';
    const groups = gptq3.k / gptq3.group;
    const load = await keepIntLayer(m, gptq3, [(gptq3.k / 32) * 3, gptq3.n], [groups, (gptq3.n / 32) * 3]);
    const values = await readTensorValues(load, load.names.indexOf(`${m}qweight`), false, job());
    expect(values).toMatchObject({ decoded: 'dequantized', shape: [gptq3.n, gptq3.k] });
    expect(values.dequantizedBy?.detail).toContain('3-bit GPTQ');
    expectFigures(values.stats, gptq3.values);
    expect(values.first.map((value) => value.value)).toEqual(gptq3.values.slice(0, 16).map((v) => Math.fround(v)));
  });

  it('GPTQ in Marlin format: W [N, K] from B and s', async () => {
    const m = 'model.layers.0.mlp.up_proj.';
    const [grouped] = marlin;
    const load = await keepTensors(
      [
        { name: `${m}B`, dtype: 'I32', shape: [grouped.k / 16, 2 * grouped.n] },
        { name: `${m}s`, dtype: 'F16', shape: [grouped.k / grouped.group, grouped.n] },
        { name: `${m}workspace`, dtype: 'I32', shape: [16] },
      ],
      { [`${m}B`]: base64Bytes(grouped.B), [`${m}s`]: base64Bytes(grouped.s) },
    );
    const values = await readTensorValues(load, load.names.indexOf(`${m}B`), false, job());
    expect(values).toMatchObject({ decoded: 'dequantized', shape: [grouped.n, grouped.k], alternative: 'stored' });
    expect(values.dequantizedBy).toMatchObject({ scheme: 'GPTQ Marlin', tensors: [`${m}s`] });
    expect(values.dequantizedBy?.detail).toContain(`group ${grouped.group}`);
    expectFigures(values.stats, grouped.values);
    expect(values.first.map((value) => value.value)).toEqual(grouped.values.slice(0, 16).map((v) => Math.fround(v)));
  });

  it('AWQ: Wᵀ [K, N] from the 0 2 4 6 1 3 5 7 nibble order', async () => {
    const m = 'model.layers.0.self_attn.q_proj.';
    const groups = awq.k / awq.group;
    const load = await keepIntLayer(m, awq, [awq.k, awq.n / 8], [groups, awq.n / 8]);
    const values = await readTensorValues(load, load.names.indexOf(`${m}qweight`), false, job());
    expect(values).toMatchObject({ decoded: 'dequantized', shape: [awq.k, awq.n] });
    expect(values.dequantizedBy?.scheme).toBe('AWQ');
    expectFigures(values.stats, awq.values);
  });

  it('bitsandbytes NF4: quant_map, absmax and the quant_state shape', async () => {
    const m = 'model.layers.0.mlp.up_proj.weight';
    const state = new TextEncoder().encode(
      JSON.stringify({ quant_type: 'nf4', blocksize: nf4.blocksize, dtype: 'bfloat16', shape: [10, 20] }),
    );
    const packed = base64Bytes(nf4.packed);
    const absmax = base64Bytes(nf4.absmax);
    const load = await keepTensors(
      [
        { name: m, dtype: 'U8', shape: [packed.length, 1] },
        { name: `${m}.absmax`, dtype: 'F32', shape: [absmax.length / 4] },
        { name: `${m}.quant_map`, dtype: 'F32', shape: [16] },
        { name: `${m}.quant_state.bitsandbytes__nf4`, dtype: 'U8', shape: [state.length] },
      ],
      {
        [m]: packed,
        [`${m}.absmax`]: absmax,
        [`${m}.quant_map`]: f32Bytes(NF4_CODE),
        [`${m}.quant_state.bitsandbytes__nf4`]: state,
      },
    );
    const values = await readTensorValues(load, 0, false, job());
    expect(values).toMatchObject({ decoded: 'dequantized', dtype: 'U8', shape: [10, 20] });
    expect(values.dequantizedBy?.detail).toContain('NF4');
    expectFigures(values.stats, nf4.values);
  });

  it('companions that do not fit: the stored codes, with the reason beside them', async () => {
    const m = 'model.layers.0.self_attn.k_proj.';
    const load = await keepTensors(
      [
        { name: `${m}qweight`, dtype: 'I32', shape: [awq.k, awq.n / 8] },
        { name: `${m}qzeros`, dtype: 'I32', shape: [1, awq.n / 8] },
        { name: `${m}scales`, dtype: 'F16', shape: [4, awq.n] },
      ],
      {
        [`${m}qweight`]: base64Bytes(awq.qweight),
        [`${m}qzeros`]: base64Bytes(awq.qzeros).subarray(0, 8),
        [`${m}scales`]: new Uint8Array(4 * awq.n * 2),
      },
    );
    const values = await readTensorValues(load, 0, false, job());
    expect(values).toMatchObject({ decoded: 'stored', dtype: 'I32', alternative: 'dequantized' });
    expect(values.notes).toContain('Not dequantized: the AWQ tensors do not fit together.');
  });

  it('a qweight without its companions, or a quant_state that is not JSON, is not taken for a packed layout', () => {
    const facts = { names: ['a.qweight'], dtype: () => 'I32', shape: () => [4, 16] };
    expect(packedPlan(facts, 0)).toBeNull();
    expect(parseBnbQuantState(new TextEncoder().encode('{"shape":'))).toBe('its quant_state is not JSON');
    expect(parseBnbQuantState(new TextEncoder().encode('{"shape":[2]}'))).toBe(
      'its quant_state has no shape or blocksize',
    );
  });

  it('double-quantized absmax: nested code × nested absmax of its block + offset', () => {
    const code = Float32Array.from({ length: 256 }, (_, i) => (i - 128) / 128);
    const out = present(nestedAbsmax(Uint8Array.from([128, 192, 255, 0]), code, [2, 4], 2, 0.5));
    expect([...out]).toEqual([0.5, 1.5, 4 * (127 / 128) + 0.5, -4 + 0.5]);
  });
});
