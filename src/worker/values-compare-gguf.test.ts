/**
 * "Compare values" across formats: a Hugging Face BF16 safetensors model against its Q8_0 GGUF conversion
 * (fixtures/values/tiny-llama-*, written by scripts/gguf-pair-fixtures.py with gguf-py), paired by llama.cpp's name
 * map and checked against numpy's figures over gguf-py's own dequantization.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptFile } from '../testing/kept-load';
import { DEFAULT_COMPARE_RULES } from '../core/compare/align';
import { compareSides } from '../core/compare/compare';
import { valuePairings } from '../core/compare/value-pairs';
import { verdictText } from '../core/values/compare-values';
import { ggufRowOfHfRow } from '../core/compare/gguf-names';
import { buildGguf, GGML, str, u32 } from '../testing/build-gguf';
import { buildSafetensors } from '../testing/build-safetensors';
import { present } from '../testing/values-fixtures';
import { compareTensorValues } from './values-compare';

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'values');

interface Expected {
  hf: string;
  gguf: string;
  type: string;
  maxAbs: number;
  relL2: number;
  cosine: number;
  equal: boolean;
  relL2RowsNotRestored?: number;
}

const expected = (JSON.parse(readFileSync(join(DIR, 'tiny-llama-pair.json'), 'utf8')) as { tensors: Expected[] })
  .tensors;

const keepBytes = keptFile;

const keep = (name: string) => keepBytes(new Uint8Array(readFileSync(join(DIR, name))), name);

/** A GGUF of F32 tensors (PyTorch-order shapes) with their values, laid out as the builder lays them out. */
function f32Gguf(
  architecture: string,
  tensors: Array<{ name: string; shape: number[]; values: Float32Array }>,
  kvs: Parameters<typeof buildGguf>[0]['kvs'] = [],
) {
  const bytes = buildGguf({
    kvs: [['general.architecture', str(architecture)], ...(kvs ?? [])],
    tensors: tensors.map(({ name, shape }) => ({ name, ne: [...shape].reverse(), type: GGML.F32 })),
  });
  let offset = 0;
  const dataEnd = tensors.reduce((end, tensor, i) => {
    const at = i === 0 ? 0 : Math.ceil(end / 32) * 32;
    return at + tensor.values.byteLength;
  }, 0);
  const dataStart = bytes.length - dataEnd;
  for (const tensor of tensors) {
    bytes.set(new Uint8Array(tensor.values.buffer), dataStart + offset);
    offset = Math.ceil((offset + tensor.values.byteLength) / 32) * 32;
  }
  return bytes;
}

function f32Safetensors(tensors: Array<{ name: string; shape: number[]; values: Float32Array }>) {
  return buildSafetensors(
    tensors.map(({ name, shape }) => ({ name, dtype: 'F32', shape })),
    { tensorData: Object.fromEntries(tensors.map((t) => [t.name, new Uint8Array(t.values.buffer)])) },
  );
}

async function compareBuilt(hfBytes: Uint8Array, ggufBytes: Uint8Array, remote = false) {
  const a = await keepBytes(hfBytes, 'model.safetensors');
  const b = await keepBytes(ggufBytes, 'model.gguf');
  for (const load of [a, b]) {
    if (remote && load.data) {
      load.data = { ...load.data, remote: true };
    }
  }
  const output = compareSides(a, b, DEFAULT_COMPARE_RULES);
  const lined = valuePairings(a, b, output.entries, output.ggufNames);
  return { a, b, lined, result: await compareTensorValues(a, b, lined, job()) };
}

const job = () => ({ signal: new AbortController().signal, progress: () => {} });

function relativelyClose(actual: number | null, wanted: number, tolerance = 1e-6): void {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual ?? NaN) - wanted)).toBeLessThanOrEqual(tolerance * Math.max(Math.abs(wanted), 1e-30));
}

async function comparePair(swap = false) {
  const hf = await keep('tiny-llama-hf.safetensors');
  const gguf = await keep('tiny-llama-Q8_0.gguf');
  const [a, b] = swap ? [gguf, hf] : [hf, gguf];
  const output = compareSides(a, b, DEFAULT_COMPARE_RULES);
  const lined = valuePairings(a, b, output.entries, output.ggufNames);
  return { a, b, lined, result: await compareTensorValues(a, b, lined, job()) };
}

describe('Compare values: Hugging Face safetensors against its GGUF conversion', () => {
  it('pairs every tensor through the name map and measures what Q8_0 moved, as numpy does', async () => {
    const { result } = await comparePair();
    expect(result.done).toBe(true);
    expect(result.skipped).toEqual([]);
    expect(result.tensors.map((entry) => entry.tensor).sort()).toEqual(expected.map((entry) => entry.hf).sort());
    for (const want of expected) {
      const got = present(
        result.tensors.find((entry) => entry.tensor === want.hf),
        want.hf,
      );
      expect(got.basis).toBe('all');
      expect(got.dtypeA).toBe('BF16');
      expect(got.dtypeB).toBe(want.type);
      expect(got.maxAbs).toBe(want.maxAbs);
      relativelyClose(got.relL2, want.relL2);
      relativelyClose(got.cosine, want.cosine);
      expect(got.identical).toBe(want.equal);
      expect(got.identicalBy).toBe('values');
    }
  });

  it('says how identity was established: values equal after decoding, never identical bytes', async () => {
    const { result } = await comparePair();
    const byName = new Map(result.tensors.map((entry) => [entry.tensor, entry]));
    const v = present(byName.get('model.layers.1.self_attn.v_proj.weight'));
    expect(verdictText(v)).toBe('values equal after decoding BF16 and decoding F32');
    const q = present(byName.get('model.layers.0.self_attn.q_proj.weight'));
    expect(verdictText(q)).toBe('values differ after decoding BF16 and dequantizing Q8_0, rows put back in order');
    expect(q.note).toMatch(/GGUF rows put back in Hugging Face order.*4 heads of 16 rows/);
    const k = present(byName.get('model.layers.0.self_attn.k_proj.weight'));
    expect(k.note).toMatch(/2 heads of 16 rows/);
    expect(result.byLayer.map((entry) => entry.layer)).toEqual([0, 1]);
    expect(result.byLayer[0].relL2).toBeGreaterThan(0.003);
    expect(result.byLayer[0].relL2).toBeLessThan(0.01);
  });

  it('without undoing the per-head row order, q and k would look unrelated (numpy agrees)', async () => {
    const { lined, a, b } = await comparePair();
    const unpermuted = {
      ...lined,
      pairings: lined.pairings.map((pairing) => ({ ...pairing, permutedRows: null })),
    };
    const result = await compareTensorValues(a, b, unpermuted, job());
    for (const want of expected.filter((entry) => entry.relL2RowsNotRestored !== undefined)) {
      const got = present(result.tensors.find((entry) => entry.tensor === want.hf));
      expect(got.relL2).toBeGreaterThan(1);
      relativelyClose(got.relL2, want.relL2RowsNotRestored ?? NaN);
    }
  });

  it('with the GGUF as A the same figures come out, named by the Hugging Face name', async () => {
    const { result } = await comparePair(true);
    const q = present(result.tensors.find((entry) => entry.tensor === 'model.layers.1.self_attn.q_proj.weight'));
    const want = present(expected.find((entry) => entry.hf === q.tensor));
    expect(q.dtypeA).toBe('Q8_0');
    expect(q.maxAbs).toBe(want.maxAbs);
    // ‖a − b‖ / ‖a‖ with the GGUF as a: numpy's relL2 rescaled by ‖hf‖ / ‖gguf‖ = cosine-close to 1.
    relativelyClose(q.relL2, want.relL2, 1e-2);
  });

  it('a GGUF without head counts skips q and k and says why', async () => {
    const { a, b } = await comparePair();
    const blind = { ...b, gguf: { architecture: 'llama', headCount: null, headCountKv: null } };
    const output = compareSides(a, blind, DEFAULT_COMPARE_RULES);
    const lined = valuePairings(a, blind, output.entries, output.ggufNames);
    expect(lined.skipped.map((entry) => entry.tensor).sort()).toEqual([
      'model.layers.0.self_attn.k_proj.weight',
      'model.layers.0.self_attn.q_proj.weight',
      'model.layers.1.self_attn.k_proj.weight',
      'model.layers.1.self_attn.q_proj.weight',
    ]);
    expect(lined.skipped[0].reason).toMatch(/reorders its rows per head.*llama\.attention\.head_count/);
    expect(lined.pairings).toHaveLength(expected.length - 4);
  });

  it('a Gemma norm is compared after taking off the 1 llama.cpp adds', async () => {
    const w = Float32Array.from([0.125, -0.25, 0.5, 0, 0.0625, -0.5, 0.375, 0.25]);
    const hf = f32Safetensors([{ name: 'model.layers.0.input_layernorm.weight', shape: [8], values: w }]);
    const gguf = f32Gguf('gemma', [
      { name: 'blk.0.attn_norm.weight', shape: [8], values: Float32Array.from(w, (x) => x + 1) },
    ]);
    const { result } = await compareBuilt(hf, gguf);
    expect(result.skipped).toEqual([]);
    const [norm] = result.tensors;
    expect(norm).toMatchObject({
      tensor: 'model.layers.0.input_layernorm.weight',
      identical: true,
      identicalBy: 'values',
      maxAbs: 0,
      elements: 8,
    });
    expect(norm.note).toMatch(/1 taken off the GGUF values.*1 \+ w/);
  });

  it('stacked experts: one row over every expert slice, and a missing expert is a stated skip', async () => {
    const experts = [0, 1, 2].map((e) => Float32Array.from({ length: 8 }, (_, i) => (e + 1) * 0.1 + i * 0.01));
    const stacked = new Float32Array(24);
    experts.forEach((values, e) => stacked.set(values, e * 8));
    stacked[8 + 3] += 0.5;
    const hfTensors = experts.map((values, e) => ({
      name: `model.layers.0.mlp.experts.${e}.gate_proj.weight`,
      shape: [2, 4],
      values,
    }));
    const gguf = f32Gguf('qwen2moe', [{ name: 'blk.0.ffn_gate_exps.weight', shape: [3, 2, 4], values: stacked }]);
    const { result } = await compareBuilt(f32Safetensors(hfTensors), gguf);
    expect(result.tensors).toHaveLength(1);
    const [row] = result.tensors;
    expect(row.tensor).toBe('model.layers.0.mlp.experts.*.gate_proj.weight');
    expect(row.elements).toBe(24);
    expect(row.identical).toBe(false);
    expect(row.maxAbs).toBeCloseTo(0.5, 6);
    expect(row.note).toMatch(/3 experts stacked/);
    // Slice by slice, expert by expert: only expert 1 moved, by one value of its eight.
    const norm1 = Math.hypot(...experts[1]);
    expect(row.experts?.experts).toBe(3);
    expect(row.experts?.unchanged).toBe(2);
    expect(row.experts?.read.map((expert) => [expert.expert, expert.changedShare])).toEqual([
      [0, 0],
      [1, 1 / 8],
      [2, 0],
    ]);
    expect(row.experts?.read[1].relL2).toBeCloseTo(0.5 / norm1, 6);

    const partial = await compareBuilt(f32Safetensors(hfTensors.slice(0, 2)), gguf);
    expect(partial.result.tensors).toEqual([]);
    expect(partial.result.skipped).toEqual([
      {
        tensor: 'model.layers.0.mlp.experts.0.gate_proj.weight',
        reason: 'the GGUF stacks [3, 2, 4], and 2 per-expert tensors of [2, 4] do not fill it',
      },
    ]);
  });

  it('remote q rows over the sample limit: the same sampled rows of both sides, put back in order', async () => {
    const heads = 65;
    const headDim = 64;
    const rows = heads * headDim;
    const cols = 1024;
    const hfValues = Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * 0.001) + (i % 7) * 0.01);
    const ggufValues = new Float32Array(rows * cols);
    for (let r = 0; r < rows; r++) {
      ggufValues.set(hfValues.subarray(r * cols, (r + 1) * cols), ggufRowOfHfRow(r, headDim) * cols);
    }
    const name = 'model.layers.0.self_attn.q_proj.weight';
    const gguf = f32Gguf(
      'llama',
      [{ name: 'blk.0.attn_q.weight', shape: [rows, cols], values: ggufValues }],
      [
        ['llama.block_count', u32(1)],
        ['llama.attention.head_count', u32(heads)],
      ],
    );
    const { result, a, b, lined } = await compareBuilt(
      f32Safetensors([{ name, shape: [rows, cols], values: hfValues }]),
      gguf,
      true,
    );
    const [q] = result.tensors;
    expect(q).toMatchObject({ tensor: name, basis: 'sampled', identical: true, maxAbs: 0 });
    expect(q.elements).toBeLessThan(rows * cols);
    expect(result.bytes).toBeLessThan(2 * rows * cols * 4);
    const ignored = await compareTensorValues(
      a,
      b,
      { ...lined, pairings: lined.pairings.map((pairing) => ({ ...pairing, permutedRows: null })) },
      job(),
    );
    expect(ignored.tensors[0].maxAbs).toBeGreaterThan(0.01);
  });
});
