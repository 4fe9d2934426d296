/**
 * Models transformers saved (fixtures/transformers-archs/, scripts/transformers-arch-fixtures.py), dropped with
 * their config.json: an encoder-decoder's Memory tab sizes its decoder's cache and the cross-attention cache of the
 * encoder's output; an encoder gets no Memory tab, and its masked-LM head is read as tied to the embedding.
 */
import { expect, test } from '@playwright/test';
import { dropSavedFixture, openApp } from './helpers';

test('Whisper: the decoder’s KV cache and the cross-attention cache of its 16 encoder positions', async ({ page }) => {
  await openApp(page);
  await dropSavedFixture(page, 'transformers-archs', 'whisper');
  await page.getByRole('tab', { name: 'Memory' }).click();
  const lines = page.getByTestId('memory-kv-line');
  await expect(lines).toHaveCount(2);
  await expect(lines.nth(0)).toContainText('KV cache: decoder self-attention, 2 layers');
  await expect(lines.nth(1)).toContainText('KV cache: cross-attention to the encoder output, 2 layers');
  // 16 positions × 2 layers × (2 × 4 heads × 16 head dim) × 2 B = 8,192 B, whatever the context.
  await expect(lines.nth(1)).toContainText('16 encoder positions per sequence (max_source_positions');
  await expect(lines.nth(1).locator('td.num')).toHaveAttribute('title', /^8[\s,  ]?192 B$/);
});

test('BART: the cross-attention cache follows the context up to max_position_embeddings', async ({ page }) => {
  await openApp(page);
  await dropSavedFixture(page, 'transformers-archs', 'bart');
  await page.getByRole('tab', { name: 'Memory' }).click();
  await expect(page.getByTestId('memory-kv-line').nth(1)).toContainText('up to 256 input positions');
});

test('RoBERTa: an encoder’s Memory tab has no KV cache, and its masked-LM head is the token embedding', async ({
  page,
}, testInfo) => {
  await openApp(page);
  await dropSavedFixture(page, 'transformers-archs', 'roberta');
  await page.getByRole('tab', { name: 'Model' }).click();
  await expect(page.locator('.fact', { hasText: 'Tied embeddings' }).locator('dd')).toHaveText('yes');
  await page.getByRole('tab', { name: 'Memory' }).click();
  await expect(page.getByTestId('memory-kv-none')).toContainText('an encoder reads its whole input in one pass');
  await expect(page.getByTestId('memory-kv-line')).toHaveCount(0);
  await expect(page.getByTestId('memory-cache-dtype')).toHaveCount(0);
  await expect(page.getByTestId('memory-tp-rule')).toContainText('an encoder: no KV cache to split');
  for (const width of [1440, 800]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: testInfo.outputPath(`encoder-memory-${width}.png`), fullPage: true });
  }
});

test('distil-whisper: its 2 decoder layers are the model’s layers, beside 4 encoder layers', async ({ page }) => {
  await openApp(page);
  await dropSavedFixture(page, 'transformers-archs', 'whisper@distil');
  await page.getByRole('tab', { name: 'Model' }).click();
  await expect(page.getByTestId('arch-layers')).toHaveText('2 decoder + 4 encoder');
  await page.getByRole('tab', { name: 'Memory' }).click();
  await expect(page.getByTestId('memory-kv-line').nth(1)).toContainText(
    'KV cache: cross-attention to the encoder output, 2 layers',
  );
});
