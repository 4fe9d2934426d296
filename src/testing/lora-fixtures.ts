/**
 * The LoRA adapters of fixtures/values (scripts/lora-update-fixtures.py) and numpy's answers for them, for the tests
 * of the value scan's and Compare values' LoRA measures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceSpec } from '../core/result';
import type { KeptLoad } from '../worker/load-source';
import { keptFile } from './kept-load';

export const VALUES_FIXTURES_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'values');

/** numpy's figures for one fixture file, module by module (the fields that file's function wrote). */
export function loraAnswers<T>(file: string): Record<string, T> {
  const answers = JSON.parse(readFileSync(join(VALUES_FIXTURES_DIR, 'lora-updates.json'), 'utf8')) as {
    files: Record<string, Record<string, T>>;
  };
  return answers.files[file];
}

/** An adapter folder (its weights file and adapter_config.json) as a dropped folder. */
export function adapterFolder(
  name: string,
  dir = join(VALUES_FIXTURES_DIR, name),
  weights = 'adapter_model.safetensors',
): SourceSpec {
  return {
    kind: 'files',
    files: [weights, 'adapter_config.json'].map((file) => ({
      path: `${name}/${file}`,
      blob: new Blob([readFileSync(join(dir, file))]),
    })),
  };
}

/** A fixtures/values file loaded alone, as the worker keeps it. */
export function keptValuesFixture(name: string): Promise<KeptLoad> {
  return keptFile(new Uint8Array(readFileSync(join(VALUES_FIXTURES_DIR, name))), name);
}
