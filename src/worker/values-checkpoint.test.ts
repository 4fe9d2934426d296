/**
 * "Read values" on torch.save zips torch wrote (fixtures/torch/): each contiguous tensor's statistics and first values
 * equal torch's (fixtures/torch/expected-values.json, written by scripts/torch-expected-values.py with torch), a slice read at its storage_offset, and a
 * transposed view and a legacy file say why they are not read.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ValuesUnavailable } from '../core/values/tensor-values';
import { present } from '../testing/values-fixtures';
import { loadSource, type KeptLoad } from './load-source';
import { compareTensorValues } from './values-compare';
import { readTensorValues, scanBytes, type ValuesJob } from './values-handler';

interface Expected {
  contiguous: boolean;
  count: number;
  min: number;
  max: number;
  mean: number;
  first: number[];
}

const fixture = (name: string) => new URL(`../../fixtures/torch/${name}`, import.meta.url);
const expected = JSON.parse(readFileSync(fixture('expected-values.json'), 'utf8')) as Record<
  string,
  Record<string, Expected>
>;

async function keepFile(name: string): Promise<KeptLoad> {
  const kept: KeptLoad[] = [];
  const file = new File([readFileSync(fixture(name))], name);
  await loadSource(
    { id: 1, signal: new AbortController().signal, post: () => {}, remember: (load) => kept.push(load) },
    { kind: 'file', file },
    {},
  );
  return present(kept[0], 'kept load');
}

function job(): ValuesJob {
  return { signal: new AbortController().signal, progress: () => {} };
}

describe('reading values of a PyTorch checkpoint', () => {
  for (const name of ['mixed_dtypes.pt', 'tied_views.pt']) {
    it(`${name}: every contiguous tensor equals torch's values`, async () => {
      const load = await keepFile(name);
      const tensors = Object.entries(present(expected[name], name)).filter(([, want]) => want.contiguous);
      expect(tensors.length).toBeGreaterThan(3);
      for (const [tensor, want] of tensors) {
        const row = load.names.indexOf(tensor);
        expect(row, tensor).toBeGreaterThanOrEqual(0);
        const values = await readTensorValues(load, row, false, job());
        expect(values.stats.count, tensor).toBe(want.count);
        expect(values.stats.min, tensor).toBe(want.min);
        expect(values.stats.max, tensor).toBe(want.max);
        expect(values.stats.mean, tensor).toBeCloseTo(want.mean, 5);
        expect(
          values.first.slice(0, want.first.length).map((value) => Number(value.value)),
          tensor,
        ).toEqual(want.first);
      }
    });
  }

  it('a transposed view says it is not read, with its strides', async () => {
    const load = await keepFile('tied_views.pt');
    const row = load.names.indexOf('proj.weight_t');
    await expect(readTensorValues(load, row, false, job())).rejects.toThrow(
      new ValuesUnavailable(
        'View with strides (1, 6) of shape (6, 4): not read (only row-major tensors are read; the storage it views can be read through a contiguous name).',
      ),
    );
  });

  it('"Scan all values" counts the located checkpoint tensors', async () => {
    const load = await keepFile('tied_views.pt');
    // embed and lm_head (32 F32 each) and the two slices (8 + 16 F32); the transposed view is left out.
    expect(scanBytes(load)).toBe((32 + 32 + 8 + 16) * 4);
  });

  it('"Compare values" of two checkpoints reports progress against the bytes it reads', async () => {
    const a = await keepFile('mixed_dtypes.pt');
    const b = await keepFile('mixed_dtypes.pt');
    const pairs = a.names
      .map((name, row) => [row, b.names.indexOf(name)] as [number, number])
      .filter(([, rowB]) => rowB >= 0);
    const seen: Array<[number, number]> = [];
    const result = await compareTensorValues(a, b, pairs, {
      signal: new AbortController().signal,
      progress: (read, total) => seen.push([read, total]),
    });
    const total = seen[0][1];
    expect(total).toBeGreaterThan(0);
    expect(seen.every(([, t]) => t === total)).toBe(true);
    expect(seen[seen.length - 1][0]).toBe(total);
    expect(result.bytes).toBe(total);
    expect(result.tensors.length).toBeGreaterThan(3);
    expect(result.tensors.every((entry) => entry.identical)).toBe(true);
  });

  it('a legacy (torch < 1.6) file says its storages are not located', async () => {
    const load = await keepFile('legacy.pt');
    await expect(readTensorValues(load, 0, false, job())).rejects.toThrow(/legacy \(torch < 1\.6\)/);
  });
});
