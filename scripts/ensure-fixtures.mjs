// Generates public/samples/ and e2e/.fixtures/ when missing, so `npm run dev` works right after `npm ci`.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

if (
  !existsSync('public/samples/tiny-llama-with-metadata.safetensors') ||
  !existsSync('e2e/.fixtures/clean.safetensors')
) {
  const result = spawnSync('npx', ['tsx', 'scripts/fixtures.ts'], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
