/**
 * A training checkpoint's folder as transformers' Trainer writes it (fixtures/torch2/optimizers/trainer, by
 * scripts/optimizer-fixtures.py): the model opens first, the optimizer's state is named for what it is (AdamW, the
 * parameters it trains, its step) and counted apart from any model, the random generator's state is no model, and
 * a checkpoint's own scalars are shown as values of their own types.
 */
import { expect, test } from '@playwright/test';
import { fixturePath, openApp, watchPage } from './helpers';
import { groupDigits } from '../src/core/number-format';

const TRAINER = 'torch2/optimizers/trainer';

test.describe("a Trainer checkpoint's folder", () => {
  test('the model opens first; the optimizer state says AdamW, its parameters and its step', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath(TRAINER));
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await expect(page.getByText('1 model and 4 training-state files here; showing')).toBeVisible();
    const switcher = page.getByTestId('source-switcher');
    await expect(switcher.locator('option', { hasText: 'optimizer.pt' })).toHaveText(/· optimizer state$/);

    const optimizerOption = (await switcher.locator('option', { hasText: 'optimizer.pt' }).textContent()) ?? '';
    await switcher.selectOption({ label: optimizerOption });
    await expect(page.getByTestId('file-name')).toHaveText('optimizer.pt');
    await expect(page.getByTestId('verdict-params')).toContainText("(an optimizer's state, no model weights found)");
    // Bits per parameter of a file with no parameters would be bits per optimizer moment: not given.
    await expect(page.getByTestId('verdict')).not.toContainText('bits/param');
    await expect(page.getByText("An optimizer's state, not model weights")).toBeVisible();
    // The step is the one tensor read past the pickle: 4 bytes, said in the status line.
    await expect(page.getByText(/to load \+ 1 step counter 4 B/)).toBeVisible();

    await page.getByRole('tab', { name: 'Checkpoint' }).click();
    const card = page.getByTestId('optimizer-state');
    await expect(card.getByTestId('optimizer-algorithm')).toContainText('AdamW');
    await expect(card.getByTestId('optimizer-parameters')).toContainText('16');
    await expect(card.getByTestId('optimizer-trained')).toContainText(`${groupDigits(4592)} values`);
    await expect(card.getByTestId('optimizer-step')).toContainText('2');
    await expect(card.getByTestId('optimizer-bytes')).toContainText('8.0 bytes per trained value');
    await expect(card.getByTestId('optimizer-groups').locator('tbody tr')).toHaveCount(2);
    await expect(card.getByTestId('optimizer-groups')).toContainText('(0.9, 0.999)');

    await page.getByRole('tab', { name: /^Metadata/ }).click();
    await expect(page.getByText("The checkpoint's values that are not tensors")).toBeVisible();
    await expect(page.getByText('param_groups.0.weight_decay', { exact: true })).toBeVisible();
    await expect(page.getByText(/not a string/)).toHaveCount(0);
    watch.expectClean();
  });

  test("the random generator's state is no model: no parameter count, its section named", async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles(fixturePath(`${TRAINER}/rng_state.pth`));
    await expect(page.getByTestId('verdict-params')).toContainText(
      "(a random generator's state, no model weights found)",
    );
    // torch's generator state (bytes) and NumPy's (its MT19937 key, 624 uint32): each a generator's section.
    const sections = page.getByTestId('checkpoint-section-rng');
    await expect(sections).toHaveCount(2);
    await expect(sections.filter({ hasText: 'cpu (rng)' })).toContainText('cpu (rng) 1 tensor');
    await expect(sections.filter({ hasText: 'numpy (rng)' })).toContainText('numpy (rng) 1 tensor, 624 elements');
    watch.expectClean();
  });
});
