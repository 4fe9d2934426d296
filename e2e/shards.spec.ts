/**
 * Sharded models, index files and repositories: a local model folder, several dropped files, remote indexes of
 * 163 shards (clean and with each defect) from the test server, and a repository on the fake Hub (e2e-routes.ts).
 */
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSafetensors } from '../src/testing/build-safetensors';
import { tinyLlamaTensors } from '../src/testing/fixture-manifest';
import { buildShardedModel } from '../src/testing/build-sharded';
import { HUB_REPO, SHARD_FIXTURES, UNSAFE_SHARD_NAME } from '../src/testing/shard-fixtures';
import { HTTP1_SHARD_CONCURRENCY } from '../src/core/limits';
import { groupDigits } from '../src/core/number-format';
import {
  APP_ORIGIN,
  dropFile,
  FIXTURES_DIR,
  fixturePath,
  openApp,
  ORIGIN_A,
  serverLog,
  statValue,
  uniqueTag,
  watchPage,
  type ServerLogEntry,
} from './helpers';
import { maxInFlight } from '../src/testing/servers/in-flight';
import { formatPercent } from '../src/core/number-format';

const CLEAN = buildShardedModel(SHARD_FIXTURES.clean.options).expected;

/** Each test tags its URLs with a unique path segment so parallel tests read only their own log entries. */
const tagged = uniqueTag;

/** The GET requests a test's tagged URLs made. */
async function shardLog(fragment: string): Promise<ServerLogEntry[]> {
  return (await serverLog(fragment)).filter((entry) => entry.method === 'GET');
}

async function openUrl(page: Page, url: string): Promise<void> {
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}

function indexUrl(route: 'shards' | 'slowshards', tag: string, dir: string): string {
  return `${ORIGIN_A}/${route}/${tag}/${dir}/model.safetensors.index.json`;
}

function finding(page: Page, code: string) {
  return page.getByRole('complementary', { name: 'Findings' }).locator(`li[data-code="${code}"]`);
}

/** Chromium logs each 404 a fetch receives; the missing-shard test provokes exactly that on purpose. */
const EXPECTED_404 = /Failed to load resource: the server responded with a status of 404/;

/** A Hugging Face cache with two snapshots of one repository; refs/main points at the newer, smaller one. */
const HUB_CACHE_DIR = 'hf-cache';
const MAIN_COMMIT = 'c'.repeat(40);
const OLD_COMMIT = '0'.repeat(40);

test.beforeAll(() => {
  const repo = join(FIXTURES_DIR, HUB_CACHE_DIR, 'hub', 'models--org--three');
  for (const [commit, layers] of [
    [OLD_COMMIT, 3],
    [MAIN_COMMIT, 2],
  ] as const) {
    mkdirSync(join(repo, 'snapshots', commit), { recursive: true });
    writeFileSync(join(repo, 'snapshots', commit, 'model.safetensors'), buildSafetensors(tinyLlamaTensors(layers)));
  }
  mkdirSync(join(repo, 'refs', 'refs', 'pr'), { recursive: true });
  writeFileSync(join(repo, 'refs', 'main'), MAIN_COMMIT);
  writeFileSync(join(repo, 'refs', 'refs', 'pr', '1'), OLD_COMMIT);
});

test.describe('sharded models', () => {
  test('a dropped Hugging Face cache opens the snapshot refs/main points at, each snapshot named with its branches; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath(HUB_CACHE_DIR));
    await expect(page.getByTestId('file-name')).toHaveText('org/three@ccccccc (main)/model.safetensors');
    await expect(page.getByTestId('source-switcher').locator('option')).toHaveText([
      /^org\/three@0000000 \(refs\/pr\/1\)\/model\.safetensors/,
      /^org\/three@ccccccc \(main\)\/model\.safetensors/,
    ]);
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 700 });
      await page.screenshot({ path: testInfo.outputPath(`hf-cache-${width}.png`) });
    }
    watch.expectClean();
  });

  test('a local model folder: 163 shards, their index and config.json become one model', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath(SHARD_FIXTURES.clean.dir));

    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors.index.json', { timeout: 30_000 });
    await expect(page.getByTestId('shard-count')).toHaveText(/163 shards/);
    expect(await statValue(page, 'stat-tensors')).toBe(CLEAN.tensors);
    expect(await statValue(page, 'stat-stored-elements')).toBe(CLEAN.elements);
    expect(await statValue(page, 'stat-data-bytes')).toBe(CLEAN.dataBytes);
    // Headers only: 8 + N per shard plus the index, a few hundred KB of a 141 GB model.
    expect(await statValue(page, 'stat-bytes-read')).toBeLessThan(1_000_000);
    // The overhead counts every shard's 8 + N bytes, not the first shard's alone.
    const headers = (await statValue(page, 'stat-header')) + 8 * 163;
    await expect(page.getByTestId('stat-header-overhead')).toHaveText(
      formatPercent(headers, await statValue(page, 'stat-file-size')),
    );
    await expect(page.getByTestId('verdict')).toContainText('16.00 bits/param');
    await expect(page.getByText('No problems found')).toBeVisible();
    await expect(page.getByTestId('sidecars-read')).toContainText('shards-clean/config.json');

    // One table across all shards, with the shard of each tensor.
    const table = page.getByRole('grid', { name: 'Tensors' });
    await expect(table.getByRole('columnheader', { name: /Shard/ })).toBeVisible();
    const embed = table.getByRole('row').filter({ hasText: 'model.embed_tokens.weight' });
    await expect(embed).toContainText('00001/00163');
    await expect(embed.getByTitle('model-00001-of-00163.safetensors')).toBeVisible();
    await expect(page.getByTestId('row-count')).toContainText(`${CLEAN.tensors} shown`);

    await page.getByRole('tab', { name: 'Shards' }).click();
    const shards = page.getByRole('table', { name: 'Shards', exact: true });
    await expect(shards.locator('tbody tr')).toHaveCount(163);
    await expect(page.getByTestId('shards-bits-per-param')).toHaveText('16.00');
    await expect(page.getByTestId('bits-note')).toContainText("index's metadata.total_size");
    await expect(page.getByTestId('index-entries')).toHaveText(String(CLEAN.weightMapEntries));
    await expect(
      page.getByRole('region', { name: 'Shard balance' }).locator('.recharts-bar-rectangle').first(),
    ).toBeVisible();

    // config.json reached the analyses: the attention layout cites it.
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByTestId('arch-attention')).toContainText('config.json');

    const foreign = watch.requests.filter(
      (url) => !url.startsWith(APP_ORIGIN) && !url.startsWith('blob:') && !url.startsWith('data:'),
    );
    expect(foreign).toEqual([]);
    watch.expectClean();
  });

  test('an index chosen without its shards: one warning saying so, and nothing left counting', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles(join(fixturePath(SHARD_FIXTURES.clean.dir), 'model.safetensors.index.json'));
    await expect(page.getByTestId('integrity')).toContainText(
      'index only: none of the shard files it names was opened',
    );
    const findings = page.getByRole('complementary', { name: 'Findings' });
    await expect(findings).toContainText(`Only the index was opened: it assigns ${CLEAN.weightMapEntries}`);
    await expect(findings).not.toContainText('Shard file missing');
    await expect(page.locator('.empty-rows')).toContainText('No shard file was opened');
    await page.getByRole('tab', { name: 'Shards' }).click();
    await expect(page.getByTestId('shards-present')).toHaveText('0 of 163');
    await expect(page.getByTestId('shards-params')).toHaveText('—');
    await expect(page.getByRole('region', { name: 'Shard balance' })).toHaveCount(0);
    // The names the index lists, each with its shard file, a page at a time; Find searches every page.
    const entries = page.getByRole('region', { name: 'Index entries' });
    await expect(entries.getByTestId('index-names-range')).toHaveText(`1–50 of ${groupDigits(CLEAN.weightMapEntries)}`);
    await expect(entries.getByRole('row')).toHaveCount(51);
    await entries.getByRole('searchbox').fill('model.norm.weight');
    await expect(entries.getByTestId('index-names-range')).toHaveText('1–1 of 1 name containing "model.norm.weight"');
    await expect(entries.getByRole('row').nth(1)).toContainText('model-00163-of-00163.safetensors');
    await entries.getByRole('searchbox').fill('no such tensor');
    await expect(entries.getByTestId('index-names-range')).toHaveText('No name contains "no such tensor"');
    watch.expectClean();
  });

  test("a local model folder: a tensor's values are read from the shard that holds it", async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath(SHARD_FIXTURES.clean.dir));
    await expect(page.getByTestId('shard-count')).toHaveText(/163 shards/, { timeout: 30_000 });
    // The final norm sits in the last shard; the row → shard column has moved to the page by the time values are
    // asked for, so the worker must still find the shard without it.
    await page.getByRole('searchbox', { name: 'Filter tensors' }).fill('model.norm.weight');
    const row = page.getByRole('grid', { name: 'Tensors' }).getByRole('row').filter({ hasText: 'model.norm.weight' });
    await expect(row).toContainText('00163/00163');
    await page.getByText('model.norm.weight', { exact: true }).first().click();
    await page.getByRole('button', { name: 'Read values' }).click();
    await expect(page.getByTestId('values-read')).toContainText('All 8 192 values');
    watch.expectClean();
  });

  test('several dropped files: unrelated files each open as their own source, with a switcher', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const dataTransfer = await page.evaluateHandle(
      (files) => {
        const transfer = new DataTransfer();
        for (const { name, data } of files) {
          transfer.items.add(new File([new Uint8Array(data)], name));
        }
        return transfer;
      },
      ['clean.safetensors', 'no-metadata.safetensors'].map((name) => ({
        name,
        data: Array.from(readFileSync(fixturePath(name))),
      })),
    );
    await page.dispatchEvent('body', 'dragenter', { dataTransfer });
    await page.dispatchEvent('body', 'drop', { dataTransfer });

    // The larger file opens first; both are offered.
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    const switcher = page.getByRole('combobox', { name: 'Model to show' });
    await expect(switcher.locator('option')).toHaveCount(2);
    await expect(page.getByRole('tab', { name: 'Shards' })).toHaveCount(0);
    await switcher.selectOption('no-metadata.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('no-metadata.safetensors');
    await expect(switcher).toHaveValue('no-metadata.safetensors');
    // A single dropped file still opens as before.
    await dropFile(page, 'clean.safetensors', readFileSync(fixturePath('clean.safetensors')));
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    await expect(page.getByRole('combobox', { name: 'Model to show' })).toHaveCount(0);
    watch.expectClean();
  });

  test('a remote index of 163 shards: progress bar, bounded concurrency, one request per shard', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('remote163');
    await openApp(page);
    const url = indexUrl('slowshards', tag, SHARD_FIXTURES.clean.dir);
    await openUrl(page, url);
    await expect(page.getByRole('progressbar', { name: 'Shard progress' })).toBeVisible();
    await expect(page.getByTestId('shard-progress-text')).toContainText('of 163 shards');
    // The first shard header to arrive paints its rows while the other shards load.
    const preview = page.getByRole('region', { name: 'First tensors (still loading)' });
    await expect(preview).toContainText(
      /First \d+ tensors? of model-\d{5}-of-00163\.safetensors, while the other shards load/,
    );
    await expect(preview.getByRole('row').first()).toContainText(/\.weight/);
    await expect(page.getByRole('progressbar', { name: 'Shard progress' })).toBeVisible();

    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors.index.json', { timeout: 30_000 });
    await expect(preview).toHaveCount(0);
    expect(await statValue(page, 'stat-tensors')).toBe(CLEAN.tensors);
    await expect(page.getByTestId('verdict')).toContainText('16.00 bits/param');
    await expect(page.getByText('No problems found')).toBeVisible();
    await expect(page.getByTestId('integrity')).toContainText('in 164 requests');

    const log = await shardLog(`/${tag}/`);
    const shardRequests = log.filter((entry) => entry.path.endsWith('.safetensors'));
    expect(log.filter((entry) => entry.path.endsWith('.index.json'))).toHaveLength(1);
    expect(shardRequests).toHaveLength(163);
    expect(shardRequests.every((entry) => entry.status === 206)).toBe(true);
    const most = maxInFlight(shardRequests);
    // HTTP/1.1 on loopback: the browser's 6 per host (64 only when the answer says h2 or h3).
    expect(most).toBeLessThanOrEqual(HTTP1_SHARD_CONCURRENCY);
    expect(most).toBeGreaterThan(1);
    // The share link carries the index URL.
    await expect(page).toHaveURL(new RegExp(`url=${encodeURIComponent(url).replace(/[.?*+()]/g, '\\$&')}`));
    watch.expectClean();
  });

  test('loading the shards can be cancelled', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('cancel');
    await openApp(page);
    await openUrl(page, indexUrl('slowshards', tag, SHARD_FIXTURES.clean.dir));
    await expect(page.getByTestId('shard-progress-text')).toContainText('of 163 shards');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('alert')).toContainText('Loading cancelled');
    // A read the browser put on the wire just before the abort can reach a busy server after the alert; each such
    // read must be one the browser abandoned, and after it nothing more may arrive.
    const atAlert = (await shardLog(`/${tag}/`)).length;
    await page.waitForTimeout(300);
    const settled = await shardLog(`/${tag}/`);
    for (const late of settled.slice(atAlert)) {
      expect(late.closedAt, `${late.path} arrived after the cancel and was still open`).not.toBeNull();
      expect(late.abortedEarly, `${late.path} arrived after the cancel and was answered in full`).toBe(true);
    }
    await page.waitForTimeout(300);
    expect((await shardLog(`/${tag}/`)).length).toBe(settled.length);
    expect(settled.length).toBeLessThan(164);
    watch.expectClean();
  });

  test('a missing shard (404) is named, and the rest of the model still loads', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('missing');
    await openApp(page);
    await openUrl(page, indexUrl('shards', tag, SHARD_FIXTURES.missing.dir));
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors.index.json', { timeout: 30_000 });
    const missing = finding(page, 'missing-shard');
    await expect(missing).toContainText('model-00005-of-00163.safetensors');
    await expect(missing).toContainText('HTTP 404');
    await page.getByRole('tab', { name: 'Shards' }).click();
    await expect(page.getByTestId('shards-present')).toHaveText('162 of 163');
    await expect(page.locator('tr[data-shard="model-00005-of-00163.safetensors"]')).toContainText('missing');
    await expect(page.getByTestId('shards-bits-per-param')).toHaveText('—');
    const log = await shardLog(`/${tag}/`);
    expect(log.find((entry) => entry.path.includes('model-00005-of-00163'))?.status).toBe(404);

    // The report carries the shards, the index summary and the finding with its shard.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download report' }).click(),
    ]);
    const report = JSON.parse(readFileSync(await download.path(), 'utf8')) as {
      source: { kind: string; name: string };
      shards: Array<{ file: string; tensors: number; dataBytes: number; headerLength: number; present: boolean }>;
      index: { totalSize: number; weightMapEntries: number };
      shardTotals: { presentShards: number; bitsPerParameter: number | null };
      findings: Array<{ code: string; shard?: string }>;
    };
    expect(report.source).toEqual({ kind: 'url', name: 'model.safetensors.index.json', url: expect.any(String) });
    expect(report.shards).toHaveLength(163);
    expect(report.shards[4]).toMatchObject({ file: 'model-00005-of-00163.safetensors', present: false, tensors: 0 });
    expect(report.shards[0].tensors).toBeGreaterThan(0);
    expect(report.shards[0].headerLength).toBeGreaterThan(0);
    expect(report.index).toMatchObject({ totalSize: CLEAN.totalSize, weightMapEntries: CLEAN.weightMapEntries });
    expect(report.shardTotals).toMatchObject({ presentShards: 162, bitsPerParameter: null });
    expect(report.findings).toContainEqual(
      expect.objectContaining({ code: 'missing-shard', shard: 'model-00005-of-00163.safetensors' }),
    );
    watch.expectClean([EXPECTED_404]);
  });

  test('a stale total_size in the index', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, indexUrl('shards', tagged('stale'), SHARD_FIXTURES.staleTotal.dir));
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors.index.json', { timeout: 30_000 });
    const stale = finding(page, 'total-size-mismatch');
    await expect(stale).toContainText('1,000,000 bytes fewer than declared');
    await expect(stale).toContainText('Shard: model.safetensors.index.json');
    watch.expectClean();
  });

  test('a tensor in a different shard than the index says', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, indexUrl('shards', tagged('wrong'), SHARD_FIXTURES.wrongShard.dir));
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors.index.json', { timeout: 30_000 });
    const wrong = finding(page, 'wrong-shard');
    await expect(wrong).toContainText('Shard: model-00002-of-00163.safetensors');
    await expect(wrong).toContainText('(index: model-00001-of-00163.safetensors)');
    await wrong.getByRole('button', { name: /Show 1 tensor/ }).click();
    await expect(page.getByTestId('row-count')).toContainText('1 shown');
    const row = page.getByRole('grid', { name: 'Tensors' }).locator('[role="row"][aria-rowindex="2"]');
    await expect(row).toContainText('00002/00163');
    await expect(row.getByTitle('model-00002-of-00163.safetensors')).toBeVisible();
    watch.expectClean();
  });

  test('an unsafe shard name is reported and never requested', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('unsafe');
    await openApp(page);
    await openUrl(page, indexUrl('shards', tag, SHARD_FIXTURES.unsafe.dir));
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors.index.json', { timeout: 30_000 });
    const unsafe = finding(page, 'unsafe-shard-name');
    await expect(unsafe).toContainText(JSON.stringify(UNSAFE_SHARD_NAME));
    await expect(unsafe).toContainText('this app did not open it');
    const log = await shardLog(`/${tag}/`);
    expect(log.some((entry) => entry.path.includes('shards-clean') || entry.path.includes('00163-of-00163'))).toBe(
      false,
    );
    expect(log.filter((entry) => entry.path.endsWith('.safetensors'))).toHaveLength(162);
    watch.expectClean();
  });

  test('a repository on a fake Hub: listing, default pick, other files, share link', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const repoUrl = `${ORIGIN_A}/hub/api/models/${HUB_REPO.org}/${HUB_REPO.name}/tree/main`;
    await openUrl(page, repoUrl);

    // Nothing at the root, so the diffusers denoiser (transformer/, sharded with an index) opens first.
    await expect(page.getByTestId('file-name')).toHaveText('diffusion_pytorch_model.safetensors.index.json');
    await expect(page.getByTestId('shard-count')).toHaveText(/3 shards/);
    await expect(page.getByTestId('sidecars-read')).toContainText('transformer/config.json');
    const listing = (await shardLog(`/hub/api/models/${HUB_REPO.org}/${HUB_REPO.name}/`)).length;
    expect(listing).toBeGreaterThanOrEqual(2);

    const files = page.getByTestId('repo-files');
    await files.locator('summary').click();
    await expect(files).toContainText(`${HUB_REPO.org}/${HUB_REPO.name}`);
    const vaeRow = files.locator('tr[data-path="vae/diffusion_pytorch_model.safetensors"]');
    await expect(vaeRow).toBeVisible();
    await expect(files.locator('tr[data-path="text_encoder/model.safetensors"]')).toBeVisible();
    await vaeRow.getByRole('button', { name: 'Open' }).click();
    await expect(page.getByTestId('file-name')).toHaveText('diffusion_pytorch_model.safetensors');
    expect(await statValue(page, 'stat-tensors')).toBe(HUB_REPO.vae.length);
    await expect(page.getByRole('combobox', { name: 'Model to show' })).toHaveValue(
      'vae/diffusion_pytorch_model.safetensors',
    );
    await expect(page).toHaveURL(/model=vae%2Fdiffusion_pytorch_model\.safetensors/);

    // The share link restores the repository and the chosen file.
    await page.reload();
    await expect(page.getByTestId('file-name')).toHaveText('diffusion_pytorch_model.safetensors');
    expect(await statValue(page, 'stat-tensors')).toBe(HUB_REPO.vae.length);
    await page.goBack();
    await expect(page.getByTestId('file-name')).toHaveText('diffusion_pytorch_model.safetensors.index.json');
    watch.expectClean();
  });
});
