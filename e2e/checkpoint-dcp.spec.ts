/**
 * A PyTorch Distributed Checkpoint torch wrote (fixtures/torch/dcp, by scripts/dcp-fixtures.py with torch's own DCP
 * writer): the .metadata read as data into the table and the Checkpoint tab, with no safety warning for DCP's own
 * classes; "Read values" reads a tensor's chunks from the .distcp files beside it (a dropped folder, or over HTTP by
 * Range, only the chunks' archives) and shows torch's values; a .metadata alone says to open the whole folder.
 */
import { expect, test, type Page } from '@playwright/test';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR, fixturePath, openApp, ORIGIN_A, readValuesOf, serverLog, uniqueTag, watchPage } from './helpers';
import { formatValue, groupDigits } from '../src/core/number-format';
import { dcpAnswer } from '../src/testing/torch-fixtures';

const answer = dcpAnswer();
const embedding = answer.entries['tok_embeddings.weight'];
const embeddingValues = embedding.bytes ? [] : embedding.values;

async function expectEmbeddingValues(page: Page): Promise<void> {
  await expect(page.getByTestId('values-read')).toContainText(`All ${embeddingValues.length} values`);
  const stats = page.getByTestId('values-stats');
  await expect(stats.locator('[data-stat="min"]')).toHaveText(formatValue(Math.min(...embeddingValues)));
  await expect(stats.locator('[data-stat="max"]')).toHaveText(formatValue(Math.max(...embeddingValues)));
}

test.describe('PyTorch Distributed Checkpoint', () => {
  test('a dropped folder: tensors, files and chunks, DCP’s own classes only, values from both chunks', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath('torch/dcp'));
    await expect(page.getByTestId('verdict')).toContainText('PyTorch Distributed Checkpoint (.metadata)');
    // torch 1.13's DCP pickled each bytes entry as an io.BytesIO, which dcp.load imports (weights_only=False).
    await expect(page.getByTestId('integrity')).toContainText(
      "DCP's own metadata classes, but 2 bytes entries import outside torch’s allowlist",
    );
    await expect(page.getByText('11 tensors · 11 shown')).toBeVisible();
    // One model here: the .distcp files are the checkpoint's data, not models of their own.
    await expect(page.getByText(/models here; showing/)).toHaveCount(0);
    await readValuesOf(page, 'tok_embeddings.weight');
    await expectEmbeddingValues(page);
    const storage = page.getByTestId('tensor-storage');
    const chunks = embedding.bytes ? [] : embedding.chunks;
    for (const chunk of chunks) {
      const stored = answer.storage.find(
        (entry) => entry.fqn === 'tok_embeddings.weight' && entry.offsets?.join() === chunk.offsets.join(),
      );
      await expect(storage).toContainText(
        `at [${chunk.offsets.join(', ')}], size [${chunk.sizes.join(', ')}]: ${stored?.file}, bytes 0–${groupDigits(stored?.length ?? NaN)}`,
      );
    }
    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    await expect(page.getByTestId('safety-verdict')).toHaveText(
      "Unknown: 2 bytes entries import outside torch's allowlist, run by a full dcp.load",
    );
    const entries = page.getByTestId('dcp-bytes-entries');
    await expect(entries.getByRole('row', { name: /lr_scheduler/ })).toContainText('_io.BytesIO()');
    await expect(entries.getByRole('row', { name: /train_state/ })).toContainText('_io.BytesIO');
    const files = Object.keys(answer.files).filter((name) => name !== '.metadata');
    await expect(page.getByTestId('dcp-files')).toContainText(`${files.length} .distcp files hold 12 tensor chunks`);
    watch.expectClean();
  });

  test('tensor parallelism: a weight split in three column blocks reads as torch reads it', async ({ page }) => {
    const watch = watchPage(page);
    const tp = dcpAnswer('dcp-tp.json');
    const entry = tp.entries['layers.0.feed_forward.w2.weight'];
    const values = entry.bytes ? [] : entry.values;
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath('torch/dcp-tp'));
    await expect(page.getByText('3 tensors · 3 shown')).toBeVisible();
    await readValuesOf(page, 'layers.0.feed_forward.w2.weight');
    await expect(page.getByTestId('values-read')).toContainText(`All ${values.length} values`);
    const stats = page.getByTestId('values-stats');
    await expect(stats.locator('[data-stat="min"]')).toHaveText(formatValue(Math.min(...values)));
    await expect(stats.locator('[data-stat="max"]')).toHaveText(formatValue(Math.max(...values)));
    await expect(page.getByTestId('tensor-storage')).toContainText('at [0, 8], size [6, 2]');
    watch.expectClean();
  });

  test('over HTTP: the .metadata and its bytes entries, then only the two chunks of the tensor whose values are read', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const tag = uniqueTag('dcp');
    const atStart = await serverLog('/torch/dcp/');
    await openApp(page, `?v=1&url=${encodeURIComponent(`${ORIGIN_A}/range/torch/dcp/.metadata?t=${tag}`)}`);
    await expect(page.getByText('11 tensors · 11 shown')).toBeVisible();
    const before = await serverLog('/torch/dcp/');
    // The load reads the .metadata and, to judge them, the two bytes entries' archives: no chunk of a tensor.
    const loadReads = before.slice(atStart.length).map((entry) => entry.path.split('?')[0]);
    expect(new Set(loadReads)).toEqual(
      new Set(['.metadata', '__0_12.distcp', '__0_13.distcp'].map((file) => `/range/torch/dcp/${file}`)),
    );
    await readValuesOf(page, 'tok_embeddings.weight');
    await expectEmbeddingValues(page);
    const reads = (await serverLog('/torch/dcp/')).slice(before.length).map((entry) => entry.path.split('?')[0]);
    expect(new Set(reads)).toEqual(new Set(['/range/torch/dcp/__0_0.distcp', '/range/torch/dcp/__0_1.distcp']));
    watch.expectClean();
  });

  test('in a Hub repository: the .metadata opens, and a value read fetches its chunks from the same folder', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const repo = `dcp-${uniqueTag('repo')
      .replace(/[^\w-]/g, '')
      .slice(-12)}`;
    const folder = join(FIXTURES_DIR, 'hub', 'lens-e2e', repo, 'checkpoint', 'step-10');
    mkdirSync(folder, { recursive: true });
    for (const file of readdirSync(fixturePath('torch/dcp'))) {
      copyFileSync(join(fixturePath('torch/dcp'), file), join(folder, file));
    }
    await openApp(page);
    await page
      .getByRole('textbox', { name: 'URL of a model file' })
      .fill(`${ORIGIN_A}/hub/api/models/lens-e2e/${repo}/tree/main`);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.getByText('11 tensors · 11 shown')).toBeVisible();
    const before = await serverLog(repo);
    await readValuesOf(page, 'tok_embeddings.weight');
    await expectEmbeddingValues(page);
    const reads = (await serverLog(repo)).slice(before.length).map((entry) => entry.path.split('?')[0]);
    expect(new Set(reads)).toEqual(
      new Set(
        ['__0_0.distcp', '__0_1.distcp'].map((file) => `/hub/lens-e2e/${repo}/resolve/main/checkpoint/step-10/${file}`),
      ),
    );
    watch.expectClean();
  });

  test('the .metadata alone lists the tensors and says to open the folder for values', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath('torch/dcp/.metadata'));
    await expect(page.getByText('11 tensors · 11 shown')).toBeVisible();
    await expect(page.locator('[data-code="dcp-bytes-entries-unread"]')).toContainText(
      '2 bytes entries (lr_scheduler and train_state) could not be read',
    );
    await readValuesOf(page, 'norm.weight');
    await expect(page.getByTestId('values-panel')).toContainText(
      "is not open beside the .metadata: drop the checkpoint's whole folder",
    );
    watch.expectClean();
  });
});
