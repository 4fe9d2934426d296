/**
 * "Compare values" across formats: a Hugging Face BF16 safetensors model against its Q8_0 GGUF conversion
 * (fixtures/values/tiny-llama-*, written by scripts/gguf-pair-fixtures.py with gguf-py), paired by llama.cpp's name
 * map and checked against numpy's figures over gguf-py's own dequantization.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPARE_RULES } from '../core/compare/align';
import { compareSides } from '../core/compare/compare';
import { valuePairings } from '../core/compare/value-pairs';
import { verdictText } from '../core/values/compare-values';
import { present } from '../testing/values-fixtures';
import { loadSource, type KeptLoad } from './load-source';
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

async function keep(name: string): Promise<KeptLoad> {
  const kept: KeptLoad[] = [];
  await loadSource(
    { id: 1, signal: new AbortController().signal, post: () => {}, remember: (load) => kept.push(load) },
    { kind: 'file', file: new File([readFileSync(join(DIR, name))], name) },
    {},
  );
  return present(kept[0], 'kept load');
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
    expect(verdictText(q)).toBe('values differ after decoding BF16 and dequantizing Q8_0');
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
});
