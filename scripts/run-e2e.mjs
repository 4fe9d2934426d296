// Runs the Playwright suite against the built app in headless Chromium (found or installed by find-chromium.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ensureChromium } from './find-chromium.mjs';

const chromium = ensureChromium();
if (!chromium) {
  process.exit(1);
}
if (!existsSync('dist/index.html')) {
  const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) {
    process.exit(build.status ?? 1);
  }
}
if (!existsSync('e2e/.fixtures/clean.safetensors')) {
  spawnSync('npx', ['tsx', 'scripts/fixtures.ts'], { stdio: 'inherit' });
}
const env = { ...process.env };
if (chromium.source !== 'playwright') {
  env.PLAYWRIGHT_CHROMIUM_EXECUTABLE = chromium.path;
}
const result = spawnSync('npx', ['playwright', 'test', ...process.argv.slice(2)], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
