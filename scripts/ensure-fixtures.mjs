// Generates the bundled samples (public/samples/) when missing, so `npm run dev` works right after `npm ci`.
// With --all it also generates the e2e fixtures (several multi-GB sparse files and a 200 MB hostile header).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const all = process.argv.includes('--all');
const missing =
  !existsSync('public/samples/tiny-llama-with-metadata.safetensors') ||
  (all && !existsSync('e2e/.fixtures/clean.safetensors'));
if (missing) {
  const result = spawnSync('npx', ['tsx', 'scripts/fixtures.ts', ...(all ? [] : ['--samples-only'])], {
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}
