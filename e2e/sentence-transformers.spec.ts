/**
 * A sentence-transformers folder dropped whole, as the library saved it (fixtures/sentence-transformers): the verdict
 * says what one input becomes, and the Model tab lists the modules an input goes through, against what the library
 * itself says of the folder (`<case>.expected.json`); screenshots at 1440 and 800 px.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openApp, watchPage } from './helpers';

const FIXTURES = join(process.cwd(), 'fixtures', 'sentence-transformers');

function expected(name: string): { outputWidth: number; maxSeqLength: number } {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), 'utf8')) as {
    outputWidth: number;
    maxSeqLength: number;
  };
}

test.describe('sentence-transformers folders', () => {
  test('mean pooling, a Dense layer and Normalize: what one input becomes, module by module', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(join(FIXTURES, 'mean-dense-normalize'));
    const { outputWidth, maxSeqLength } = expected('mean-dense-normalize');
    await expect(page.getByTestId('verdict-clauses')).toContainText(
      `Sentence embeddings: ${outputWidth} numbers, unit length`,
    );
    // The folder's files are read together and said to be for the modules, not for the layer layout.
    await expect(page.getByTestId('sidecars-read-sentence')).toHaveText(
      /^Also read mean-dense-normalize\/modules\.json, .*mean-dense-normalize\/1_Pooling\/config\.json, mean-dense-normalize\/2_Dense\/config\.json, mean-dense-normalize\/3_Normalize\/config\.json: the sentence-transformers modules the Model tab lists\.\s*$/,
    );
    await expect(page.getByTestId('sidecars-read')).not.toContainText('modules.json: its layer');
    await page.getByRole('tab', { name: 'Model' }).click();
    const card = page.getByRole('region', { name: 'sentence-transformers' });
    await expect(card.getByTestId('sentence-output')).toHaveText(`${outputWidth} numbers, unit length`);
    await expect(card.getByTestId('sentence-max-length')).toContainText(`${maxSeqLength} tokens`);
    await expect(card.getByTestId('sentence-prompts')).toContainText(
      'query: “query: ” (default, added to every input)',
    );
    await expect(card.getByTestId('sentence-modules').getByRole('listitem')).toHaveText([
      'Transformer — bert: one vector per token of 16 numbers',
      'Pooling 1_Pooling/ — the mean over tokens',
      'Dense 2_Dense/ — 16 → 8, Tanh',
      'Normalize 3_Normalize/ — scaled to unit length',
    ]);
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: testInfo.outputPath(`sentence-model-${width}.png`) });
    }
    watch.expectClean();
  });

  test('a cross-encoder gives a score per pair; a sparse encoder a weight per vocabulary entry', async ({ page }) => {
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(join(FIXTURES, 'cross-encoder'));
    await expect(page.getByTestId('verdict-clauses')).toContainText(
      `Cross-encoder (scores a pair of inputs): ${expected('cross-encoder').outputWidth} score per pair`,
    );
    await page.getByTestId('folder-input').first().setInputFiles(join(FIXTURES, 'sparse-encoder'));
    await expect(page.getByTestId('verdict-clauses')).toContainText(
      `Sparse embeddings (SPLADE): sparse: a weight per vocabulary entry (${expected('sparse-encoder').outputWidth})`,
    );
  });
});
