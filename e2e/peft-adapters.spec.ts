/**
 * Adapters PEFT saved (fixtures/peft-adapters/, scripts/peft-adapter-fixtures.py), dropped with their
 * adapter_config.json: the file is rebuilt from the header PEFT wrote (its values are not read here), and the
 * verdict and the Model tab say what PEFT says of it.
 */
import { expect, test } from '@playwright/test';
import { dropSavedFixture, openApp } from './helpers';

test('a PEFT IA³ adapter: named, no rank, alpha or scale, and what it learns instead; screenshots', async ({
  page,
}, testInfo) => {
  await openApp(page);
  await dropSavedFixture(page, 'peft-adapters', 'ia3');
  await expect(page.getByTestId('verdict-clauses')).toContainText('peft-ia3 adapter on 6 modules');
  await page.getByRole('tab', { name: 'Model' }).click();
  await expect(page.getByTestId('lora-method')).toHaveText(
    'IA³: one learned vector per module rescales its activations',
  );
  await expect(page.getByTestId('lora-rank')).toHaveText('none');
  await expect(page.getByTestId('lora-alpha')).toHaveCount(0);
  await expect(page.getByTestId('lora-modules')).toHaveText('6');
  await expect(page.getByText('Layers (base_model.model.model.layers)')).toBeVisible();
  await expect(page.getByTestId('lora-layers')).toHaveText('0–1 (2 layers)');
  for (const width of [1440, 800]) {
    await page.setViewportSize({ width, height: 900 });
    await page.getByTestId('lora-layers').scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath(`peft-ia3-${width}.png`) });
  }
});

test('a PEFT LoRA on gpt-oss packed experts: rank r, not r × experts, and the parameters it adapts', async ({
  page,
}) => {
  await openApp(page);
  await dropSavedFixture(page, 'peft-adapters', 'lora-target-parameters');
  await expect(page.getByTestId('verdict-clauses')).toContainText('peft adapter, rank 4 on 6 modules');
  await page.getByRole('tab', { name: 'Model' }).click();
  await expect(page.getByTestId('lora-rank')).toHaveText('4');
  await expect(page.getByTestId('lora-alpha')).toHaveText('8 (from adapter_config.json)');
  await expect(page.getByRole('region', { name: 'Adapter' })).toContainText(
    'experts.down_proj, experts.gate_up_proj, q_proj',
  );
  await expect(page.getByRole('complementary', { name: 'Findings' })).toContainText('No problems found');
});

test('a PEFT prompt tuning: its virtual tokens, no module adapted, no rank', async ({ page }) => {
  await openApp(page);
  await dropSavedFixture(page, 'peft-adapters', 'prompt-tuning');
  await expect(page.getByTestId('verdict-clauses')).toContainText('peft-prompt-tuning adapter, 8 virtual tokens');
  await page.getByRole('tab', { name: 'Model' }).click();
  await expect(page.getByTestId('lora-method')).toContainText('Prompt tuning: learned embeddings of virtual tokens');
  await expect(page.getByTestId('lora-virtual-tokens')).toHaveText('8');
  await expect(page.getByTestId('lora-rank')).toHaveText('none');
  await expect(page.getByRole('tab', { name: 'Memory' })).toHaveCount(0);
});
