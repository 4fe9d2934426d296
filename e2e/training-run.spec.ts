/**
 * A training run's trainer_state.json beside its model, as transformers' Trainer wrote it in real runs
 * (fixtures/torch2/trainer-runs, by scripts/trainer-state-fixtures.py): a dropped checkpoint folder opens with a
 * Training tab (the step against the plan, the best checkpoint, the loss, learning rate and gradient norm drawn
 * over the steps) and a note that this checkpoint is not the run's best; a diverged run's NaN, which Python writes
 * as a bare word, is read and named a warning; in a repository the file is read only when the Training tab opens.
 */
import { expect, test } from '@playwright/test';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR, fixturePath, openApp, ORIGIN_A, serverLog, uniqueTag, watchPage } from './helpers';
import { formatValue } from '../src/core/number-format';
import { expectedTrainerState } from '../src/testing/trainer-state-fixtures';

const CHECKPOINT = 'torch2/trainer-runs/overfit/checkpoint-12';

test.describe("a training run's trainer_state.json", () => {
  test('a dropped checkpoint folder: the Training tab, its charts, and the best checkpoint named', async ({ page }) => {
    const watch = watchPage(page);
    const expected = expectedTrainerState('overfit/checkpoint-12');
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath(CHECKPOINT));
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await expect(page.getByTestId('sidecars-read')).toContainText(
      "checkpoint-12/trainer_state.json: the run's steps, best checkpoint and logged loss in the Training tab",
    );
    await expect(page.locator('[data-code="training-checkpoint-not-best"]')).toContainText(
      `${expected.bestModelCheckpoint} had eval_loss ${formatValue(expected.bestMetric)}`,
    );

    await page.getByRole('tab', { name: 'Training' }).click();
    const run = page.getByTestId('training-run');
    await expect(run.getByTestId('training-step')).toHaveText('12 of 12 (100%)');
    await expect(run.getByTestId('training-best')).toHaveText(
      `${expected.bestModelCheckpoint} (step 4): eval_loss ${formatValue(expected.bestMetric)}, lower is better`,
    );
    await expect(run.getByTestId('training-entries')).toHaveText(String(expected.entries));
    // The run's TrainingArguments, from training_args.bin read as data.
    const settings = run.getByTestId('training-settings');
    await expect(settings.locator('tr', { hasText: 'lr_scheduler_type' })).toContainText('linear');
    await expect(settings.locator('tr', { hasText: 'learning_rate' })).toContainText('0.03');
    // Three charts (loss with eval loss, learning rate, gradient norm), each drawn: loss and eval loss as two lines.
    const charts = run.getByTestId('training-chart');
    await expect(charts).toHaveCount(3);
    await expect(charts.first().locator('.recharts-line-curve')).toHaveCount(2);
    await expect(charts.nth(2).locator('.recharts-line-curve')).toHaveCount(1);
    const lossRow = run.getByTestId('training-series').locator('tbody tr').first();
    const [lastStep, lastLoss] = expected.losses[expected.losses.length - 1];
    await expect(lossRow).toContainText(`${formatValue(lastLoss as number)} @ ${lastStep}`);
    watch.expectClean();
  });

  test("a diverged run's NaN gradient norms: a warning, and the values not drawn said so", async ({ page }) => {
    const watch = watchPage(page);
    const expected = expectedTrainerState('diverged');
    const nanSteps = expected.gradNorms.filter(([, value]) => value === 'NaN').map(([step]) => step);
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles([
        fixturePath(`${CHECKPOINT}/model.safetensors`),
        fixturePath('torch2/trainer-runs/diverged/trainer_state.json'),
      ]);
    await expect(page.locator('[data-code="training-diverged"]')).toContainText(
      `grad_norm NaN from step ${nanSteps[0]} (${nanSteps.length} logged values of ${expected.gradNorms.length})`,
    );
    await page.getByRole('tab', { name: 'Training' }).click();
    await expect(page.getByText(`grad_norm: ${nanSteps.length} values NaN or infinite, not drawn`)).toBeVisible();
    // Each chart spans the whole log and shades where the run had diverged.
    await expect(page.getByTestId('training-chart').locator('.recharts-reference-area')).toHaveCount(3);
    await expect(page.getByTestId('training-when-saved')).toHaveText('training had ended (max_steps reached)');
    const gradRow = page.getByTestId('training-series').locator('tr', { hasText: 'grad_norm' });
    await expect(gradRow.locator('td').last()).toHaveText(String(nanSteps.length));
    watch.expectClean();
  });

  test('compared with another run: both runs side by side, the diverged one said', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath(CHECKPOINT));
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page
      .getByTestId('compare-file-input')
      .setInputFiles([
        fixturePath(`${CHECKPOINT}/model.safetensors`),
        fixturePath('torch2/trainer-runs/diverged/trainer_state.json'),
      ]);
    const card = page.getByTestId('compare-training-runs');
    const cells = (row: string) =>
      card
        .locator('tbody tr')
        .filter({ has: page.getByRole('rowheader', { name: row, exact: true }) })
        .locator('td');
    await expect(cells('diverged')).toHaveText(['no', 'NaN or Inf from step 3']);
    await expect(cells('step')).toHaveText(['12 of 12', '8 of 8']);
    // The two runs part at their second step: not called one run's checkpoints.
    await expect(page.getByTestId('compare-training-same-run')).toHaveCount(0);
    watch.expectClean();
  });

  test('in a repository: not read by the load, read by one request when the Training tab opens', async ({ page }) => {
    const watch = watchPage(page);
    const repo = `train-${uniqueTag('repo')
      .replace(/[^\w-]/g, '')
      .slice(-12)}`;
    const folder = join(FIXTURES_DIR, 'hub', 'lens-e2e', repo, 'checkpoint-12');
    mkdirSync(folder, { recursive: true });
    for (const file of ['model.safetensors', 'config.json', 'trainer_state.json']) {
      copyFileSync(fixturePath(`${CHECKPOINT}/${file}`), join(folder, file));
    }
    await openApp(page);
    await page
      .getByRole('textbox', { name: 'URL of a model file' })
      .fill(`${ORIGIN_A}/hub/api/models/lens-e2e/${repo}/tree/main`);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    const stateReads = async () => (await serverLog(repo)).filter((entry) => entry.path.includes('trainer_state'));
    await expect(page.getByRole('tab', { name: 'Training' })).toBeVisible();
    expect(await stateReads()).toEqual([]);

    await page.getByRole('tab', { name: 'Training' }).click();
    await expect(page.getByTestId('training-step')).toHaveText('12 of 12 (100%)');
    await expect(page.locator('[data-code="training-checkpoint-not-best"]')).toBeVisible();
    expect((await stateReads()).map((entry) => entry.path.split('?')[0])).toEqual([
      `/hub/lens-e2e/${repo}/resolve/main/checkpoint-12/trainer_state.json`,
    ]);
    watch.expectClean();
  });
});
