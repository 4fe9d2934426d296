import { chromium } from '@playwright/test';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
for (const width of [1440, 800]) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto('http://127.0.0.1:4299/');
  await page.getByTestId('folder-input').first().setInputFiles('fixtures/torch2/optimizers/trainer');
  await page.waitForTimeout(1500);
  await page.screenshot({ path: `/tmp/probe/folder-${width}.png` });
  const sw = page.getByTestId('source-switcher');
  const label = await sw.locator('option', { hasText: 'optimizer.pt' }).textContent();
  await sw.selectOption({ label });
  await page.waitForTimeout(1500);
  await page.getByRole('tab', { name: 'Checkpoint' }).click();
  await page.waitForTimeout(500);
  await page.getByTestId('optimizer-state').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `/tmp/probe/optcard-${width}.png`, fullPage: true });
  await page.getByTestId('file-input').first().setInputFiles('fixtures/torch/lightning.ckpt');
  await page.waitForTimeout(1500);
  await page.getByRole('tab', { name: 'Checkpoint' }).click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: `/tmp/probe/light-${width}.png`, fullPage: true });
  await page.close();
}
await browser.close();
