import { expect, test } from '@playwright/test';
import { comfyFluxTensors } from '../src/testing/fixture-manifest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSafetensors, layoutTensors } from '../src/testing/build-safetensors';
import { compareBaseTensors } from '../src/testing/compare-pairs';
import {
  comfyWanLoraFixture,
  kohyaSd15Fixture,
  kohyaSd15LayeredModules,
  peftDoraStateDictFixture,
  peftGpt2Fixture,
  peftWrappedModel,
  xlabsFluxLoraFixture,
} from '../src/testing/models/lora';
import { FIXTURES_DIR, headerLengthOf, openApp, openLocalFile, ORIGIN_A, serverLog, watchPage } from './helpers';

const FLUX = 'flux1-dev-int8cr.safetensors';
const { tensors } = comfyFluxTensors();
const CONFIG_LAYERS = tensors.filter((t) => t.name.endsWith('.comfy_quant')).length;

test.describe('model insights', () => {
  test('a ComfyUI int8 file: verdict, per-layer configs, and the lying file name', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, FLUX);
    await expect(page.getByTestId('verdict-clauses')).toContainText('DiT');
    await expect(page.getByTestId('verdict-clauses')).toContainText(
      `int8_tensorwise) on ${CONFIG_LAYERS} quantized matrices`,
    );
    await expect(page.locator('[data-code="quant-name-claim-mismatch"]')).toContainText('int8cr');

    await page.getByRole('tab', { name: 'Quantization' }).click();
    const configs = page.getByRole('table', { name: 'Per-layer quantization configs' });
    await expect(configs.getByRole('row').nth(1)).toContainText('int8_tensorwise');
    await expect(configs.getByRole('row').nth(1)).toContainText(String(CONFIG_LAYERS));

    await page.getByRole('tab', { name: 'Modules' }).click();
    await page
      .getByRole('tree', { name: 'Module tree' })
      .getByRole('button', { name: 'single_blocks', exact: true })
      .click();
    await expect(page.getByRole('tab', { name: 'Tensors' })).toHaveAttribute('aria-selected', 'true');
    const singleBlockTensors = tensors.filter((t) => t.name.startsWith('single_blocks.')).length;
    await expect(page.getByTestId('row-count')).toContainText(`${singleBlockTensors} shown`);
    watch.expectClean();
  });

  test('remote: the comfy_quant config bytes come from exactly one extra Range request', async ({ page }) => {
    const watch = watchPage(page);
    const tag = `t=insights-${Date.now()}`;
    await openApp(page);
    await page.getByRole('textbox', { name: 'URL of a model file' }).fill(`${ORIGIN_A}/range/${FLUX}?${tag}`);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.locator('[data-code="quant-name-claim-mismatch"]')).toBeVisible();
    await expect(page.getByTestId('verdict-clauses')).toContainText(
      `int8_tensorwise) on ${CONFIG_LAYERS} quantized matrices`,
    );

    const response = await fetch(`${ORIGIN_A}/__log?origin=A`);
    const body = (await response.json()) as { entries?: Array<{ path: string; range: string; method: string }> };
    const log = (body.entries ?? []).filter((entry) => entry.path.includes(tag) && entry.method === 'GET');
    expect(log).toHaveLength(2);
    // The second request spans exactly the config tensors at the end of the data region.
    const dataStart = 8 + headerLengthOf(FLUX);
    const configEntries = layoutTensors(tensors).entries.filter((entry) => entry.name.endsWith('.comfy_quant'));
    const first = dataStart + Math.min(...configEntries.map((entry) => entry.data_offsets[0]));
    const last = dataStart + Math.max(...configEntries.map((entry) => entry.data_offsets[1])) - 1;
    expect(log[1].range).toBe(`bytes=${first}-${last}`);
    await expect(page.getByTestId('integrity')).toContainText('in 2 requests');
    watch.expectClean();
  });

  test('a PEFT adapter by Hub URL: adapter_config.json beside it is read when the Model tab opens', async ({
    page,
  }) => {
    const watch = watchPage(page);
    // A fake-Hub repository only this test reads, so the server log counts are its own.
    const dir = join(FIXTURES_DIR, 'hub', 'lens-e2e', 'insights-peft');
    mkdirSync(dir, { recursive: true });
    const fixture = peftGpt2Fixture(2);
    writeFileSync(
      join(dir, 'adapter_model.safetensors'),
      buildSafetensors(fixture.specs, { metadata: fixture.metadata }),
    );
    writeFileSync(
      join(dir, 'adapter_config.json'),
      JSON.stringify({ ...(fixture.sidecars?.adapterConfig as object), lora_alpha: 32 }),
    );
    await openApp(page);
    await page
      .getByRole('textbox', { name: 'URL of a model file' })
      .fill(`${ORIGIN_A}/hub/lens-e2e/insights-peft/resolve/main/adapter_model.safetensors`);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.getByTestId('sidecars-on-demand')).toContainText('adapter_config.json beside the file');
    const configGets = async () =>
      (await serverLog('/hub/lens-e2e/insights-peft/resolve/main/adapter_config.json')).filter(
        (entry) => entry.method === 'GET',
      );
    expect(await configGets()).toHaveLength(0);
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByTestId('lora-alpha')).toContainText('32 (from adapter_config.json)');
    await expect(page.getByTestId('sidecars-read')).toContainText('adapter_config.json');
    expect(await configGets()).toHaveLength(1);
    watch.expectClean();
  });

  test('adapter keys as tools write them: ComfyUI and XLabs names, a kept PEFT adapter name, a PeftModel saved whole', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const dir = join(FIXTURES_DIR, 'adapter-spellings');
    mkdirSync(dir, { recursive: true });
    const wan = comfyWanLoraFixture(2, 4, 2);
    writeFileSync(
      join(dir, 'wan_lora_comfy.safetensors'),
      buildSafetensors(wan.specs, { tensorData: wan.tensorData, metadata: null }),
    );
    const dora = peftDoraStateDictFixture();
    writeFileSync(join(dir, 'dora_state_dict.safetensors'), buildSafetensors(dora.specs, { metadata: dora.metadata }));
    const wrapped = peftWrappedModel(compareBaseTensors(), /\.(?:q_proj|v_proj)$/, 4);
    writeFileSync(join(dir, 'peft_model_state_dict.safetensors'), buildSafetensors(wrapped));
    writeFileSync(join(dir, 'xlabs_flux_lora.safetensors'), buildSafetensors(xlabsFluxLoraFixture(2, 1, 4).specs));

    await openApp(page);
    await openLocalFile(page, 'adapter-spellings/wan_lora_comfy.safetensors');
    await expect(page.getByTestId('verdict-clauses')).toContainText('adapter, rank 4 on 20 modules');
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByTestId('lora-naming')).toHaveText('ComfyUI (diffusion_model.…)');
    // The .alpha scalars were read from the file: 2 over rank 4.
    await expect(page.getByTestId('lora-alpha')).toContainText('2 (from tensors)');
    // Its up factors were written as zeros, as a trainer starts them: the scan says the adapter changes nothing.
    await page.getByRole('button', { name: 'Scan all values' }).click();
    await expect(page.getByTestId('scan-zero-up')).toContainText(
      'Every LoRA up factor is all zeros (20 modules): this adapter changes nothing.',
    );

    await openLocalFile(page, 'adapter-spellings/xlabs_flux_lora.safetensors');
    await expect(page.getByTestId('verdict-clauses')).toContainText('xlabs adapter, rank 4 on 10 modules');
    await expect(page.getByTestId('lora-naming')).toHaveText('XLabs (processor.qkv_lora1 …)');

    await openLocalFile(page, 'adapter-spellings/dora_state_dict.safetensors');
    await expect(page.locator('[data-code="lora-adapter-name-in-keys"]')).toContainText("adapter name 'default'");
    await expect(page.getByTestId('verdict-clauses')).toContainText('peft-dora adapter, rank 16');

    await openLocalFile(page, 'adapter-spellings/peft_model_state_dict.safetensors');
    const unmerged = page.locator('[data-code="lora-unmerged"]');
    await expect(unmerged).toContainText('carry LoRA factors (rank 4) beside base weights');
    await expect(unmerged).toContainText('merge_and_unload()');
    watch.expectClean();
  });

  test("a kohya LoRA's Modules tab: its underscore paths as levels, a node filtering the table", async ({ page }) => {
    const watch = watchPage(page);
    const dir = join(FIXTURES_DIR, 'kohya-modules');
    mkdirSync(dir, { recursive: true });
    const kohya = kohyaSd15Fixture(8, 4, kohyaSd15LayeredModules());
    writeFileSync(
      join(dir, 'sd15_style.safetensors'),
      buildSafetensors(kohya.specs, { tensorData: kohya.tensorData, metadata: kohya.metadata }),
    );
    await openApp(page);
    await openLocalFile(page, 'kohya-modules/sd15_style.safetensors');
    await page.getByRole('tab', { name: 'Modules' }).click();
    const tree = page.getByRole('tree', { name: 'Module tree' });
    // Two top-level modules (not one per LoRA module), the encoder's twelve identical layers folded into one run.
    await expect(tree.getByRole('treeitem', { level: 1 })).toHaveCount(2);
    await expect(tree.getByRole('treeitem', { level: 1 }).first()).toContainText('lora_te');
    const run = tree.getByRole('treeitem').filter({ hasText: '0–11' });
    await expect(run).toContainText('×12');
    await run.getByRole('button', { name: '0–11', exact: true }).click();
    await expect(page.getByRole('tab', { name: 'Tensors' })).toHaveAttribute('aria-selected', 'true');
    // 12 layers × 6 projections × (alpha, down, up), all of them and only they.
    await expect(page.getByTestId('row-count')).toContainText('216 shown');
    watch.expectClean();
  });
});
