/**
 * Regenerates every generated file: the "Try a sample" files in public/samples/ and the e2e fixtures in
 * e2e/.fixtures/ (some are multi-GB sparse files: they cost no disk). Deterministic: same bytes every run.
 * Usage: npm run fixtures [-- --samples-only]
 */
import {
  closeSync,
  copyFileSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildHeaderBytes, buildSafetensors } from '../src/testing/build-safetensors';
import {
  CLEAN_METADATA,
  comfyInt8Sample,
  damagedSample,
  FIXTURES,
  tinyLlamaTensors,
} from '../src/testing/fixture-manifest';
import { EXTRA_FIXTURE_WRITERS } from './fixtures-extra';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SAMPLES_DIR = join(root, 'public', 'samples');
/** GGUF files written by gguf-py (scripts/gguf-fixtures.py), committed. */
const GGUF_FIXTURES_DIR = join(root, 'fixtures', 'gguf');
const GGUF_SAMPLE = 'tiny-llama-Q4_K_M.gguf';
export const E2E_FIXTURES_DIR = join(root, 'e2e', '.fixtures');
/** Real files written by torch (scripts/torch-fixtures.py), committed: the checkpoint samples are copies of two. */
const TORCH_FIXTURES_DIR = join(root, 'fixtures', 'torch');
/** The bundled checkpoint samples: a torch.save zip of a small Llama-style model, and a pickle that runs a command. */
export const TORCH_SAMPLES = ['pytorch_model.bin', 'hostile-os-system.pkl'] as const;

/** Writes the header bytes and extends the file to its full size without writing the data (a sparse file). */
export function writeSparse(path: string, head: Uint8Array, totalSize: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head);
    ftruncateSync(fd, totalSize);
  } finally {
    closeSync(fd);
  }
}

function write(path: string, bytes: Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

export function writeSamples(): void {
  rmSync(SAMPLES_DIR, { recursive: true, force: true });
  write(
    join(SAMPLES_DIR, 'tiny-llama-with-metadata.safetensors'),
    buildSafetensors(tinyLlamaTensors(), { metadata: CLEAN_METADATA }),
  );
  const comfy = comfyInt8Sample();
  write(
    join(SAMPLES_DIR, 'comfy-int8-quantized.safetensors'),
    buildSafetensors(comfy.tensors, { metadata: { format: 'pt' }, tensorData: comfy.tensorData }),
  );
  write(join(SAMPLES_DIR, 'damaged-truncated.safetensors'), damagedSample());
  for (const file of TORCH_SAMPLES) {
    copyFileSync(join(TORCH_FIXTURES_DIR, file), join(SAMPLES_DIR, file));
  }
  // Written by llama.cpp's gguf-py (scripts/gguf-fixtures.py) and committed, so no Python is needed here.
  write(join(SAMPLES_DIR, GGUF_SAMPLE), readFileSync(join(GGUF_FIXTURES_DIR, GGUF_SAMPLE)));
}

export function writeE2eFixtures(): void {
  rmSync(E2E_FIXTURES_DIR, { recursive: true, force: true });
  for (const fixture of FIXTURES) {
    write(join(E2E_FIXTURES_DIR, fixture.file), fixture.bytes());
  }
  // A 14 GB model whose header alone is on disk: proves the app reads 8 + N bytes, not the file.
  const big = buildHeaderBytes(tinyLlamaTensors(4, 4096, 11008, 32000), { metadata: CLEAN_METADATA });
  writeSparse(join(E2E_FIXTURES_DIR, 'big-sparse.safetensors'), big.head, big.head.length + big.dataLength);
  for (const file of readdirSync(GGUF_FIXTURES_DIR).filter((name) => name.endsWith('.gguf'))) {
    write(join(E2E_FIXTURES_DIR, 'gguf', file), readFileSync(join(GGUF_FIXTURES_DIR, file)));
  }
  for (const writer of EXTRA_FIXTURE_WRITERS) {
    writer(E2E_FIXTURES_DIR, { writeSparse, write });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeSamples();
  if (!process.argv.includes('--samples-only')) {
    writeE2eFixtures();
  }
  console.log(`fixtures written to ${SAMPLES_DIR} and ${E2E_FIXTURES_DIR}`);
}
