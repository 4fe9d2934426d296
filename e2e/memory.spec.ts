/**
 * The Memory tab and the report's memory section, for each place config.json comes from: a dropped folder of
 * shards, a single file dropped with its config.json, a repository on the fake Hub (config fetched once), a Hub
 * file URL and a plain server's URL (one extra request beside the file), a file with no config at all (labelled
 * inferred), and Mistral's consolidated.safetensors with the params.json it ships instead. Along the way: deployable GPU layouts, the warning past the model's maximum context, and inline
 * validation of the number boxes.
 */
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSafetensors } from '../src/testing/build-safetensors';
import { TINY_LLAMA_CONFIG, tinyLlamaTensors } from '../src/testing/fixture-manifest';
import { SHARD_FIXTURES } from '../src/testing/shard-fixtures';
import {
  TINY_NATIVE_KV_BYTES_PER_TOKEN,
  TINY_NATIVE_PARAMS,
  tinyMistralNativeTensors,
} from '../src/testing/models/mistral-native';
import { groupDigits as g } from '../src/core/number-format';
import { downloadReport, fixturePath, FIXTURES_DIR, openApp, ORIGIN_A, serverLog, watchPage } from './helpers';

const GiB = 2 ** 30;
/** The stated runtime overhead every total includes (core/analysis/memory/estimate.ts). */
const OVERHEAD = 2 * GiB;

/** 2 layers × 2 (K and V) × 1 KV head × 16 head dim × 2 B. */
const TINY_KV_PER_TOKEN = 2 * 2 * 1 * 16 * 2;
const TINY_MODEL = Buffer.from(buildSafetensors(tinyLlamaTensors(2, 64, 172, 256), { metadata: { format: 'pt' } }));
/** The same size of model as Mistral's reference code writes it (consolidated.safetensors, params.json beside). */
const NATIVE_MODEL = Buffer.from(buildSafetensors(tinyMistralNativeTensors()));

/** Fake-Hub repositories only this spec reads, so the server log counts are this spec's own. */
const HUB_ORG = 'lens-e2e';
const REPO_FOR_LISTING = 'memory-repo';
const REPO_FOR_FILE_URL = 'memory-file';
const REPO_FOR_REPORT = 'memory-report';
/** A Hub-shaped folder with the model and no config.json. */
const REPO_WITHOUT_CONFIG = 'memory-no-config';
/** A plain folder served by /range/ (not Hub-shaped) with the model and its config.json. */
const OFF_HUB_DIR = 'memory-off-hub';

interface MemoryReport {
  tensors: { bytes: number };
  memory: {
    weightsBytes: number;
    kvBytesPerToken: number;
    cacheDtype: string;
    contexts: Array<{ tokens: number; batch: number; kvBytes: number; totalBytes: number }>;
    config: string;
    activeParams?: number;
  };
}

test.beforeAll(() => {
  for (const repo of [REPO_FOR_LISTING, REPO_FOR_FILE_URL, REPO_FOR_REPORT, REPO_WITHOUT_CONFIG]) {
    const dir = join(FIXTURES_DIR, 'hub', HUB_ORG, repo);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'model.safetensors'), TINY_MODEL);
    if (repo !== REPO_WITHOUT_CONFIG) {
      writeFileSync(join(dir, 'config.json'), `${JSON.stringify(TINY_LLAMA_CONFIG, null, 2)}\n`);
    }
  }
  const offHub = join(FIXTURES_DIR, OFF_HUB_DIR);
  mkdirSync(offHub, { recursive: true });
  writeFileSync(join(offHub, 'model.safetensors'), TINY_MODEL);
  writeFileSync(join(offHub, 'config.json'), JSON.stringify(TINY_LLAMA_CONFIG));
});

/** Drops a model file and its config together, as a user picks both. */
async function dropWithConfig(
  page: Page,
  model: { name: string; bytes: Buffer },
  config: { name: string; value: unknown },
): Promise<void> {
  await page
    .getByTestId('file-input')
    .first()
    .setInputFiles([
      { name: model.name, mimeType: 'application/octet-stream', buffer: model.bytes },
      { name: config.name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(config.value)) },
    ]);
}

async function openMemoryTab(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Memory' }).click();
  await expect(page.getByRole('region', { name: 'Memory' })).toBeVisible();
}

async function openUrl(page: Page, url: string): Promise<void> {
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}

/** GET requests the fake Hub saw for `repo`'s config.json. */
async function configGets(repo: string): Promise<Array<{ method: string; status: number | null }>> {
  return (await serverLog(`/hub/${HUB_ORG}/${repo}/resolve/main/config.json`)).filter(
    (entry) => entry.method === 'GET',
  );
}

async function expectTinyFromConfig(page: Page): Promise<void> {
  await openMemoryTab(page);
  await expect(page.getByTestId('memory-config')).toContainText('config.json');
  // Defaults to the model's max_position_embeddings: 2048 tokens × 2 layers × 32 elements × 2 B.
  await expect(page.getByTestId('memory-tokens')).toHaveValue('2048');
  await expect(page.getByTestId('memory-kv-line')).toContainText(
    `1 × ${g(2048)} tokens × 2 layers × 32 elements × 2 B (bf16)`,
  );
}

test.describe('memory estimate', () => {
  test('a folder of 163 shards with config.json: Llama-3.1-70B KV from the config; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath(SHARD_FIXTURES.clean.dir));
    await expect(page.getByTestId('shard-count')).toHaveText(/163 shards/);
    await openMemoryTab(page);
    await expect(page.getByTestId('memory-config')).toContainText('config.json');
    // No max_position_embeddings in this config: the context starts at 4096 tokens.
    await expect(page.getByTestId('memory-tokens')).toHaveValue('4096');
    await expect(page.getByTestId('memory-kv-line')).toContainText('2 (K and V) × 8 KV heads × 128 head dim');
    // 80 layers × 2 × 8 KV heads × 128 head dim = 2048 elements per token per layer.
    await expect(page.getByTestId('memory-kv-line')).toContainText(
      `1 × ${g(4096)} tokens × 80 layers × ${g(2048)} elements × 2 B`,
    );
    await page.getByRole('button', { name: '32k' }).click();
    await expect(page.getByTestId('memory-kv-line')).toContainText(`1 × ${g(32768)} tokens × 80 layers`);
    await page.getByTestId('memory-batch').fill('4');
    await page.getByTestId('memory-cache-dtype').selectOption('fp8');
    // 4 × 32768 × 80 × 2048 × 1 B = 20 GiB of cache.
    await expect(page.getByTestId('memory-kv-line')).toContainText(
      `4 × ${g(32768)} tokens × 80 layers × ${g(2048)} elements × 1 B (fp8)`,
    );
    await expect(page.getByTestId('memory-kv-line').locator('td.num')).toHaveText('20.00 GiB');
    // 131.4 GiB of weights + 20 GiB of cache: TP 2 leaves 75.7 GiB per H100 (69.7 usable), TP 4 fits. On 24 GB
    // cards TP 8 fits one node. 64 heads and 8 KV heads allow every power of two up to 8.
    await expect(page.getByTestId('memory-gpus').getByTestId('gpu-80')).toContainText('TP 4: 4 GPUs');
    await expect(page.getByTestId('memory-gpus').getByTestId('gpu-24')).toContainText('TP 8: 8 GPUs');
    await expect(page.getByTestId('memory-tp-rule')).toContainText(
      'it must divide the 64 attention heads and either divide the 8 KV heads',
    );

    const report = await downloadReport<MemoryReport>(page);
    expect(report.memory.config).toBe('config.json');
    expect(report.memory.weightsBytes).toBe(report.tensors.bytes);
    expect(report.memory.kvBytesPerToken).toBe(80 * 2 * 8 * 128 * 2);
    expect(report.memory.cacheDtype).toBe('bf16');
    expect(report.memory.contexts.map((context) => context.tokens)).toEqual([4096, 8192, 32768]);
    expect(report.memory.contexts[0]).toEqual({
      tokens: 4096,
      batch: 1,
      kvBytes: 4096 * 327_680,
      totalBytes: report.memory.weightsBytes + 4096 * 327_680 + OVERHEAD,
    });

    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 1400 });
      await page.screenshot({ path: testInfo.outputPath(`memory-${width}.png`), fullPage: true });
    }
    watch.expectClean();
  });

  test('a single file dropped with its config.json; past its maximum context; bad inputs; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await dropWithConfig(
      page,
      { name: 'model.safetensors', bytes: TINY_MODEL },
      { name: 'config.json', value: TINY_LLAMA_CONFIG },
    );
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await expectTinyFromConfig(page);
    await expect(page.getByTestId('memory-context-check')).toHaveCount(0);
    // 131,072 tokens on a model whose maximum is 2,048: said, with what would extend it.
    await page.getByRole('button', { name: '128k' }).click();
    const check = page.getByTestId('memory-context-check');
    await expect(check).toContainText(
      `${g(131072)} tokens is beyond this model's maximum context of ${g(2048)} tokens`,
    );
    await expect(check).toContainText('config.json has no rope_scaling');
    // Zero, negative, blank: an inline message, and the figures stay at the last valid input.
    const tokens = page.getByTestId('memory-tokens');
    await tokens.fill('0');
    await expect(page.getByTestId('memory-tokens-error')).toHaveText(
      `The context must be at least 1 token. Showing the last valid figure: ${g(131072)} tokens.`,
    );
    await expect(tokens).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByTestId('memory-breakdown').locator('caption')).toContainText(
      `Inference at ${g(131072)} tokens × batch 1`,
    );
    await page.getByTestId('memory-batch').fill('-2');
    await expect(page.getByTestId('memory-batch-error')).toContainText('The batch must be at least 1 sequence.');
    await page.getByTestId('memory-own-gpu').fill('0');
    await expect(page.getByTestId('memory-own-gpu-error')).toContainText('GPU memory must be at least 4 GiB.');
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 1200 });
      await page.screenshot({ path: testInfo.outputPath(`memory-checks-${width}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: testInfo.outputPath('memory-checks-800-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await tokens.fill('1');
    await page.getByTestId('memory-batch').fill('1');
    await page.getByTestId('memory-own-gpu').fill('32');
    await expect(page.getByTestId('memory-tokens-error')).toHaveCount(0);
    await expect(page.getByTestId('memory-context-check')).toHaveCount(0);
    await expect(page.getByTestId('memory-kv-line')).toContainText('1 × 1 token × 2 layers × 32 elements');
    const ownGpu = page.getByTestId('memory-gpus').getByTestId('gpu-own');
    await expect(ownGpu.locator('.gpu-name')).toHaveText('Your GPU (32 GiB)');
    await expect(ownGpu.locator('.gpu-count')).toHaveText('fits on 1');
    const report = await downloadReport<MemoryReport>(page);
    expect(report.memory).toMatchObject({ config: 'config.json', kvBytesPerToken: TINY_KV_PER_TOKEN });
    expect(report.memory.contexts.map((context) => context.tokens)).toEqual([4096, 8192, 32768, 2048]);
    watch.expectClean();
  });

  test("Mistral's consolidated.safetensors dropped with params.json: the layout from params.json; screenshots", async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await dropWithConfig(
      page,
      { name: 'consolidated.safetensors', bytes: NATIVE_MODEL },
      { name: 'params.json', value: TINY_NATIVE_PARAMS },
    );
    await expect(page.getByTestId('file-name')).toHaveText('consolidated.safetensors');
    await openMemoryTab(page);
    await expect(page.getByTestId('memory-config')).toHaveText(
      'Attention layout from params.json (model_type mistral).',
    );
    await expect(page.getByTestId('memory-max')).toHaveText(
      'Model maximum: unknown (params.json gives none; vLLM assumes 128,000 tokens)',
    );
    // 2 KV heads of 32 (params.json's head_dim; the widths alone would not settle it): 128 elements a layer.
    await page.getByTestId('memory-tokens').fill('4096');
    await expect(page.getByTestId('memory-kv-line')).toContainText(
      `1 × ${g(4096)} tokens × 2 layers × 128 elements × 2 B (bf16)`,
    );
    await expect(page.getByTestId('sidecars-read')).toContainText('params.json');
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 1200 });
      await page.screenshot({ path: testInfo.outputPath(`memory-params-${width}.png`), fullPage: true });
    }
    const report = await downloadReport<MemoryReport>(page);
    expect(report.memory).toMatchObject({ config: 'params.json', kvBytesPerToken: TINY_NATIVE_KV_BYTES_PER_TOKEN });
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByText('GQA · 4 heads / 2 KV · head dim 32 (from params.json)')).toBeVisible();
    watch.expectClean();
  });

  test('a config.json of another vocabulary: named as not describing the tensors', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await dropWithConfig(
      page,
      { name: 'model.safetensors', bytes: TINY_MODEL },
      { name: 'config.json', value: { ...TINY_LLAMA_CONFIG, vocab_size: 250 } },
    );
    await expect(page.locator('[data-code="config-mismatch"]')).toContainText(
      'config.json does not describe these tensors: vocab_size 250, but model.embed_tokens.weight has 256 rows.',
    );
    watch.expectClean();
  });

  test('a repository on the fake Hub: config.json fetched once', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/api/models/${HUB_ORG}/${REPO_FOR_LISTING}/tree/main`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await expectTinyFromConfig(page);
    const configGets = (await serverLog(`/hub/${HUB_ORG}/${REPO_FOR_LISTING}/resolve/main/config.json`)).filter(
      (entry) => entry.method === 'GET',
    );
    expect(configGets).toHaveLength(1);
    expect([200, 206]).toContain(configGets[0].status);
    watch.expectClean();
  });

  test('a Hub file URL: config.json beside the file, read once when the Memory tab opens', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/${HUB_ORG}/${REPO_FOR_FILE_URL}/resolve/main/model.safetensors`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await expect(page.getByTestId('verdict-pending')).toHaveCount(0);
    // The load itself reads the header only; the note says when config.json will be read.
    await expect(page.getByTestId('sidecars-on-demand')).toContainText('config.json beside the file is read when');
    expect(await configGets(REPO_FOR_FILE_URL)).toHaveLength(0);
    await expectTinyFromConfig(page);
    await expect(page.getByTestId('sidecars-read')).toContainText('config.json');
    await expect(page.getByTestId('sidecars-on-demand')).toHaveCount(0);
    // Leaving and reopening the tab, and the report, read nothing more.
    await page.getByRole('tab', { name: 'Tensors' }).click();
    await openMemoryTab(page);
    const report = await downloadReport<MemoryReport>(page);
    expect(report.memory).toMatchObject({ config: 'config.json', kvBytesPerToken: TINY_KV_PER_TOKEN });
    const gets = await configGets(REPO_FOR_FILE_URL);
    expect(gets).toHaveLength(1);
    expect([200, 206]).toContain(gets[0].status);
    watch.expectClean();
  });

  test('a Hub file URL: the report download reads config.json first and waits for it', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/${HUB_ORG}/${REPO_FOR_REPORT}/resolve/main/model.safetensors`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await expect(page.getByTestId('sidecars-on-demand')).toBeVisible();
    const report = await downloadReport<MemoryReport>(page);
    expect(report.memory).toMatchObject({ config: 'config.json', kvBytesPerToken: TINY_KV_PER_TOKEN });
    expect(report.memory.contexts.map((context) => context.tokens)).toContain(2048);
    expect(await configGets(REPO_FOR_REPORT)).toHaveLength(1);
    watch.expectClean();
  });

  test('a URL on a plain server: config.json in the same folder, read once when the Memory tab opens', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    const configPath = `/range/${OFF_HUB_DIR}/config.json`;
    await openUrl(page, `${ORIGIN_A}/range/${OFF_HUB_DIR}/model.safetensors`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await expect(page.getByTestId('sidecars-on-demand')).toContainText('config.json beside the file is read when');
    expect(await serverLog(configPath)).toHaveLength(0);
    await expectTinyFromConfig(page);
    await expect(page.getByTestId('sidecars-read')).toContainText('Also read config.json: its layer and attention');
    const gets = (await serverLog(configPath)).filter((entry) => entry.method === 'GET');
    expect(gets).toHaveLength(1);
    expect([200, 206]).toContain(gets[0].status);
    watch.expectClean();
  });

  test('a Hub file URL with no config.json beside it: one 404, then labelled inferred', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/${HUB_ORG}/${REPO_WITHOUT_CONFIG}/resolve/main/model.safetensors`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('button', { name: 'Read it now' }).click();
    await expect(page.getByTestId('sidecars-on-demand')).toContainText('No usable config.json beside the file');
    await openMemoryTab(page);
    await expect(page.getByTestId('memory-config')).toContainText('Inferred from the header');
    const gets = await configGets(REPO_WITHOUT_CONFIG);
    expect(gets.map((entry) => entry.status)).toEqual([404]);
    watch.expectClean([/404/]);
  });

  test('a file without config.json: the KV cache is inferred from k_proj and labelled so', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath('clean.safetensors'));
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    await openMemoryTab(page);
    await expect(page.getByTestId('memory-config')).toContainText('Inferred from the header');
    // k_proj and v_proj out features 16 + 16 per layer, 2 layers, bf16.
    await expect(page.getByTestId('memory-kv-line')).toContainText(
      `1 × ${g(4096)} tokens × 2 layers × 32 elements × 2 B`,
    );
    const report = await downloadReport<MemoryReport>(page);
    expect(report.memory).toMatchObject({ config: 'inferred', kvBytesPerToken: 2 * 32 * 2 });
    await page.getByText('Weights by part and dtype').click();
    await expect(page.getByRole('rowheader', { name: 'Embeddings and LM head' })).toBeVisible();
    await page.setViewportSize({ width: 800, height: 1400 });
    await page.screenshot({ path: testInfo.outputPath('memory-inferred-800.png'), fullPage: true });
    watch.expectClean();
  });
});
