/**
 * Takes the README screenshot (docs/screenshot.png) from the built app: `npx tsx scripts/screenshot.ts [sample]`.
 * Also handy to look at the UI from a terminal session.
 */
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from './find-chromium.mjs';
import { startPreview, waitForServer } from './bench-page';

const sample = process.argv[2] ?? 'Quantized (ComfyUI int8)';
const out = process.argv[3] ?? 'docs/screenshot.png';
const port = Number(process.env.SCREENSHOT_PORT ?? 4291);
// SCREENSHOT_DIST: another build folder (several developers build side by side, like E2E_DIST).
const dist = process.env.SCREENSHOT_DIST ?? 'dist';
const server = startPreview(port, dist);
try {
  await waitForServer(`http://127.0.0.1:${port}/`, 20_000);
  const found = findChromium();
  const browser = await chromium.launch({
    executablePath: found?.source === 'playwright' ? undefined : found?.path,
    args: CHROMIUM_ARGS,
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
  await page.goto(`http://127.0.0.1:${port}/`);
  if (sample.endsWith('.safetensors')) {
    await page.getByTestId('file-input').first().setInputFiles(sample);
  } else {
    await page.getByRole('button', { name: sample }).click();
  }
  await page.getByTestId('file-name').waitFor();
  await page.waitForTimeout(500);
  await page.screenshot({ path: out });
  await browser.close();
  console.log(`wrote ${out}`);
} finally {
  server.kill();
}
