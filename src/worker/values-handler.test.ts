/**
 * "Read values" and "Scan all values" end to end in the worker: a local file's statistics equal numpy's, a remote
 * 64 MiB tensor is sampled by Range without reading more than the sample (counted on the test server and under the
 * `values` purpose), the full read only when asked, and the scan finds planted NaN / Inf / all-zero tensors.
 */
import { describe, expect, it } from 'vitest';
import { keptLoad } from '../testing/kept-load';
import { buildSafetensors } from '../testing/build-safetensors';
import { buildGguf, str } from '../testing/build-gguf';
import type { FixtureDir } from '../testing/fixture-dir';
import { startTestServers, type TestServers } from '../testing/servers/range-server';
import { setUpTestServers } from '../testing/test-server-setup';
import { caseBytes, present, valuesFixture } from '../testing/values-fixtures';
import { sourceReads } from './load-source';
import { readTensorValues, scanBytes, scanValues, type ValuesJob } from './values-handler';

let fixtures: FixtureDir;
let servers: TestServers;

setUpTestServers(async (dir) => {
  fixtures = dir;
  servers = await startTestServers({ root: fixtures.root });
  return servers;
});

const keep = keptLoad;

function job(): ValuesJob & { seen: Array<[number, number]> } {
  const seen: Array<[number, number]> = [];
  return { signal: new AbortController().signal, progress: (read, total) => seen.push([read, total]), seen };
}

const MiB = 1024 * 1024;

describe('reading values', () => {
  it('a local BF16 tensor: the statistics numpy computed over the stored values', async () => {
    const entry = present(valuesFixture('stats').find((c) => c.dtype === 'BF16'));
    const data = caseBytes(entry);
    const bytes = buildSafetensors(
      [
        { name: 'pad', dtype: 'F32', shape: [3] },
        { name: 'w', dtype: 'BF16', shape: present(entry.shape) },
      ],
      { tensorData: { w: data } },
    );
    const load = await keep({ kind: 'file', file: new File([bytes as BlobPart], 'stats.safetensors') });
    const progress = job();
    const values = await readTensorValues(load, 1, false, progress);
    const want = present(entry.stats);
    expect(values.stats).toMatchObject({
      count: want.count,
      nan: want.nan,
      posInf: want.posInf,
      negInf: want.negInf,
      zeros: want.zeros,
      min: want.min,
      max: want.max,
    });
    expect(values.stats.mean).toBeCloseTo(want.mean as number, 9);
    expect(values.histogram?.counts).toEqual(want.histogram.counts);
    expect(values.read).toMatchObject({ sampled: false, bytes: data.length, of: data.length, confirmed: false });
    expect(values.first[0].raw).toBe([...data.subarray(0, 2)].map((b) => b.toString(16).padStart(2, '0')).join(' '));
    expect(progress.seen.at(-1)).toEqual([data.length, data.length]);
    // A local load counts its values reads as a remote one does: exactly the tensor's bytes, none of the pad's.
    expect(sourceReads(load)).toEqual({ network: null, valuesBytes: data.length });
    await readTensorValues(load, 0, false, job());
    expect(sourceReads(load)?.valuesBytes).toBe(data.length + 12);
  });

  it("an FP8 weight in Mistral's native names: dequantized with its .qscale_weight", async () => {
    // E4M3 codes 0x38 (1.0) and 0xb8 (−1.0), 0x40 (2.0), 0x00; per-tensor scale 0.5.
    const codes = Uint8Array.from([0x38, 0xb8, 0x40, 0x00]);
    const bytes = buildSafetensors(
      [
        { name: 'layers.0.attention.wq.weight', dtype: 'F8_E4M3', shape: [2, 2] },
        { name: 'layers.0.attention.wq.qscale_weight', dtype: 'F32', shape: [] },
        { name: 'layers.0.attention.wq.qscale_act', dtype: 'F32', shape: [] },
      ],
      {
        tensorData: {
          'layers.0.attention.wq.weight': codes,
          'layers.0.attention.wq.qscale_weight': new Uint8Array(Float32Array.from([0.5]).buffer),
          'layers.0.attention.wq.qscale_act': new Uint8Array(Float32Array.from([0.25]).buffer),
        },
      },
    );
    const load = await keep({ kind: 'file', file: new File([bytes as BlobPart], 'consolidated.safetensors') });
    const values = await readTensorValues(load, 0, false, job());
    expect(values.first.map((entry) => entry.value)).toEqual([0.5, -0.5, 1, 0]);
    expect(values.alternative).toBe('stored');
  });

  it('a scale tensor that fits no layout of its weight: the stored values, with the reason, and no switch', async () => {
    const bytes = buildSafetensors(
      [
        { name: 'model.layers.0.mlp.down_proj.weight', dtype: 'I8', shape: [2, 2] },
        { name: 'model.layers.0.mlp.down_proj.weight_scale', dtype: 'F32', shape: [3] },
      ],
      {
        tensorData: {
          'model.layers.0.mlp.down_proj.weight': new Uint8Array(Int8Array.from([1, -2, 3, 0]).buffer),
          'model.layers.0.mlp.down_proj.weight_scale': new Uint8Array(Float32Array.from([0.5, 1, 2]).buffer),
        },
      },
    );
    const load = await keep({ kind: 'file', file: new File([bytes as BlobPart], 'int8.safetensors') });
    const values = await readTensorValues(load, 0, false, job());
    expect(values.decoded).toBe('stored');
    expect(values.first.map((entry) => entry.value)).toEqual([1, -2, 3, 0]);
    expect(values.notes.join(' ')).toContain(
      'model.layers.0.mlp.down_proj.weight_scale has 3 values, which fits neither one scale',
    );
    expect(values.notes.join(' ')).toContain('The stored values are shown.');
    expect(values.alternative).toBeUndefined();
  });

  it('a remote 32 MiB tensor: an 8 MiB row sample by Range, the whole only when asked', async () => {
    const rows = 2048;
    const cols = 4096;
    const bytes = buildSafetensors([{ name: 'big', dtype: 'F32', shape: [rows, cols] }], { fill: 0 });
    // A value per row that says which row it is, so the sample's rows can be checked.
    const view = new DataView(bytes.buffer);
    const dataStart = bytes.length - rows * cols * 4;
    for (let r = 0; r < rows; r++) {
      view.setFloat32(dataStart + r * cols * 4, r, true);
    }
    await fixtures.write('values-big.safetensors', bytes);
    const url = `${servers.originA}/range/values-big.safetensors?t=${Math.random()}`;
    const load = await keep({ kind: 'url', url });
    const before = servers.log.entries
      .filter((e) => e.path.includes('values-big'))
      .reduce((s, e) => s + e.bytesSent, 0);
    const sample = await readTensorValues(load, 0, false, job());
    const sampleBytes =
      servers.log.entries.filter((e) => e.path.includes('values-big')).reduce((s, e) => s + e.bytesSent, 0) - before;
    expect(sample.read).toMatchObject({ sampled: true, rowsRead: 512, rows: 2048, bytes: 8 * MiB, of: 32 * MiB });
    expect(sampleBytes).toBe(8 * MiB);
    expect(sample.stats.count).toBe(512 * cols);
    expect(present(load.data?.network?.()).byPurpose?.values?.bytesFetched).toBe(8 * MiB);
    expect(sourceReads(load)?.valuesBytes).toBe(8 * MiB);
    // Row 0 is the one row all zeros: counted among the rows read when the sample holds it; no column verdict.
    const rowZeroRead = sample.stats.zeros - 512 * (cols - 1);
    expect(sample.zeroLines).toEqual(
      rowZeroRead === 1 ? { rowDims: [rows], rows: { count: 1, of: 512, runs: [[0, 0]] }, columns: null } : undefined,
    );
    const whole = await readTensorValues(load, 0, true, job());
    expect(whole.read).toMatchObject({ sampled: false, confirmed: true, bytes: 32 * MiB });
    expect(whole.stats.max).toBe(rows - 1);
    expect(whole.stats.zeros).toBe(rows * cols - (rows - 1));
    expect(whole.zeroLines).toEqual({
      rowDims: [rows],
      rows: { count: 1, of: rows, runs: [[0, 0]] },
      columns: { count: cols - 1, of: cols, runs: [[1, cols - 1]] },
    });
  });

  it('a cancelled read rejects and reads no further', async () => {
    const bytes = buildSafetensors([{ name: 'w', dtype: 'F32', shape: [64, 1024] }]);
    const load = await keep({ kind: 'file', file: new File([bytes as BlobPart], 'c.safetensors') });
    const controller = new AbortController();
    controller.abort();
    await expect(readTensorValues(load, 0, false, { signal: controller.signal, progress: () => {} })).rejects.toThrow();
  });

  it('says why a dtype is not decoded', async () => {
    // ggml's Q8_K is a dot-product intermediate: no file is meant to hold it, and it is not decoded.
    const bytes = buildGguf({
      kvs: [['general.architecture', str('llama')]],
      tensors: [{ name: 'blk.0.ffn_down.weight', ne: [256], type: 15 }],
      dataBytes: 292,
    });
    const load = await keep({ kind: 'file', file: new File([bytes as BlobPart], 'q8k.gguf') });
    await expect(readTensorValues(load, 0, false, job())).rejects.toThrow(/Q8_K values are not decoded/);
  });

  it('reads a complex tensor as torch.view_as_real gives it: real and imaginary parts, a last dimension of 2', async () => {
    const parts = Float32Array.of(1.5, -2, 0, 3, Number.NaN, 0.25);
    const bytes = buildSafetensors([{ name: 'freqs_cis', dtype: 'C64', shape: [3] }], {
      tensorData: { freqs_cis: new Uint8Array(parts.buffer) },
    });
    const load = await keep({ kind: 'file', file: new File([bytes as BlobPart], 'c64.safetensors') });
    const values = await readTensorValues(load, 0, false, job());
    expect(values.dtype).toBe('C64');
    expect(values.shape).toEqual([3, 2]);
    expect(values.stats).toMatchObject({ count: 6, nan: 1, zeros: 1, min: -2, max: 3 });
    expect(values.first.map((value) => value.value)).toEqual([...parts]);
    expect(values.notes.join(' ')).toMatch(/torch\.view_as_real.*two F32 values/);
  });
});

describe('scanning all values', () => {
  it('finds the planted NaN, Inf and all-zero tensors and the outlier layer', async () => {
    const f32 = (values: number[]) => new Uint8Array(Float32Array.from(values).buffer);
    const specs = [];
    const data: Record<string, Uint8Array> = {};
    for (let layer = 0; layer < 6; layer++) {
      const name = `model.layers.${layer}.mlp.weight`;
      specs.push({ name, dtype: 'F32', shape: [4] });
      data[name] = f32(layer === 4 ? [1, 500, -2, 3] : [1, -2, 3, 0.5]);
    }
    specs.push({ name: 'nan.weight', dtype: 'F32', shape: [3] }, { name: 'inf.weight', dtype: 'F32', shape: [3] });
    specs.push({ name: 'zero.weight', dtype: 'F32', shape: [5] }, { name: 'complex', dtype: 'C64', shape: [2] });
    data.complex = f32([3, -4, 0.5, 1]);
    data['nan.weight'] = f32([1, Number.NaN, 2]);
    data['inf.weight'] = f32([1, -Infinity, 2]);
    const bytes = buildSafetensors(specs, { tensorData: data });
    const load = await keep({ kind: 'file', file: new File([bytes as BlobPart], 'planted.safetensors') });
    const scan = await scanValues(load, job());
    expect(scan.nanTensors.map((t) => t.tensor)).toEqual(['nan.weight']);
    expect(scan.infTensors.map((t) => [t.tensor, t.negInf])).toEqual([['inf.weight', 1]]);
    expect(scan.allZeroTensors.map((t) => t.tensor)).toEqual(['zero.weight']);
    expect(scan.outliers.map((t) => t.tensor)).toEqual(['model.layers.4.mlp.weight']);
    expect(scan).toMatchObject({ done: true, tensors: 10, skipped: 0, skippedNames: [] });
    // A complex tensor is scanned in its real view: two values an element, listed under its own dtype.
    expect(scan.perTensor.find((t) => t.tensor === 'complex')).toMatchObject({ dtype: 'C64', count: 4, absMax: 4 });
    expect(scan.bytes).toBe(scanBytes(load));
  });

  it('each tensor of a file read in shared slices equals its own values, BF16 counted by code or decoded', async () => {
    // A BF16 tensor with more values than codes (counted), one with fewer (decoded), and an F32 tensor larger than
    // one slice, laid out back to back so slices cross tensor boundaries.
    const sizes: Array<[string, string, number]> = [
      ['counted', 'BF16', 70_001],
      ['decoded', 'BF16', 301],
      ['large', 'F32', 2_300_001],
    ];
    const data: Record<string, Uint8Array> = {};
    const expected: Record<string, { count: number; zeros: number; min: number; max: number; mean: number }> = {};
    for (const [name, dtype, count] of sizes) {
      const values = new Float32Array(count);
      for (let i = 0; i < count; i++) {
        values[i] = i % 97 === 0 ? 0 : Math.sin(i * 0.731) * (1 + (i % 5));
      }
      const bits = new Uint32Array(values.buffer);
      if (dtype === 'BF16') {
        const codes = new Uint16Array(count);
        for (let i = 0; i < count; i++) {
          codes[i] = bits[i] >>> 16;
          bits[i] = codes[i] << 16;
        }
        data[name] = new Uint8Array(codes.buffer);
      } else {
        data[name] = new Uint8Array(values.buffer.slice(0));
      }
      let sum = 0;
      for (const x of values) {
        sum += x;
      }
      expected[name] = {
        count,
        zeros: values.filter((x) => x === 0).length,
        min: values.reduce((a, b) => Math.min(a, b)),
        max: values.reduce((a, b) => Math.max(a, b)),
        mean: sum / count,
      };
    }
    const bytes = buildSafetensors(
      sizes.map(([name, dtype, count]) => ({ name, dtype, shape: [count] })),
      { tensorData: data },
    );
    const load = await keep({ kind: 'file', file: new File([bytes as BlobPart], 'slices.safetensors') });
    const progress = job();
    const scan = await scanValues(load, progress);
    expect(scan).toMatchObject({ done: true, tensors: 3, bytes: scanBytes(load) });
    expect(progress.seen[progress.seen.length - 1]).toEqual([scanBytes(load), scanBytes(load)]);
    const byName = new Map(scan.perTensor.map((t) => [t.tensor, t]));
    for (const [name] of sizes) {
      const got = present(byName.get(name), name);
      const want = expected[name];
      expect([got.count, got.zeros], name).toEqual([want.count, want.zeros]);
      expect(got.absMax, name).toBe(Math.max(-want.min, want.max));
      expect(Math.abs(present(got.mean) - want.mean), name).toBeLessThan(1e-9 * (1 + Math.abs(want.mean)));
    }
  });
});
