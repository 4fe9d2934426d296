import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
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

test.describe('the module tree after the report', () => {
  test.setTimeout(120_000);

  test('50,000 distinct paths: the report is complete first, the Modules tab says the tree is coming, then shows it, and the report download holds it', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'huge-modules-50k.safetensors');
    const tab = page.getByRole('tab', { name: /^Modules/ });
    await tab.click({ timeout: 60_000 });
    const tree = page.getByRole('tree', { name: 'Module tree' });
    const pending = page.getByTestId('modules-pending');
    // The tab opens on whichever is there: the line saying the tree is being built, or the tree.
    await expect(pending.or(tree)).toBeVisible();
    // Read at one moment, with no wait: the line may give way to the tree between a visibility check and a
    // retrying text assertion, which then waited for a line that was gone.
    for (const text of await pending.allTextContents()) {
      expect(text).toMatch(/^Grouping 50.000 tensors into modules…$/);
    }
    await expect(tree.getByRole('treeitem').first()).toContainText('enc');
    await expect(pending).toHaveCount(0);
    const marks = await page.evaluate(() =>
      ['lens:load-done', 'lens:views-done'].map((name) => performance.getEntriesByName(name)[0]?.startTime ?? null),
    );
    expect(marks[0]).not.toBeNull();
    expect(marks[1]).not.toBeNull();
    expect(marks[1] as number).toBeGreaterThanOrEqual(marks[0] as number);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download report' }).click(),
    ]);
    const report = JSON.parse(readFileSync(await download.path(), 'utf8')) as {
      moduleTree?: { root: { tensors: number } };
      pendingSections?: string[];
    };
    expect(report.moduleTree?.root.tensors).toBe(50_000);
    expect(report.pendingSections).toBeUndefined();
    watch.expectClean();
  });
});
