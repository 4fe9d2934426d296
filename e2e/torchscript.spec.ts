/**
 * TorchScript archives written by torch.jit.save (fixtures/torchscript, scripts/torchscript-fixtures.py): the app
 * reads the module as torch.jit.load does, counts what its parameters() count, and its quantized modules' packed
 * weights; screenshots at 1440 and 800 px.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openApp, statValue, watchPage } from './helpers';

const DIR = join(process.cwd(), 'fixtures', 'torchscript', 'torch2');
const EXPECTED = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as Record<
  string,
  { numParameters: number; floatParameters?: number }
>;

test.describe('TorchScript archives', () => {
  test('a scripted CNN: its own parameter count, its buffers and plain attribute apart, the module as the weights', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(DIR, 'scripted.pt'));
    await expect(page.getByTestId('verdict-params')).toHaveText(
      '440 parameters (471 stored elements) · 8 buffers (31 values) not counted',
    );
    expect(await statValue(page, 'stat-params')).toBe(EXPECTED['scripted.pt'].numParameters);
    await expect(page.locator('[data-code="torchscript-archive"]')).toContainText(
      'told apart as torch.jit.load tells them',
    );
    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    await expect(page.getByTestId('checkpoint-weights')).toHaveText(
      'the root: a TorchScript SmallCnn (torch.jit.save), its tensors named as its state_dict() names them',
    );
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: testInfo.outputPath(`torchscript-${width}.png`), fullPage: true });
    }
    watch.expectClean();
  });

  test('a scripted int8 model: the packed weights and biases are listed and counted', async ({ page }) => {
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(DIR, 'quantized.pt'));
    await expect(page.getByTestId('verdict-params')).toContainText('260 parameters');
    expect(await statValue(page, 'stat-params')).toBe(EXPECTED['quantized.pt'].floatParameters);
    await expect(page.getByTestId('file-format')).toHaveText(/^TorchScript module \(torch\.jit\.save zip\)/);
    await page.getByRole('tab', { name: 'Quantization' }).click();
    await expect(page.getByTestId('quant-summary')).toContainText('Quantized by PyTorch (torch.ao quantized tensors)');
  });
});
