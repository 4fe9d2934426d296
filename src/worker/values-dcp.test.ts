/**
 * "Read values" and "Scan all values" of a PyTorch Distributed Checkpoint torch wrote (fixtures/torch/dcp, by
 * scripts/dcp-fixtures.py): each tensor's values are read from the torch.save archives of the .distcp files beside
 * the .metadata, the token embedding's two row chunks one after the other, and equal what torch's own DCP loader
 * read back (fixtures/torch/dcp.json).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LocalFileEntry } from '../core/result';
import { keptLoad } from '../testing/kept-load';
import { dcpAnswer } from '../testing/torch-fixtures';
import { readTensorValues, scanBytes, scanValues, type ValuesJob } from './values-handler';

const answer = dcpAnswer();
function files(keep: (name: string) => boolean = () => true, name = 'dcp'): LocalFileEntry[] {
  const folder = new URL(`../../fixtures/torch/${name}/`, import.meta.url);
  return readdirSync(folder)
    .filter(keep)
    .map((file) => ({ path: `${name}/${file}`, blob: new Blob([readFileSync(new URL(file, folder))]) }));
}

function job(): ValuesJob {
  return { signal: new AbortController().signal, progress: () => {} };
}

describe('values of a Distributed Checkpoint', () => {
  it("every tensor's values equal torch's, chunks in their rows", async () => {
    const load = await keptLoad({ kind: 'files', files: files() });
    const tensors = Object.entries(answer.entries).filter(([, entry]) => !entry.bytes);
    expect(tensors).toHaveLength(11);
    for (const [name, entry] of tensors) {
      const want = entry.bytes ? [] : entry.values;
      const values = await readTensorValues(load, load.names.indexOf(name), false, job());
      expect(values.stats.count, name).toBe(want.length);
      expect(values.stats.min, name).toBe(Math.min(...want));
      expect(values.stats.max, name).toBe(Math.max(...want));
      expect(values.stats.mean, name).toBeCloseTo(want.reduce((a, b) => a + b, 0) / want.length, 6);
      expect(
        values.first.map((value) => Number(value.value)),
        name,
      ).toEqual(want.slice(0, values.first.length));
    }
    // The embedding's 32 rows come from two archives: its last values are the second chunk's.
    const embedding = answer.entries['tok_embeddings.weight'];
    expect(embedding.bytes ? 0 : embedding.chunks).toHaveLength(2);
    expect(scanBytes(load)).toBe(
      tensors.reduce((total, [, entry]) => {
        const bits = { F32: 32, F16: 16, BF16: 16, I64: 64 }[entry.bytes ? 'F32' : (entry.dtype as 'F32')];
        return total + (entry.bytes ? 0 : (entry.shape.reduce((a, b) => a * b, 1) * bits) / 8);
      }, 0),
    );
  });

  it('"Scan all values" reads every tensor, the chunked one whole, with torch\'s absolute maxima', async () => {
    const load = await keptLoad({ kind: 'files', files: files() });
    const scan = await scanValues(load, job());
    expect(scan.done).toBe(true);
    expect(scan.skipped).toBe(0);
    expect(scan.tensors).toBe(11);
    for (const tensor of scan.perTensor) {
      const entry = answer.entries[tensor.tensor];
      const want = entry.bytes ? [] : entry.values;
      expect(tensor.count, tensor.tensor).toBe(want.length);
      expect(tensor.absMax, tensor.tensor).toBe(Math.max(...want.map(Math.abs)));
    }
    // The optimizer's first moments are all zeros.
    expect(scan.allZeroTensors.map((tensor) => tensor.tensor).sort()).toEqual([
      'optimizer.state.layers.0.attention.wq.weight.exp_avg',
      'optimizer.state.norm.weight.exp_avg',
    ]);
  });

  it('a tensor split along its columns (tensor parallelism) is assembled block by block', async () => {
    const tp = dcpAnswer('dcp-tp.json');
    const load = await keptLoad({ kind: 'files', files: files(() => true, 'dcp-tp') });
    for (const [name, entry] of Object.entries(tp.entries)) {
      const want = entry.bytes ? [] : entry.values;
      const values = await readTensorValues(load, load.names.indexOf(name), false, job());
      expect(values.stats.count, name).toBe(want.length);
      expect(values.stats.min, name).toBe(Math.min(...want));
      expect(values.stats.max, name).toBe(Math.max(...want));
      expect(
        values.first.map((value) => Number(value.value)),
        name,
      ).toEqual(want.slice(0, values.first.length));
    }
    const scan = await scanValues(load, job());
    expect(scan.skipped).toBe(0);
    for (const tensor of scan.perTensor) {
      const entry = tp.entries[tensor.tensor];
      expect(tensor.absMax, tensor.tensor).toBe(Math.max(...(entry.bytes ? [] : entry.values).map(Math.abs)));
    }
  });

  it('says to drop the whole folder when the .distcp files are not there', async () => {
    const load = await keptLoad({ kind: 'files', files: files((name) => name === '.metadata') });
    await expect(readTensorValues(load, load.names.indexOf('norm.weight'), false, job())).rejects.toThrow(
      /is not open beside the \.metadata: drop the checkpoint's whole folder/,
    );
  });
});
