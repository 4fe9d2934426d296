/**
 * "Read values" on checkpoints torch wrote (fixtures/torch/: torch.save zips and legacy, torch < 1.6 streams): every
 * tensor's statistics and first values equal torch's over the logical tensor (fixtures/torch/expected-values.json,
 * written by scripts/torch-expected-values.py with torch), for row-major tensors, slices at a storage_offset, and
 * views gathered by stride (transpose, column slice, stepped slice, expand, permute).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keptFile } from '../testing/kept-load';
import { stridedLayout } from '../io/tensor-data';
import { present } from '../testing/values-fixtures';
import { loadSource, type KeptLoad } from './load-source';
import { compareTensorValues } from './values-compare';
import { elementPairings } from '../testing/value-pairings';
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

function keepFile(name: string): Promise<KeptLoad> {
  return keptFile(new Uint8Array(readFileSync(fixture(name))), name);
}

function job(): ValuesJob {
  return { signal: new AbortController().signal, progress: () => {} };
}

describe('reading values of a PyTorch checkpoint', () => {
  for (const name of ['mixed_dtypes.pt', 'tied_views.pt', 'legacy.pt', 'strided_views.pt', 'legacy_views.pt']) {
    it(`${name}: every tensor equals torch's values`, async () => {
      const load = await keepFile(name);
      const tensors = Object.entries(present(expected[name], name));
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

  it('the views of strided_views.pt are not row-major, so the gather is what is tested', () => {
    const views = Object.values(present(expected['strided_views.pt'], 'strided_views.pt'));
    expect(views.filter((want) => !want.contiguous).length).toBeGreaterThanOrEqual(5);
  });

  it('a layout with negative strides is refused with its strides named', () => {
    expect(stridedLayout([2, 3], [-3, 1], 4)).toBe(
      'View with strides (-3, 1) of shape (2, 3): these strides are not a layout this page reads (negative, fractional or of another rank).',
    );
    expect(stridedLayout([2, 3], [3, 1], 4)).toBeNull();
    expect(stridedLayout([3, 2], [1, 3], 2)).toEqual({ shape: [3, 2], stride: [1, 3], itemBytes: 2, extentBytes: 12 });
  });

  it('"Scan all values" counts the located checkpoint tensors', async () => {
    const load = await keepFile('tied_views.pt');
    // embed and lm_head (32 F32 each), the two slices (8 + 16 F32) and the transposed view (24 F32), gathered.
    expect(scanBytes(load)).toBe((32 + 32 + 8 + 16 + 24) * 4);
  });

  it('"Compare values" of two checkpoints reports progress against the bytes it reads', async () => {
    const a = await keepFile('mixed_dtypes.pt');
    const b = await keepFile('mixed_dtypes.pt');
    const pairs = a.names
      .map((name, row) => [row, b.names.indexOf(name)] as [number, number])
      .filter(([, rowB]) => rowB >= 0);
    const seen: Array<[number, number]> = [];
    const result = await compareTensorValues(a, b, elementPairings(a, pairs), {
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

  it('a legacy stream whose storage count does not match its pickle says so', async () => {
    const bytes = new Uint8Array(readFileSync(fixture('legacy_views.pt')));
    const kept: KeptLoad[] = [];
    const load = await (async () => {
      const probe = await keepFile('legacy_views.pt');
      const storage = present(probe.data?.storage, 'storage');
      const first = Object.values(present(storage.legacy, 'legacy storages'))[0];
      new DataView(bytes.buffer).setBigUint64(first.dataAt - 8, 999n, true);
      await loadSource(
        { id: 2, signal: new AbortController().signal, post: () => {}, remember: (l) => kept.push(l) },
        { kind: 'file', file: new File([bytes], 'legacy_views.pt') },
        {},
      );
      return present(kept[0], 'kept load');
    })();
    const rows = load.names.map((_, row) =>
      readTensorValues(load, row, false, job()).then(
        () => null,
        (e: Error) => e.message,
      ),
    );
    expect((await Promise.all(rows)).some((message) => message?.includes('says 999 elements'))).toBe(true);
  });
});
