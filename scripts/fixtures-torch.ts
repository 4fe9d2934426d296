/**
 * Copies the committed PyTorch checkpoint fixtures (fixtures/torch/, written by real torch through
 * scripts/torch-fixtures.py) into the e2e fixtures folder, under torch/, gunzipping the 20,000-tensor file, and
 * torch 2.x's (fixtures/torch2/, scripts/torch2-fixtures.py) under torch2/.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { FixtureWriter } from './fixtures-extra';

const TORCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'torch');

export const writeTorchFixtures: FixtureWriter = (dir) => {
  const target = join(dir, 'torch');
  mkdirSync(target, { recursive: true });
  cpSync(TORCH_DIR, target, { recursive: true, filter: (path) => !path.endsWith('.gz') });
  writeFileSync(join(target, 'many_tensors.bin'), gunzipSync(readFileSync(join(TORCH_DIR, 'many_tensors.bin.gz'))));
  cpSync(resolve(TORCH_DIR, '..', 'torch2'), join(dir, 'torch2'), { recursive: true });
};
