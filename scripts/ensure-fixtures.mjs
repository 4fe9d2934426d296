// Generates the bundled samples (public/samples/) when missing, so `npm run dev` works right after `npm ci`.
// With --all it also generates the e2e fixtures (several multi-GB sparse files and a 200 MB hostile header).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const all = process.argv.includes('--all');
// One file per kind of sample: a checkout made before a kind was added regenerates them.
const SAMPLES = ['tiny-llama-with-metadata.safetensors', 'pytorch_model.bin', 'hostile-os-system.pkl'];
const missing =
  SAMPLES.some((file) => !existsSync(`public/samples/${file}`)) ||
  (all && !existsSync('e2e/.fixtures/clean.safetensors'));
if (missing) {
  const result = spawnSync('npx', ['tsx', 'scripts/fixtures.ts', ...(all ? [] : ['--samples-only'])], {
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}
