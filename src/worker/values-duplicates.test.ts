/**
 * "Scan all values" on a passthrough merge written by the safetensors library (scripts/values-fixtures.py): the
 * tensors numpy finds equal byte for byte are the groups the scan names, and the copied layers are one run. And on
 * models whose config.json ties an LM head they saved (scripts/tied-head-fixtures.py): whether that head copies the
 * embedding, as numpy says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../core/model';
import type { LocalFileEntry } from '../core/result';
import { tiedHeadOfScan } from '../core/values/tied-head-values';
import { keptLoad } from '../testing/kept-load';
import { loadSource, type KeptLoad } from './load-source';
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

const TIED = JSON.parse(readFileSync(join(DIR, 'tied-head.json'), 'utf8')) as Record<
  'tied-head-trained' | 'tied-head-copy',
  {
    head: { std: number; absMax: number };
    embedding: { std: number; absMax: number };
    sameValues: boolean;
  }
>;

/** A folder dropped: its load as the worker keeps it, and every finding the page would list. */
async function loadFolder(folder: string): Promise<{ kept: KeptLoad; findings: Finding[] }> {
  const files: LocalFileEntry[] = ['model.safetensors', 'config.json'].map((name) => ({
    blob: new File([readFileSync(join(DIR, folder, name))], name),
    path: `${folder}/${name}`,
  }));
  const findings: Finding[] = [];
  let kept: KeptLoad | undefined;
  await loadSource(
    {
      id: 1,
      signal: new AbortController().signal,
      post: (message) => {
        if (message.type === 'result' && message.result.outcome.kind === 'parsed') {
          findings.push(...message.result.outcome.header.findings);
        } else if (message.type === 'analyses') {
          findings.push(...message.analysisFindings);
        }
      },
      remember: (load) => (kept = load),
    },
    { kind: 'files', files },
    {},
  );
  return { kept: present(kept, 'kept load'), findings };
}

describe('an LM head config.json makes loaders ignore', () => {
  for (const folder of ['tied-head-trained', 'tied-head-copy'] as const) {
    it(`${folder}: the scan says what numpy says of the head against the embedding`, async () => {
      const { kept, findings } = await loadFolder(folder);
      expect(findings.map((finding) => finding.code)).toContain('config-head-ignored');
      const scan = await scanValues(kept, job());
      const tied = present(tiedHeadOfScan(scan.perTensor, findings), 'tied head');
      const want = TIED[folder];
      expect(tied).toMatchObject({
        head: 'lm_head.weight',
        embedding: 'model.embed_tokens.weight',
        sameValues: want.sameValues,
        headAbsMax: want.head.absMax,
        embeddingAbsMax: want.embedding.absMax,
      });
      expect(tied.headStd).toBeCloseTo(want.head.std, 12);
      expect(tied.embeddingStd).toBeCloseTo(want.embedding.std, 12);
      // The F32 copy of the BF16 embedding is one group of the duplicates too; the trained head is in none.
      const paired = scan.duplicates?.groups.some((group) => group.includes('lm_head.weight')) ?? false;
      expect(paired).toBe(want.sameValues);
    });
  }

  it('without the finding (a config that does not tie), the scan says nothing of the head', async () => {
    const { kept } = await loadFolder('tied-head-trained');
    expect(tiedHeadOfScan((await scanValues(kept, job())).perTensor, [])).toBeNull();
  });
});
