import { expect, test, type Page } from '@playwright/test';
import { TINY_NATIVE_PARAMS, tinyReferencePair } from '../src/testing/models/mistral-native';
import { readFileSync } from 'node:fs';
import {
  COMPARE_LAYERS,
  compareBaseTensors,
  LORA_TARGETS,
  REMOVED_LAYER,
  SHARDED_BASE_DIR,
  shardedBaseFiles,
} from '../src/testing/compare-pairs';
import { moeUnpackedTensors, SEED_MOE } from '../src/testing/moe-model';
import { fixturePath, openApp, openLocalFile, ORIGIN_A, serverLog, uniqueTag, watchPage } from './helpers';

const BASE = compareBaseTensors();
const TENSORS = BASE.length;
const params = (names: (name: string) => boolean) =>
  BASE.filter((tensor) => names(tensor.name)).reduce(
    (sum, tensor) => sum + tensor.shape.reduce((product, dim) => product * dim, 1),
    0,
  );
const LORA_MODULES = COMPARE_LAYERS * LORA_TARGETS.length;
const MOE_COUNT = moeUnpackedTensors().length;

/** Each test tags its URLs with a unique query so parallel tests read only their own server log entries. */
function tagged(name: string): string {
  return `t=${uniqueTag(name)}`;
}

async function openCompareTab(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Compare' }).click();
  await expect(page.getByRole('region', { name: 'Compare' })).toBeVisible();
}

/** Opens `a` as the main file, then `b` as the comparison, and waits for the diff. */
async function compareFiles(page: Page, a: string, b: string): Promise<void> {
  await openApp(page);
  await openLocalFile(page, a);
  await expect(page.getByTestId('file-name')).toHaveText(a);
  await openCompareTab(page);
  await page.getByTestId('compare-file-input').setInputFiles(fixturePath(b));
  await expect(page.getByTestId('compare-b-name')).toHaveText(b);
  await expect(page.getByTestId('compare-a-name')).toHaveText(a);
}

async function groupCount(page: Page, group: string): Promise<number> {
  return Number(await page.getByTestId(`group-${group}`).getAttribute('data-count'));
}

async function expectGroups(page: Page, expected: Record<string, number>): Promise<void> {
  for (const [group, count] of Object.entries(expected)) {
    await expect(page.getByTestId(`group-${group}`)).toHaveAttribute('data-count', String(count));
  }
}

test.describe('compare mode', () => {
  test('a DDP `module.` checkpoint against a clean one is identical after alignment; the rule can be turned off', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await compareFiles(page, 'cmp-ddp.safetensors', 'cmp-base.safetensors');
    await expectGroups(page, { identical: TENSORS, 'only-a': 0, 'only-b': 0, dtype: 0, shape: 0 });
    await expect(page.getByTestId('compare-headline')).toHaveText(
      'Same tensors after alignment: every name, dtype and shape matches.',
    );
    const moduleRule = page.getByTestId('rule-module.');
    await expect(moduleRule).toHaveAttribute('data-a', String(TENSORS));
    await expect(moduleRule).toHaveAttribute('data-b', '0');
    await expect(moduleRule).toContainText(`applied: A ${TENSORS} · B 0 names`);
    await expect(page.getByTestId('compare-row-count')).toContainText(`${TENSORS} keys · ${TENSORS} shown`);
    await expect(page.getByTestId('compare-delta')).toHaveAttribute('data-value', '0');

    // The table shows aligned keys, and each row says what both sides call it.
    const table = page.getByRole('grid', { name: 'Compared tensors' });
    const row = table.getByRole('row').filter({ hasText: 'layers.0.mlp.up_proj.weight' });
    await expect(row).toContainText('identical');
    await expect(row).toHaveAttribute(
      'title',
      /A: module\.model\.layers\.0\.mlp\.up_proj\.weight\nB: model\.layers\.0\.mlp\.up_proj\.weight/,
    );

    // Turning `module.` off: nothing matches any more.
    await page.getByRole('checkbox', { name: /strip module\./ }).uncheck();
    await expectGroups(page, { identical: 0, 'only-a': TENSORS, 'only-b': TENSORS });
    await expect(page.getByTestId('rule-module.')).toContainText('off');
    await page.getByRole('checkbox', { name: /strip module\./ }).check();
    await expectGroups(page, { identical: TENSORS, 'only-a': 0 });

    // Per module: every module identical.
    await page.getByRole('radio', { name: /per module/ }).check();
    const modules = page.getByRole('grid', { name: 'Compared modules' });
    await expect(page.getByTestId('module-row-count')).toContainText(`${COMPARE_LAYERS + 3} modules`);
    await expect(modules.getByRole('row').filter({ hasText: 'embed_tokens' })).toContainText('identical');

    // The report carries the comparison.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download report' }).click(),
    ]);
    const report = JSON.parse(readFileSync(await download.path(), 'utf8'));
    expect(report.compare.groups.identical.tensors).toBe(TENSORS);
    expect(report.compare.b.name).toBe('cmp-base.safetensors');
    expect(report.compare.alignment.rules.find((rule: { rule: string }) => rule.rule === 'module.').a).toBe(TENSORS);
    watch.expectClean();
  });

  test('an fp16 model against a bf16 copy: every tensor is in "dtype differs"', async ({ page }) => {
    const watch = watchPage(page);
    await compareFiles(page, 'cmp-fp16.safetensors', 'cmp-base.safetensors');
    await expectGroups(page, { dtype: TENSORS, identical: 0, 'only-a': 0, 'only-b': 0, shape: 0 });
    await expect(page.getByTestId('compare-headline')).toContainText(`${TENSORS} differ in dtype or shape`);
    await page.getByTestId('group-dtype').click();
    await expect(page.getByTestId('group-dtype')).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByTestId('compare-row-count')).toContainText(`${TENSORS} shown`);
    const table = page.getByRole('grid', { name: 'Compared tensors' });
    await expect(table.getByRole('row').filter({ hasText: 'embed_tokens.weight' })).toContainText('F16 → BF16');
    await page.getByRole('searchbox', { name: 'Filter compared tensors' }).fill('lm_head');
    await expect(page.getByTestId('compare-row-count')).toContainText('1 shown');
    await expect(table.getByRole('row').filter({ hasText: 'lm_head.weight' })).toContainText('F16 → BF16');
    await page.getByTestId('group-identical').click();
    await expect(page.getByTestId('compare-row-count')).toContainText('0 shown');
    await expect(page.getByText('No tensors match.')).toBeVisible();
    watch.expectClean();
  });

  test('a model against the same model with one layer removed', async ({ page }) => {
    const watch = watchPage(page);
    await compareFiles(page, 'cmp-base.safetensors', 'cmp-minus-layer.safetensors');
    const removed = (name: string) => name.startsWith(`model.layers.${REMOVED_LAYER}.`);
    const removedCount = BASE.filter((tensor) => removed(tensor.name)).length;
    await expectGroups(page, { 'only-a': removedCount, identical: TENSORS - removedCount, 'only-b': 0 });
    await expect(page.getByTestId('group-only-a')).toHaveAttribute('data-elements-a', String(params(removed)));
    await expect(page.getByTestId('compare-delta')).toHaveAttribute('data-value', String(-params(removed)));

    // Sort by Δ elements: the removed layer's biggest tensor comes first.
    await page.getByTestId('group-only-a').click();
    await expect(page.getByTestId('compare-row-count')).toContainText(`${removedCount} shown`);
    await page
      .getByRole('columnheader', { name: /Δ elements/ })
      .getByRole('button')
      .click();
    await expect(page.getByRole('columnheader', { name: /Δ elements/ })).toHaveAttribute('aria-sort', 'descending');
    await page
      .getByRole('columnheader', { name: /Δ elements/ })
      .getByRole('button')
      .click();
    await expect(page.getByRole('columnheader', { name: /Δ elements/ })).toHaveAttribute('aria-sort', 'ascending');
    const firstRow = page.getByRole('grid', { name: 'Compared tensors' }).getByRole('row').nth(1);
    await expect(firstRow).toContainText(`layers.${REMOVED_LAYER}.mlp.`);
    await expect(firstRow).toContainText('only in A');

    // Per module: the layer is only in A; clicking it lists its tensors.
    await page.getByRole('radio', { name: /per module/ }).check();
    await page.getByRole('searchbox', { name: 'Filter modules' }).fill(`layers.${REMOVED_LAYER}`);
    await expect(page.getByTestId('module-row-count')).toContainText('1 shown');
    const moduleRow = page
      .getByRole('grid', { name: 'Compared modules' })
      .getByRole('row')
      .filter({ hasText: `layers.${REMOVED_LAYER}` });
    await expect(moduleRow).toContainText('only in A');
    await moduleRow.click();
    await expect(page.getByRole('button', { name: `module: layers.${REMOVED_LAYER} ✕` })).toBeVisible();
    // A module click shows all of its tensors, whatever their group.
    await expect(page.getByTestId('group-only-a')).toHaveAttribute('aria-pressed', 'false');
    await expect(page.getByTestId('compare-row-count')).toContainText(`${removedCount} shown`);

    // The substring filter works on aligned keys.
    await page.getByRole('button', { name: `module: layers.${REMOVED_LAYER} ✕` }).click();
    await page.getByRole('searchbox', { name: 'Filter compared tensors' }).fill('/^layers\\.(0|1)\\./');
    await expect(page.getByTestId('compare-row-count')).toContainText('18 shown');
    watch.expectClean();
  });

  test('a PEFT adapter against a matching base: it fits', async ({ page }) => {
    const watch = watchPage(page);
    await compareFiles(page, 'cmp-peft-adapter.safetensors', 'cmp-base.safetensors');
    const card = page.getByRole('region', { name: 'Adapter against base' });
    await expect(card).toContainText('A is the adapter (PEFT names), B the base');
    await expect(page.getByTestId('lora-fit-verdict')).toHaveText(
      `This adapter fits this base: all ${LORA_MODULES} adapted modules exist with matching in/out features.`,
    );
    await expect(page.getByTestId('lora-fit-modules')).toHaveText(String(LORA_MODULES));
    await expect(page.getByTestId('lora-fit-fits')).toHaveText(String(LORA_MODULES));
    await expect(card.getByRole('table', { name: 'Modules that do not fit' })).toHaveCount(0);
    await card.getByText('How names map').click();
    await expect(card).toContainText(
      'base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight → model.layers.0.self_attn.q_proj.weight',
    );
    watch.expectClean();
  });

  test('a PEFT adapter against a base with another hidden size: every module is listed', async ({ page }) => {
    const watch = watchPage(page);
    // The base is A this time: the check works from either side.
    await compareFiles(page, 'cmp-base-wide.safetensors', 'cmp-peft-adapter.safetensors');
    const card = page.getByRole('region', { name: 'Adapter against base' });
    await expect(card).toContainText('B is the adapter (PEFT names), A the base');
    await expect(page.getByTestId('lora-fit-verdict')).toHaveText(
      `These ${LORA_MODULES} modules do not fit this base: ${LORA_MODULES} with different in/out features. In short: this adapter was trained for hidden size 64; the base has 128 (all ${LORA_MODULES} mismatched modules).`,
    );
    await expect(page.getByTestId('lora-fit-mismatch')).toHaveText(String(LORA_MODULES));
    const problems = card.getByRole('table', { name: 'Modules that do not fit' });
    await expect(problems.locator('tbody tr')).toHaveCount(LORA_MODULES);
    await expect(problems.locator('tbody tr').first()).toContainText('in- and out-features differ');
    await expect(problems.locator('tbody tr').first()).toContainText('64 → 64');
    await expect(problems.locator('tbody tr').first()).toContainText(
      'model.layers.0.self_attn.q_proj.weight [128, 128]',
    );
    watch.expectClean();
  });

  test('a remote file against a local one reads only headers, with Range requests', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('compare-remote');
    await openApp(page);
    await openLocalFile(page, 'cmp-base.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('cmp-base.safetensors');
    await openCompareTab(page);
    await page
      .getByRole('textbox', { name: 'URL to compare with' })
      .fill(`${ORIGIN_A}/range/cmp-ddp.safetensors?${tag}`);
    await page.getByRole('button', { name: 'Compare URL' }).click();
    await expect(page.getByTestId('compare-b-name')).toHaveText('cmp-ddp.safetensors');
    await expectGroups(page, { identical: TENSORS, 'only-a': 0, 'only-b': 0 });
    await expect(page.getByTestId('rule-module.')).toHaveAttribute('data-b', String(TENSORS));
    const log = await serverLog(tag);
    expect(log.length).toBeGreaterThanOrEqual(1);
    for (const entry of log) {
      expect(entry.status).toBe(206);
      expect(entry.range).toMatch(/^bytes=\d+-\d+$/);
    }
    // Header bytes only: the file is ~400 KB of weights behind a few-KB header.
    expect(log.reduce((sum, entry) => sum + entry.bytesSent, 0)).toBeLessThanOrEqual(128 * 1024);
    // A local A has no share link, so B's URL does not enter the address bar either.
    expect(page.url()).not.toContain('compare=');
    watch.expectClean();
  });

  test('a share link holds both URLs and restores the comparison', async ({ page }) => {
    const watch = watchPage(page);
    const a = `${ORIGIN_A}/range/cmp-base.safetensors?${tagged('share-a')}`;
    const b = `${ORIGIN_A}/range/cmp-minus-layer.safetensors?${tagged('share-b')}`;
    await openApp(page, `?url=${encodeURIComponent(a)}`);
    await expect(page.getByTestId('file-name')).toHaveText('cmp-base.safetensors');
    await openCompareTab(page);
    await page.getByRole('textbox', { name: 'URL to compare with' }).fill(b);
    await page.getByRole('button', { name: 'Compare URL' }).click();
    await expect(page.getByTestId('compare-b-name')).toHaveText('cmp-minus-layer.safetensors');
    await expect(page).toHaveURL(/[?&]compare=/);
    const link = new URL(page.url());
    expect(link.searchParams.get('url')).toBe(a);
    expect(link.searchParams.get('compare')).toBe(b);
    expect(link.searchParams.get('panel')).toBe('compare');

    // A fresh page from the link: both sources load and the diff is back.
    const second = await page.context().newPage();
    const watchSecond = watchPage(second);
    await second.goto(`./${link.search}`);
    await expect(second.getByTestId('compare-b-name')).toHaveText('cmp-minus-layer.safetensors');
    await expect(second.getByTestId('compare-a-name')).toHaveText('cmp-base.safetensors');
    expect(await groupCount(second, 'only-a')).toBe(9);
    watchSecond.expectClean();
    watch.expectClean();
  });

  test('a sharded model (its shards and index picked together) against a single file', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'cmp-ddp.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('cmp-ddp.safetensors');
    await openCompareTab(page);
    await page
      .getByTestId('compare-file-input')
      .setInputFiles(shardedBaseFiles().map((part) => fixturePath(`${SHARDED_BASE_DIR}/${part.file}`)));
    await expect(page.getByTestId('compare-b-name')).toBeVisible();
    await expectGroups(page, { identical: TENSORS, 'only-a': 0, 'only-b': 0 });
    watch.expectClean();
  });

  test('a remote sharded model (its index URL) against a single file', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'cmp-minus-layer.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('cmp-minus-layer.safetensors');
    await openCompareTab(page);
    await page
      .getByRole('textbox', { name: 'URL to compare with' })
      .fill(`${ORIGIN_A}/range/${SHARDED_BASE_DIR}/model.safetensors.index.json?${tagged('sharded')}`);
    await page.getByRole('button', { name: 'Compare URL' }).click();
    await expect(page.getByTestId('compare-b-name')).toBeVisible();
    await expectGroups(page, { 'only-b': 9, identical: TENSORS - 9, 'only-a': 0 });
    watch.expectClean();
  });

  test('a new main file is compared against the B already open; closing ends compare mode', async ({ page }) => {
    const watch = watchPage(page);
    await compareFiles(page, 'cmp-base.safetensors', 'cmp-ddp.safetensors');
    await expectGroups(page, { identical: TENSORS });
    await openLocalFile(page, 'cmp-fp16.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('cmp-fp16.safetensors');
    await expect(page.getByTestId('compare-a-name')).toHaveText('cmp-fp16.safetensors');
    await expectGroups(page, { dtype: TENSORS, identical: 0 });
    await page.getByRole('button', { name: 'Close comparison' }).click();
    await expect(page.getByTestId('compare-b-name')).toHaveCount(0);
    watch.expectClean();
  });

  test("Mistral's consolidated.safetensors against its transformers copy: paired by name, values equal; screenshots", async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    const files = tinyReferencePair();
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles([
        {
          name: 'consolidated.safetensors',
          mimeType: 'application/octet-stream',
          buffer: Buffer.from(files.reference),
        },
        { name: 'params.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(TINY_NATIVE_PARAMS)) },
      ]);
    await expect(page.getByTestId('file-name')).toHaveText('consolidated.safetensors');
    await openCompareTab(page);
    await page.getByTestId('compare-file-input').setInputFiles({
      name: 'model.safetensors',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(files.transformers),
    });
    await expect(page.getByTestId('rule-gguf-names')).toContainText("map A's reference-code names");
    await expect(page.getByTestId('rule-gguf-names')).toContainText(
      'paired 21 tensors (0 of another shape) · only in A 0 · only in B 0',
    );
    await expectGroups(page, { 'only-a': 0, 'only-b': 0, dtype: 0, shape: 0, identical: 21 });
    // q and k are stored in another row order on each side: equal only once the rows are put back.
    await page.getByRole('button', { name: 'Compare values' }).click();
    await expect(page.getByTestId('compare-values-changed')).toHaveText('0 changed');
    await expect(page.getByTestId('compare-values-result')).toContainText('Compared 21 tensors');
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 1000 });
      await page.screenshot({ path: testInfo.outputPath(`compare-reference-${width}.png`), fullPage: true });
    }
    watch.expectClean();
  });

  test('250,000 tensors per side: diffed in the worker, filtered, sorted and scrolled', async ({ page }) => {
    test.setTimeout(180_000);
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'moe-250k.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('moe-250k.safetensors', { timeout: 60_000 });
    await openCompareTab(page);
    await page.getByTestId('compare-file-input').setInputFiles(fixturePath('moe-250k.safetensors'));
    await expect(page.getByTestId('compare-b-name')).toHaveText('moe-250k.safetensors', { timeout: 90_000 });
    await expect(page.getByTestId('group-identical')).toHaveAttribute('data-count', String(MOE_COUNT));
    await expect(page.getByTestId('compare-row-count')).toContainText(/250.638 shown/);
    const scroll = page.getByTestId('compare-table-scroll');
    // Only about a viewport of rows is in the DOM.
    expect(await scroll.getByRole('row').count()).toBeLessThan(80);
    await scroll.evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await expect(scroll.locator(`[role="row"][aria-rowindex="${MOE_COUNT + 1}"]`)).toContainText('lm_head.weight');

    const filter = page.getByRole('searchbox', { name: 'Filter compared tensors' });
    await filter.fill(`/experts\\.${SEED_MOE.experts - 1}\\.down_proj/`);
    await expect(page.getByTestId('compare-row-count')).toContainText(`${SEED_MOE.layers} shown`);
    await filter.fill('');
    await page
      .getByRole('columnheader', { name: /Tensor/ })
      .getByRole('button')
      .click();
    await expect(page.getByRole('columnheader', { name: /Tensor/ })).toHaveAttribute('aria-sort', 'ascending');
    await expect(page.getByTestId('compare-row-count')).toContainText(/250.638 shown/);
    await page.getByRole('radio', { name: /per module/ }).check();
    await expect(page.getByTestId('module-row-count')).toContainText(`${SEED_MOE.layers + 3} modules`);
    watch.expectClean();
  });
});

test('a compare filter regex that hangs is stopped by the watchdog, and both sources come back without it', async ({
  page,
}) => {
  test.setTimeout(60_000);
  const watch = watchPage(page);
  await compareFiles(page, 'redos-bait.safetensors', 'redos-bait.safetensors');
  const filter = page.getByRole('searchbox', { name: 'Filter compared tensors' });
  await expect(page.getByTestId('compare-row-count')).toContainText('2 shown');
  await filter.fill('/(a+)+$/');
  await expect(page.getByTestId('compare-notice')).toContainText('was stopped', { timeout: 20_000 });
  await expect(page.getByTestId('compare-notice')).toContainText('/(a+)+$/');
  // The worker was replaced: both sources are reopened and compared again, without the filter.
  await expect(page.getByTestId('compare-row-count')).toContainText('2 shown', { timeout: 20_000 });
  await expect(filter).toHaveValue('');
  // The replacement worker answers new compare queries.
  await filter.fill('norm');
  await expect(page.getByTestId('compare-row-count')).toContainText('1 shown');
  watch.expectClean();
});
