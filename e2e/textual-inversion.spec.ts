/**
 * Textual inversion embeddings dropped as users get them (fixtures/textual-inversion, written with torch.save and
 * safetensors as AUTOMATIC1111 and SDXL tools write them): named for what they are, with their vectors and text
 * encoder, never taken for a model; screenshots at 1440 and 800 px.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openApp, watchPage } from './helpers';

const DIR = join(process.cwd(), 'fixtures', 'textual-inversion');

test.describe('textual inversion embeddings', () => {
  test('AUTOMATIC1111’s .pt: 8 vectors for SD 1.x, its name and training steps', async ({ page }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(DIR, 'easynegative.pt'));
    await expect(page.getByTestId('verdict-clauses')).toContainText(
      'Textual inversion embedding: 8 vectors for Stable Diffusion 1.x',
    );
    await page.getByRole('tab', { name: 'Model' }).click();
    const card = page.getByRole('region', { name: 'Textual inversion' });
    await expect(card.getByTestId('ti-vectors')).toHaveText('8');
    await expect(card.getByTestId('ti-encoders')).toHaveText('CLIP ViT-L/14, 768 wide (string_to_param.*)');
    await expect(card).toContainText('easynegative');
    await expect(card).toContainText('v1-5-pruned-emaonly');
    await expect(page.getByRole('tab', { name: 'Memory' })).toHaveCount(0);
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: testInfo.outputPath(`textual-inversion-${width}.png`) });
    }
    watch.expectClean();
  });

  test('an SDXL embedding: one set of vectors per text encoder', async ({ page }) => {
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(DIR, 'sdxl-embedding.safetensors'));
    await expect(page.getByTestId('verdict-clauses')).toContainText('Textual inversion embedding: 4 vectors for SDXL');
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByTestId('ti-encoders')).toHaveText(
      /CLIP ViT-L\/14, 768 wide \(clip_l\) · OpenCLIP ViT-bigG\/14, 1\D280 wide \(clip_g\)|OpenCLIP ViT-bigG\/14, 1\D280 wide \(clip_g\) · CLIP ViT-L\/14, 768 wide \(clip_l\)/,
    );
  });
});
