/**
 * NumPy arrays pickled by numpy itself (fixtures/numpy-pickles, scripts/numpy-pickle-fixtures.py): a parameter tree
 * in a bare pickle is listed array by array and counted; "Read values" says why its values stay unread; screenshots
 * at 1440 and 800 px.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openApp, readValuesOf, watchPage } from './helpers';

const DIR = join(process.cwd(), 'fixtures', 'numpy-pickles');

test('a pickled parameter tree: its arrays listed and counted, the tied head once, values said to be unread', async ({
  page,
}, testInfo) => {
  const watch = watchPage(page);
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(join(DIR, 'params-p4.pkl'));
  await expect(page.getByTestId('verdict-params')).toContainText('188 parameters');
  await expect(page.getByText('7 tensors · 7 shown')).toBeVisible();
  await expect(page.locator('[data-code="tied-weights"]')).toContainText(
    'params.embed.embedding and params.head.kernel',
  );
  await readValuesOf(page, 'params.dense.kernel');
  await expect(page.getByTestId('values-panel')).toContainText('A NumPy array kept inside the pickle itself');
  await expect(page.getByTestId('tensor-storage')).toContainText(
    'inline in the pickle (a NumPy array), offset 0 elements',
  );
  await page.getByRole('button', { name: 'Scan all values' }).click();
  await expect(page.getByTestId('scan-result')).toBeVisible();
  for (const width of [1440, 800]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: testInfo.outputPath(`numpy-pickle-${width}.png`) });
  }
  watch.expectClean();
});
