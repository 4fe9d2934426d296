/**
 * "Scan all values" on a passthrough merge written by the safetensors library (scripts/values-fixtures.py): the
 * tensors numpy finds equal byte for byte are the groups the scan names, and the copied layers are one run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptLoad } from '../testing/kept-load';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { present } from '../testing/values-fixtures';
import { scanValues, type ValuesJob } from './values-handler';

const ANSWER = JSON.parse(readFileSync(join(DIR, 'passthrough-merge.json'), 'utf8')) as {
  groups: string[][];
  repeatedLayers: Array<{ prefix: string; first: number; last: number; source: number }>;
};

const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });
const sorted = (groups: readonly string[][]) => groups.map((group) => [...group].sort()).sort();

describe('tensors with the same values', () => {
  it('a passthrough merge: numpy’s equal tensors, layers 4–5 as copies of 2–3, the LM head a copy of the embedding', async () => {
    const file = new File([readFileSync(join(DIR, 'passthrough-merge.safetensors'))], 'passthrough-merge.safetensors');
    const scan = await scanValues(await keptLoad({ kind: 'file', file }), job());
    const found = present(scan.duplicates, 'duplicates');
    expect(sorted(found.groups)).toEqual(sorted(ANSWER.groups));
    expect(found).toMatchObject({ groupCount: ANSWER.groups.length, tensorCount: 2 * ANSWER.groups.length });
    expect(found.repeatedLayers).toEqual(ANSWER.repeatedLayers);
  });

  it('a model with no copies, norms at one included: nothing to say', async () => {
    const file = new File([readFileSync(join(DIR, 'planted.safetensors'))], 'planted.safetensors');
    expect((await scanValues(await keptLoad({ kind: 'file', file }), job())).duplicates).toBeNull();
  });
});
