/**
 * The Memory tab for a GGUF: llama.cpp's placement of weights and KV cache between VRAM and RAM as the GPU-layers
 * control moves, checked against byte counts taken from gguf-py's reading of the same fixture.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { fixturePath, openApp, watchPage } from './helpers';

const TINY = 'gguf/tiny-llama-Q4_K_M.gguf';

/** Bytes of the tensors `keep` takes, as gguf-py read them from the fixture `file`. */
function bytesSummer(file: string): (keep: (name: string) => boolean) => number {
  const reference = JSON.parse(readFileSync(new URL(`../fixtures/${file}-py.json`, import.meta.url), 'utf8')) as {
    tensors: Array<{ name: string; bytes: number }>;
  };
  return (keep) => reference.tensors.filter((t) => keep(t.name)).reduce((total, t) => total + t.bytes, 0);
}

const sumOf = bytesSummer(TINY);
const ALL = sumOf(() => true);
const INPUT = sumOf((name) => name.startsWith('token_embd.'));
const LAYER_1 = sumOf((name) => name.startsWith('blk.1.'));
/** 2 layers; 4 heads over 256 wide = 64 per head, 1 KV head: K and V 64 f16 values per token per layer. */
const KV_PER_LAYER_F16 = 2048 * (64 + 64) * 2;
/** The same cells with K in q8_0 (2 blocks of 34 bytes per 64 values) and V in f16. */
const KV_PER_LAYER_Q8_K = 2048 * (2 * 34 + 64 * 2);

const bytesOf = async (page: Page, testId: string) => Number(await page.getByTestId(testId).getAttribute('data-bytes'));

test('GGUF memory: weights and KV cache split between VRAM and RAM by the GPU-layers control', async ({ page }) => {
  const watch = watchPage(page);
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(fixturePath(TINY));
  await page.getByRole('tab', { name: 'Memory' }).click();
  await expect(page.getByTestId('memory-config')).toContainText('GGUF metadata');
  await expect(page.getByTestId('memory-tokens')).toHaveValue('2048');
  // Full offload (-ngl 3 of a 2-layer model): everything but the input embedding on the GPU.
  await expect(page.getByTestId('memory-breakdown')).toContainText('-ngl 3');
  expect(await bytesOf(page, 'memory-vram-weights')).toBe(ALL - INPUT);
  expect(await bytesOf(page, 'memory-ram-weights')).toBe(INPUT);
  expect(await bytesOf(page, 'memory-vram-kv')).toBe(2 * KV_PER_LAYER_F16);

  await page.getByTestId('memory-gpu-layers').fill('1');
  await expect(page.getByTestId('memory-breakdown')).toContainText('-ngl 1');
  expect(await bytesOf(page, 'memory-vram-weights')).toBe(LAYER_1);
  expect(await bytesOf(page, 'memory-ram-weights')).toBe(ALL - LAYER_1);
  expect(await bytesOf(page, 'memory-vram-kv')).toBe(KV_PER_LAYER_F16);
  expect(await bytesOf(page, 'memory-ram-kv')).toBe(KV_PER_LAYER_F16);

  await page.getByTestId('memory-cache-k').selectOption('q8_0');
  await expect(page.getByTestId('memory-vram-kv')).toHaveAttribute('data-bytes', String(KV_PER_LAYER_Q8_K));
  await page.getByTestId('memory-cache-v').selectOption('q4_0');
  await expect(page.getByTestId('memory-problems')).toContainText(/flash attention/i);

  await page.getByTestId('memory-gpu-layers').fill('0');
  expect(await bytesOf(page, 'memory-vram-weights')).toBe(0);
  expect(await bytesOf(page, 'memory-vram-compute')).toBe(0);
  watch.expectClean();
});

test('GGUF memory: a MoE keeps the routed experts of its first layers in RAM (--n-cpu-moe)', async ({ page }) => {
  const watch = watchPage(page);
  const sum = bytesSummer('gguf/tiny-qwen3moe-Q8_0.gguf');
  const all = sum(() => true);
  const input = sum((name) => name.startsWith('token_embd.'));
  // llama.cpp's LLM_FFN_EXPS_REGEX after blk.0: the three stacked expert tensors, not the router.
  const experts0 = sum((name) => /^blk\.0\.ffn_(up|down|gate)_exps\./.test(name));
  const experts = sum((name) => /\.ffn_(up|down|gate)_exps\./.test(name));
  expect(experts0).toBeGreaterThan(0);
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(fixturePath('gguf/tiny-qwen3moe-Q8_0.gguf'));
  await page.getByRole('tab', { name: 'Memory' }).click();
  await expect(page.getByTestId('memory-breakdown')).toContainText('-ngl 3:');
  expect(await bytesOf(page, 'memory-vram-weights')).toBe(all - input);

  await page.getByTestId('memory-cpu-moe').fill('1');
  await expect(page.getByTestId('memory-breakdown')).toContainText('-ngl 3 --n-cpu-moe 1:');
  expect(await bytesOf(page, 'memory-vram-weights')).toBe(all - input - experts0);
  expect(await bytesOf(page, 'memory-ram-weights')).toBe(input + experts0);

  await page.getByTestId('memory-cpu-moe').fill('2');
  await expect(page.getByTestId('memory-breakdown')).toContainText('-ngl 3 --cpu-moe:');
  expect(await bytesOf(page, 'memory-vram-weights')).toBe(all - input - experts);
  expect(await bytesOf(page, 'memory-ram-weights')).toBe(input + experts);
  watch.expectClean();
});

test('GGUF memory: a dense model offers no experts control', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(fixturePath(TINY));
  await page.getByRole('tab', { name: 'Memory' }).click();
  await expect(page.getByTestId('memory-gpu-layers')).toBeVisible();
  await expect(page.getByTestId('memory-cpu-moe')).toHaveCount(0);
});

test('GGUF memory: an embedding model (nomic-bert) has no KV cache in llama.cpp, at its 512 positions; screenshots', async ({
  page,
}, testInfo) => {
  const watch = watchPage(page);
  const file = 'gguf/tiny-nomic-bert-F16.gguf';
  const sum = bytesSummer(file);
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(fixturePath(file));
  await page.getByRole('tab', { name: 'Memory' }).click();
  await expect(page.getByTestId('memory-tokens')).toHaveValue('512');
  await expect(page.getByTestId('memory-kv-formula')).toContainText('none: llama.cpp keeps no KV cache for nomic-bert');
  await expect(page.getByTestId('memory-breakdown')).not.toContainText('KV cells');
  expect(await bytesOf(page, 'memory-vram-kv')).toBe(0);
  expect(await bytesOf(page, 'memory-ram-kv')).toBe(0);
  expect(await bytesOf(page, 'memory-vram-weights')).toBe(sum((name) => !name.startsWith('token_')));
  await expect(page.getByTestId('memory-kv-detail')).toHaveCount(0);
  // No cache types to pick, and no context preset past the model's 512 positions.
  await expect(page.getByTestId('memory-cache-k')).toHaveCount(0);
  await expect(page.getByTestId('memory-flash-attention')).toHaveCount(0);
  await expect(page.getByRole('group', { name: 'Context presets' }).getByRole('button')).toHaveText(['max 512']);
  // The compute buffers end in an embedding per token (64 wide × 512 ubatch × 4 B), not logits over the vocabulary.
  await expect(page.getByTestId('memory-breakdown')).toContainText('embeddings: 64 embedding_length × 512 ubatch');
  await expect(page.getByTestId('memory-breakdown')).not.toContainText('logits');
  for (const width of [1440, 800]) {
    await page.setViewportSize({ width, height: 900 });
    await page.getByTestId('memory-breakdown').scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath(`gguf-memory-bert-${width}.png`), fullPage: true });
  }
  watch.expectClean();
});

test('GGUF memory: a Gemma 3n layout caches its first 20 layers only (the rest read theirs)', async ({
  page,
}, testInfo) => {
  const watch = watchPage(page);
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(fixturePath('gguf/tiny-gemma3n-layout-F16.gguf'));
  await page.getByRole('tab', { name: 'Memory' }).click();
  await page.getByTestId('memory-tokens').fill('4096');
  // 2 KV heads × (8 + 8) × 2 B = 64 B per token and cached layer: 4 full layers × 4,096 cells, 16 sliding × 1,024.
  await expect(page.getByTestId('memory-vram-kv')).toHaveAttribute(
    'data-bytes',
    String(4 * 4096 * 64 + 16 * 1024 * 64),
  );
  await expect(page.getByTestId('memory-kv-line')).toHaveText([
    /sliding \(512 tokens\), 16 layers/,
    /full attention, 4 layers/,
  ]);
  await expect(page.locator('.memory-notes')).toContainText('Layers 20–29 read the KV cache of earlier layers');
  for (const width of [1440, 800]) {
    await page.setViewportSize({ width, height: 900 });
    await page.getByTestId('memory-kv-detail').scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath(`gguf-memory-gemma3n-${width}.png`), fullPage: true });
  }
  watch.expectClean();
});
