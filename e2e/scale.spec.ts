import { expect, test } from '@playwright/test';
import { moeUnpackedTensors, SEED_MOE } from '../src/testing/moe-model';
import { openApp, openLocalFile, statValue, watchPage } from './helpers';

const TENSORS = moeUnpackedTensors();
const COUNT = TENSORS.length;

test.describe('scale: the 250,000-tensor MoE header', () => {
  test.setTimeout(120_000);

  test('loads, filters, sorts and scrolls to the last row', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'moe-250k.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('moe-250k.safetensors', { timeout: 60_000 });
    expect(await statValue(page, 'stat-tensors')).toBe(COUNT);
    // The row order comes from the worker after the header: wait for it before scrolling.
    await expect(page.getByTestId('row-count')).toContainText(/250.638 shown/);
    const scroll = page.getByTestId('table-scroll');
    // Only about a viewport of rows is in the DOM, whatever the row count.
    expect(await scroll.getByRole('row').count()).toBeLessThan(80);

    // Scroll to the very end: the last row in header order is lm_head.
    await scroll.evaluate((element) => element.scrollTo(0, element.scrollHeight));
    const lastRow = scroll.locator(`[role="row"][aria-rowindex="${COUNT + 1}"]`);
    await expect(lastRow).toContainText('lm_head.weight');
    expect(await scroll.getByRole('row').count()).toBeLessThan(80);

    const filter = page.getByRole('searchbox', { name: 'Filter tensors' });
    await filter.fill(`/experts\\.${SEED_MOE.experts - 1}\\.down_proj/`);
    await expect(page.getByTestId('row-count')).toContainText(`${SEED_MOE.layers} shown`);
    await filter.fill('');
    await expect(page.getByTestId('row-count')).toContainText(/250.638 shown/);

    // Sort by bytes, largest first: embeddings and lm_head (163,840 × 7,168 BF16) lead.
    await page.getByRole('columnheader', { name: /Bytes/ }).getByRole('button').click();
    await expect(page.getByRole('columnheader', { name: /Bytes/ })).toHaveAttribute('aria-sort', 'descending');
    await scroll.evaluate((element) => element.scrollTo(0, 0));
    const firstRow = scroll.locator('[role="row"][aria-rowindex="2"]');
    await expect(firstRow).toContainText(/embed_tokens|lm_head/);
    await expect(firstRow).toContainText('2.35 GB');
    // And the smallest at the end: the layer norms.
    await scroll.evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await expect(scroll.locator(`[role="row"][aria-rowindex="${COUNT + 1}"]`)).toContainText(/layernorm|norm\.weight/);
    watch.expectClean();
  });

  test('the packed-experts twin has the same parameters in a fraction of the tensors', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'moe-packed.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('moe-packed.safetensors');
    const params = TENSORS.reduce((sum, t) => sum + t.shape.reduce((p, d) => p * d, 1), 0);
    expect(await statValue(page, 'stat-stored-elements')).toBe(params);
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByTestId('arch-experts')).toContainText(
      `${SEED_MOE.experts.toLocaleString('en').replace(/,/g, '\u2009')} per layer`,
    );
    await expect(page.getByTestId('arch-experts')).toContainText('packed');
    watch.expectClean();
  });
});
