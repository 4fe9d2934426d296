/**
 * PyTorch models sharded into .bin files (fixtures/torch/sharded/, written by real torch through
 * scripts/torch-fixtures.py): a local folder with pytorch_model.bin.index.json, the remote index URL, and a fake-Hub
 * repository that ships only .bin files. Each shard is read by the checkpoint reader: a few Range requests per shard.
 */
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { FIXTURES_DIR, fixturePath, openApp, ORIGIN_A, serverLog, statValue, uniqueTag, watchPage } from './helpers';

const SHARDS = ['pytorch_model-00001-of-00002.bin', 'pytorch_model-00002-of-00002.bin'];
const INDEX = 'pytorch_model.bin.index.json';
const TENSORS = 5;
const HUB_ORG = 'lens-e2e';
const BIN_ONLY_REPO = 'bin-shards-only';
const BOTH_REPO = 'bin-and-safetensors';

test.beforeAll(() => {
  for (const repo of [BIN_ONLY_REPO, BOTH_REPO]) {
    const dir = join(FIXTURES_DIR, 'hub', HUB_ORG, repo);
    mkdirSync(dir, { recursive: true });
    for (const name of [...SHARDS, INDEX]) {
      copyFileSync(fixturePath(`torch/sharded/${name}`), join(dir, name));
    }
  }
  // The same weights as one safetensors file next to the .bin shards, as many Hub repos ship both.
  copyFileSync(
    fixturePath('torch/model.safetensors'),
    join(FIXTURES_DIR, 'hub', HUB_ORG, BOTH_REPO, 'model.safetensors'),
  );
});

async function openUrl(page: Page, url: string): Promise<void> {
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}

async function expectBinShardModel(page: Page): Promise<void> {
  await expect(page.getByTestId('file-name')).toHaveText(INDEX);
  await expect(page.getByTestId('shard-count')).toHaveText(/2 shards/);
  expect(await statValue(page, 'stat-tensors')).toBe(TENSORS);
  await expect(page.getByTestId('integrity')).toContainText(
    'the reference loader would accept it (torch.load with weights_only=True)',
  );
  const table = page.getByRole('grid', { name: 'Tensors' });
  await expect(table.getByRole('row').filter({ hasText: 'lm_head.weight' })).toContainText('00002/00002');
}

/** Every shard was read with a few bounded Range requests (never a suffix range), and the UI counts what was sent. */
async function expectHeaderOnlyShardReads(page: Page, folder: string): Promise<void> {
  // Shard URLs are resolved against the index's folder without its query, so the log is matched by folder.
  const log = await serverLog(folder);
  for (const shard of SHARDS) {
    const reads = log.filter((entry) => entry.path.endsWith(shard));
    expect(reads.length, shard).toBeGreaterThan(0);
    expect(reads.length, shard).toBeLessThanOrEqual(3);
    for (const entry of reads) {
      expect(entry.range).toMatch(/^bytes=\d+-\d+$/);
    }
  }
  // The second shard is 128 KiB of storage (lm_head.weight) plus ~1.6 KB of zip records and data.pkl. The reader
  // asks for its head and its zip tail (a speculative 64 KiB that ends inside the storage), never the storage as
  // such: well under the file arrives.
  const second = log.filter((entry) => entry.path.endsWith(SHARDS[1]));
  const secondSize = statSync(fixturePath(`torch/sharded/${SHARDS[1]}`)).size;
  expect(second.reduce((total, entry) => total + entry.bytesSent, 0)).toBeLessThan(secondSize * 0.6);
  const sent = log.reduce((total, entry) => total + entry.bytesSent, 0);
  expect(await statValue(page, 'stat-bytes-read')).toBe(sent);
}

test.describe('sharded PyTorch .bin models', () => {
  test('a local folder of .bin shards with pytorch_model.bin.index.json becomes one model', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath('torch/sharded'));
    await expectBinShardModel(page);
    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    await expect(page.getByTestId('safety-verdict')).toHaveText('Safe: only tensors and plain containers');
    watch.expectClean();
  });

  test('a remote pytorch_model.bin.index.json opens the sharded model, a few Range requests per shard', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    const tag = `t=${uniqueTag('bin-index')}`;
    await openUrl(page, `${ORIGIN_A}/range/torch/sharded/${INDEX}?${tag}`);
    await expectBinShardModel(page);
    await expectHeaderOnlyShardReads(page, '/range/torch/sharded/');
    expect((await serverLog(tag)).length).toBe(1);
    watch.expectClean();
  });

  test('a Hub repository with only .bin shards opens like a safetensors repository', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/api/models/${HUB_ORG}/${BIN_ONLY_REPO}/tree/main`);
    await expectBinShardModel(page);
    const shardReads = await serverLog(`/hub/${HUB_ORG}/${BIN_ONLY_REPO}/resolve/main/pytorch_model-`);
    expect(shardReads.length).toBeGreaterThanOrEqual(2);
    expect(shardReads.length).toBeLessThanOrEqual(6);
    watch.expectClean();
  });

  test('a repository with both opens the safetensors model and offers the .bin shards', async ({ page }) => {
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/api/models/${HUB_ORG}/${BOTH_REPO}/tree/main`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await expect(page.getByTestId('repo-files')).toContainText(INDEX);
  });
});
