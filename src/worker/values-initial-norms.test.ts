/**
 * "Scan all values" names the norm weights still at their initial 1.0 (scripts/initial-norms-fixtures.py): files the
 * safetensors library wrote, a model whose fresh layers were never trained and others, against the norm weights
 * numpy finds equal to 1.0 in every value.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptLoad } from '../testing/kept-load';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { scanValues, type ValuesJob } from './values-handler';

const ANSWERS = JSON.parse(readFileSync(join(DIR, 'initial-norms.json'), 'utf8')) as {
  files: Record<string, { norms: number; atOne: string[] }>;
};

const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });

describe('norm weights at their initial value', () => {
  for (const [file, want] of Object.entries(ANSWERS.files)) {
    it(`${file}: ${want.atOne.length} of ${want.norms} norm weights at 1.0, as numpy finds`, async () => {
      const kept = await keptLoad({ kind: 'file', file: new File([readFileSync(join(DIR, file))], file) });
      const found = (await scanValues(kept, job())).initialNorms;
      if (want.atOne.length === 0) {
        expect(found).toBeNull();
        return;
      }
      expect(found).toMatchObject({ normTensors: want.norms, atOne: want.atOne.length });
      expect([...(found?.examples ?? [])].sort()).toEqual([...want.atOne].sort());
    });
  }
});
