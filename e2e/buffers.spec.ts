/**
 * Registered buffers saved beside the parameters (fixtures/buffers, scripts/buffer-fixtures.py: the models' own
 * transformers and torch code): the verdict counts what the model's num_parameters() counts and says what it left
 * out, and the finding names the buffers; screenshots at 1440 and 800 px.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openApp, statValue, watchPage } from './helpers';

const DIR = join(process.cwd(), 'fixtures', 'buffers');
const EXPECTED = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as Record<
  string,
  { numParameters: number; storedElements: number; buffers: string[]; bufferElements: number }
>;

test.describe('registered buffers', () => {
  test('a lecture GPT whose heads each keep a tril mask: its own parameter count, the masks apart', async ({
    page,
  }, testInfo) => {
    const expected = EXPECTED['lecture-gpt.pt'];
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(DIR, 'lecture-gpt.pt'));
    await expect(page.getByTestId('verdict-params')).toHaveText(
      '30.5 K parameters (38.7 K stored elements) · 8 buffers (8.19 K values) not counted',
    );
    expect(await statValue(page, 'stat-params')).toBe(expected.numParameters);
    await expect(page.getByTestId('verdict')).toContainText('32.00 bits/param');
    const finding = page.locator('[data-code="registered-buffers"]');
    await expect(finding).toContainText('8 tensors are registered buffers, not parameters: 8 causal attention masks');
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await finding.scrollIntoViewIfNeeded();
      await page.screenshot({ path: testInfo.outputPath(`buffers-${width}.png`) });
    }
    watch.expectClean();
  });

  test('Pythia’s layout in safetensors: F16 weights, BOOL masks and rotary tables left out of bits/param', async ({
    page,
  }) => {
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles(join(DIR, 'pythia-legacy', 'model.safetensors'));
    await expect(page.getByTestId('verdict-params')).toHaveText(
      '25.3 K parameters (33.5 K stored elements) · 6 buffers (8.20 K values) not counted',
    );
    await expect(page.getByTestId('verdict')).toContainText('16.00 bits/param');
  });

  test('an older save against today’s: the masks only the older one stores are buffers, not a difference', async ({
    page,
  }, testInfo) => {
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles(join(DIR, 'gpt2-legacy', 'pytorch_model.bin'));
    await expect(page.getByTestId('verdict-params')).toContainText('31.6 K parameters');
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(join(DIR, 'gpt2-current.safetensors'));
    const onlyA = page.getByTestId('group-only-a');
    // The tied lm_head (storage both sides have) and each layer's attn.bias and attn.masked_bias.
    await expect(onlyA).toHaveAttribute('data-count', '5');
    await expect(page.getByTestId('only-a-aliases')).toHaveText(
      '1 of them tied names or views of storage both sides have',
    );
    await expect(page.getByTestId('only-a-buffers')).toHaveText(
      '4 of them registered buffers the model rebuilds, not weights',
    );
    await expect(onlyA).toHaveClass(/diff-aliases/);
    await expect(page.getByTestId('group-only-b')).toHaveAttribute('data-count', '0');
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: testInfo.outputPath(`buffers-compare-${width}.png`) });
    }
  });
});
