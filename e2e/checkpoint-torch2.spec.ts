/**
 * Checkpoints torch 2.x wrote (fixtures/torch2, by scripts/torch2-fixtures.py): a float4_e2m1fn_x2 tensor listed
 * as F4 values and read as torch's bytes say, a state dict of sparse tensors listed part by part with the finding
 * that says how to convert them, and a Distributed Checkpoint two processes saved, read across both ranks' files.
 */
import { expect, test } from '@playwright/test';
import { fixturePath, openApp, openLocalFile, readValuesOf, watchPage } from './helpers';
import { formatValue } from '../src/core/number-format';
import { torch2Answer } from '../src/testing/torch-fixtures';

const answer = torch2Answer();

function finite(values: Array<number | null> | null): number[] {
  return (values ?? []).filter((value): value is number => value !== null);
}

test.describe('checkpoints torch 2.x saved', () => {
  test('FP4 pairs: listed as F4 values and read from their bytes', async ({ page }) => {
    const watch = watchPage(page);
    const fp4 = answer.files['dtypes.pt'].tensors.fp4;
    await openApp(page);
    await openLocalFile(page, 'torch2/dtypes.pt');
    await expect(page.getByText('10 tensors · 10 shown')).toBeVisible();
    await readValuesOf(page, 'fp4');
    await expect(page.getByTestId('values-read')).toContainText(`All ${fp4.values?.length} values`);
    const stats = page.getByTestId('values-stats');
    await expect(stats.locator('[data-stat="min"]')).toHaveText(formatValue(Math.min(...finite(fp4.values))));
    await expect(stats.locator('[data-stat="max"]')).toHaveText(formatValue(Math.max(...finite(fp4.values))));
    watch.expectClean();
  });

  test('a Distributed Checkpoint torchtitan saved against its transformers copy: paired, values equal', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const paired = Object.keys(answer.torchtitan.names).length;
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath('torch2/torchtitan'));
    await expect(page.getByTestId('file-name')).toHaveText('.metadata');
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-folder-input').setInputFiles(fixturePath('torch2/torchtitan-hf'));
    await expect(page.getByTestId('rule-gguf-names')).toContainText(
      `paired ${paired} tensors (0 of another shape) · only in A ${answer.torchtitan.optimizerTensors} · only in B 0`,
    );
    await page.getByRole('button', { name: 'Compare values' }).click();
    await expect(page.getByTestId('compare-values-changed')).toHaveText('0 changed');
    await expect(page.getByTestId('compare-values-result')).toContainText(`Compared ${paired} tensors`);
    watch.expectClean();
  });

  test('saved on a big-endian machine: said so, and values swapped as torch.load swaps them', async ({ page }) => {
    const watch = watchPage(page);
    const tensors = answer.files['big-endian.pt'].tensors;
    await openApp(page);
    await openLocalFile(page, 'torch2/big-endian.pt');
    await expect(page.locator('[data-code="checkpoint-big-endian"]')).toContainText('byteorder record says big');
    const stats = page.getByTestId('values-stats');
    for (const name of ['f32_transposed', 'bf16', 'i64', 'c64']) {
      const want = finite(tensors[name].values);
      await readValuesOf(page, name);
      await expect(page.getByTestId('values-read')).toContainText(`All ${want.length} values`);
      await expect(stats.locator('[data-stat="min"]')).toHaveText(formatValue(Math.min(...want)));
      await expect(stats.locator('[data-stat="max"]')).toHaveText(formatValue(Math.max(...want)));
      await expect(page.getByTestId('values-first')).toContainText('bytes (hex, swapped to little-endian)');
      await page.keyboard.press('Escape');
    }
    watch.expectClean();
  });

  test('sparse tensors: each part a row, a finding naming them, to_dense in the conversion', async ({ page }) => {
    const watch = watchPage(page);
    const sparse = answer.files['sparse.pt'];
    await openApp(page);
    await openLocalFile(page, 'torch2/sparse.pt');
    const finding = page.locator('[data-code="composite-tensors"]');
    await expect(finding).toContainText('3 tensors torch rebuilds from parts');
    await expect(finding).toContainText('adjacency (sparse CSR of size [4, 6]: adjacency.crow_indices');
    const values = sparse.composites['embedding.weight'].parts['embedding.weight.values'];
    await readValuesOf(page, 'embedding.weight.values');
    await expect(page.getByTestId('values-read')).toContainText(`All ${values.values?.length} values`);
    await expect(page.getByTestId('values-stats').locator('[data-stat="max"]')).toHaveText(
      formatValue(Math.max(...finite(values.values))),
    );
    await page.keyboard.press('Escape');
    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    await expect(page.getByTestId('convert-script')).toContainText('v.to_dense() if v.layout != torch.strided');
    watch.expectClean();
  });

  test('a Distributed Checkpoint two processes saved: values across both ranks’ files', async ({ page }) => {
    const watch = watchPage(page);
    const embedding = answer.dcp.tensors['model.tok_embeddings.weight'];
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath('torch2/dcp'));
    await expect(page.getByTestId('integrity')).toContainText(
      "only DCP's own metadata classes and plain bytes entries",
    );
    const count = Object.keys(answer.dcp.tensors).length;
    await expect(page.getByText(`${count} tensors · ${count} shown`)).toBeVisible();
    await readValuesOf(page, 'model.tok_embeddings.weight');
    await expect(page.getByTestId('values-read')).toContainText(`All ${embedding.values?.length} values`);
    const stats = page.getByTestId('values-stats');
    await expect(stats.locator('[data-stat="min"]')).toHaveText(formatValue(Math.min(...finite(embedding.values))));
    await expect(stats.locator('[data-stat="max"]')).toHaveText(formatValue(Math.max(...finite(embedding.values))));
    await expect(page.getByTestId('tensor-storage')).toContainText('__1_0.distcp');
    watch.expectClean();
  });

  test('a bytes entry that would run code: dangerous to load whole, its call shown as text', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath('torch2/dcp-hostile-bytes'));
    await expect(page.getByTestId('integrity')).toContainText(
      '✖ dangerous: a full dcp.load would run code from 1 bytes entry; its tensors alone load safely',
    );
    await expect(page.locator('[data-code="dcp-bytes-entry-dangerous"]')).toContainText('posix.system');
    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    await expect(page.getByTestId('safety-verdict')).toContainText('Dangerous: a full dcp.load would run code');
    const entries = page.getByTestId('dcp-bytes-entries');
    await expect(entries.getByRole('row', { name: /train_state/ })).toContainText("posix.system('echo pwned')");
    await expect(entries.getByRole('row', { name: /step/ })).toContainText('3');
    watch.expectClean();
  });
});
