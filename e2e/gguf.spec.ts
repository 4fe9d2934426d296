import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  fixturePath,
  openApp,
  openLocalFile,
  ORIGIN_A,
  readValuesOf,
  serverLog,
  uniqueTag,
  watchPage,
} from './helpers';
import { buildGguf, GGML, str, strings, u32 } from '../src/testing/build-gguf';

const TINY = 'gguf/tiny-llama-Q4_K_M.gguf';
const SPLITS = ['gguf/tiny-llama-split-00001-of-00002.gguf', 'gguf/tiny-llama-split-00002-of-00002.gguf'];

/** Bits per weight over the tiny model's block-typed tensors, from what gguf-py's GGUFReader reads of the file. */
function blockBitsPerWeight(): string {
  const view = JSON.parse(
    readFileSync(join(process.cwd(), 'fixtures', 'gguf', 'tiny-llama-Q4_K_M.gguf-py.json'), 'utf8'),
  ) as { tensors: Array<{ type: string; elements: number; bytes: number }> };
  const blocks = view.tensors.filter((tensor) => !['F32', 'F16', 'BF16'].includes(tensor.type));
  const bytes = blocks.reduce((sum, tensor) => sum + tensor.bytes, 0);
  const elements = blocks.reduce((sum, tensor) => sum + tensor.elements, 0);
  return `${blocks.length} quantized matrices at ${((bytes * 8) / elements).toFixed(2)} bits/weight`;
}

test.describe('GGUF files', () => {
  test('a local GGUF: verdict with the quant label, the GGUF tab, the tensor table in ggml types; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath(TINY));
    const verdict = page.getByTestId('verdict');
    await expect(verdict).toContainText('GGUF · llama · Tiny Llama · 2x256 · Q4_K_M');
    // The clauses take a row of their own, so the words before them end without a separator.
    await expect(verdict.getByTestId('verdict-clauses')).toBeVisible();
    expect(await verdict.innerText()).not.toMatch(/·\s*\n\s*●/);
    await expect(page.getByTestId('integrity')).toContainText("llama.cpp's loader would accept it");
    await expect(page.getByRole('gridcell', { name: 'Q4_K' }).first()).toBeVisible();
    // The block types are a quantization like any other: the verdict and the Quantization tab say which.
    await expect(verdict.getByTestId('verdict-clauses')).toContainText(
      `llama.cpp GGUF (Q4_K_M) on ${blockBitsPerWeight()}`,
    );
    await page.getByRole('tab', { name: 'Quantization' }).click();
    await expect(page.getByText(/^llama\.cpp GGUF \(Q4_K_M\): 4-bit; group 256;/)).toBeVisible();
    await page.getByRole('tab', { name: 'GGUF' }).click();
    const mix = page.getByTestId('gguf-quant-mix');
    await expect(mix.getByRole('row').nth(1)).toContainText(/Q4_K\s*8\s*240 KB.*4\.5/);
    await expect(page.getByTestId('gguf-special-tokens')).toContainText('BOS1"<s>"');
    // As gguf-py's GGUFReader counts tokenizer.ggml.token_type.
    await expect(page.getByTestId('gguf-token-types')).toContainText('313 normal · 6 control · 1 user-defined');
    await expect(page.getByTestId('chat-preview')).toContainText('<|start|>assistant');
    // <|end|> closes each turn, and llama.cpp knows it by name as an end of generation.
    await expect(page.getByTestId('turn-end')).toHaveText(
      "A turn ends with <|end|> (id 5), which generation stops at (llama.cpp's end-of-generation tokens: 2 (</s>), 5 (<|end|>)).",
    );
    await expect(page.getByTestId('gguf-keys')).toContainText('general.file_type');
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 1000 });
      await page.getByRole('region', { name: 'Chat template' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: testInfo.outputPath(`gguf-template-${width}.png`) });
    }
    // The token list stays in the worker: pages arrive on demand.
    await page.getByTestId('gguf-token-browser-open').click();
    const browser = page.getByTestId('gguf-token-browser');
    await expect(browser.getByRole('listitem').first()).toHaveText('"<unk>"');
    await browser.getByRole('button', { name: 'Next ›' }).click();
    await expect(browser.getByRole('listitem').first()).toHaveText('"aa"');
    await browser.getByRole('searchbox', { name: 'Find' }).fill('unk');
    await expect(browser.getByRole('listitem')).toHaveText(['"<unk>"']);
    expect(await browser.getByRole('listitem').getAttribute('value')).toBe('0');
    watch.expectClean();
  });

  test('a big-endian GGUF over HTTP: each value read as the little-endian original reads it, with a note', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const stats = page.getByTestId('values-stats');
    // F32 elements swapped whole, a Q6_K block's scale after its 208 bytes of codes, a Q4_0 block's before its own.
    const names = ['blk.0.attn_norm.weight', 'blk.1.ffn_down.weight', 'token_embd.weight'];
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(fixturePath(TINY));
    const original: string[] = [];
    for (const name of names) {
      await readValuesOf(page, name);
      await expect(page.getByTestId('values-read')).toContainText('All');
      original.push((await stats.textContent()) ?? '');
      await page.keyboard.press('Escape');
    }
    const url = `${ORIGIN_A}/range/gguf/tiny-llama-big-endian.gguf?t=${uniqueTag('big-endian')}`;
    await openApp(page, `?v=1&url=${encodeURIComponent(url)}`);
    await expect(page.locator('[data-code="gguf-big-endian"]')).toContainText('values are read here swapped');
    for (const [i, name] of names.entries()) {
      await readValuesOf(page, name);
      await expect(page.getByTestId('values-read')).toContainText('All');
      await expect(stats).toHaveText(original[i]);
      await expect(page.getByTestId('values-panel')).toContainText('The file stores these numbers big-endian');
      await page.keyboard.press('Escape');
    }
    watch.expectClean();
  });

  test('a vocab-only GGUF: intact but without weights, its tokenizer shown, an empty table that says so', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'gguf/vocab-only.gguf');
    await expect(page.getByTestId('verdict')).toContainText('GGUF · llama · Tiny Llama (vocab only)');
    await expect(page.getByTestId('integrity')).toContainText('intact, but no weights');
    await expect(page.getByText('Tokenizer only: no tensors')).toBeVisible();
    await expect(page.getByText('The file lists no tensors.')).toBeVisible();
    await page.getByRole('tab', { name: 'GGUF' }).click();
    await expect(page.getByTestId('gguf-special-tokens')).toContainText('BOS1"<s>"');
    await expect(page.getByTestId('chat-preview')).toContainText('<|start|>assistant');
    await expect(page.getByTestId('gguf-quant-mix')).toHaveCount(0);
    watch.expectClean();
  });

  test('a multimodal projector (mmproj): named as such, its heads on the Model tab, no Memory tab', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'gguf/mmproj-tiny-f16.gguf');
    await expect(page.getByTestId('verdict')).toContainText('GGUF · clip · Tiny Llama (mmproj)');
    await expect(page.getByTestId('integrity')).toContainText(
      'a multimodal projector, which llama.cpp loads with --mmproj',
    );
    await expect(page.locator('[data-code="gguf-mmproj"]')).toContainText('a vision encoder and its “mlp” projector');
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByText('MHA · 4 heads / 4 KV · head dim 4 (from GGUF metadata)')).toBeVisible();
    await expect(page.getByRole('tab', { name: 'Memory' })).toHaveCount(0);
    watch.expectClean();
  });

  test('a LoRA adapter GGUF, an importance matrix and a control vector: each named as what it is, no Memory tab', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'gguf/tiny-llama-lora-F16.gguf');
    await expect(page.getByTestId('verdict-clauses')).toContainText('llama.cpp adapter, rank 8 on 4 modules');
    await expect(page.getByTestId('integrity')).toContainText(
      "a LoRA adapter, which llama.cpp applies with --lora on top of a base model's GGUF",
    );
    await expect(page.locator('[data-code="gguf-lora-adapter"]')).toContainText("on top of a llama model's GGUF");
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByTestId('lora-rank')).toHaveText('8');
    await expect(page.getByTestId('lora-alpha')).toContainText('16 (from metadata)');
    await expect(page.getByRole('tab', { name: 'Memory' })).toHaveCount(0);

    await openLocalFile(page, 'gguf/tiny-llama-imatrix.gguf');
    await expect(page.getByTestId('integrity')).toContainText('an importance matrix, which llama-quantize reads');
    await expect(page.locator('[data-code="gguf-imatrix"]')).toContainText('over 100 chunks of 512 tokens');
    await expect(page.getByTestId('verdict-params')).toHaveText(
      '1.54 K stored elements (statistics, not model weights)',
    );
    await expect(page.getByTestId('verdict')).not.toContainText('bits/param');
    await expect(page.getByRole('tab', { name: 'Model' })).toHaveCount(0);
    await expect(page.getByRole('tab', { name: 'Memory' })).toHaveCount(0);

    await openLocalFile(page, 'gguf/tiny-llama-control-vector.gguf');
    await expect(page.getByTestId('integrity')).toContainText('a control vector, which llama.cpp adds to a model');
    await expect(page.locator('[data-code="gguf-control-vector"]')).toContainText('for a llama model');
    await expect(page.getByRole('tab', { name: 'Memory' })).toHaveCount(0);
    watch.expectClean();
  });

  test('a chat template that refuses a system message is shown without it, with a note saying why', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    const template =
      "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}" +
      "{% endif %}{% for m in messages %}<turn>{{ m['role'] }}: {{ m['content'] }}{% endfor %}";
    const file = buildGguf({
      kvs: [
        ['general.architecture', str('gemma2')],
        ['tokenizer.ggml.model', str('llama')],
        ['tokenizer.ggml.tokens', strings(['<pad>', '<eos>', '<bos>'])],
        ['tokenizer.ggml.bos_token_id', u32(2)],
        ['tokenizer.chat_template', str(template)],
      ],
      tensors: [{ name: 'output_norm.weight', ne: [64], type: GGML.F32 }],
    });
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles({ name: 'no-system.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(file) });
    await page.getByRole('tab', { name: 'GGUF' }).click();
    await expect(page.getByTestId('chat-preview')).toHaveText(
      '<bos><turn>user: What is a chat template?<turn>assistant: It turns a list of messages into the prompt the model was trained on.<turn>user: Thanks!',
    );
    await expect(page.getByTestId('chat-preview-note')).toHaveText(
      'Shown without the system message, which the template refuses (“System role not supported”).',
    );
    watch.expectClean();
  });

  test('a dropped Ollama store: the model by its names, the projector one choice away, no text layer offered; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(fixturePath('ollama-store/models'));
    await expect(page.getByTestId('file-name')).toHaveText(
      /^tiny:latest, me\/tiny-vision:v1\.2 \(sha256-[0-9a-f]{12}…\)$/,
    );
    await expect(page.getByTestId('file-format')).toContainText('GGUF');
    const switcher = page.getByTestId('source-switcher');
    await expect(switcher.locator('option')).toHaveText([
      /^me\/tiny-vision:v1\.2 \(projector\) · /,
      /^tiny:latest, me\/tiny-vision:v1\.2 · /,
    ]);
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: testInfo.outputPath(`ollama-store-${width}.png`), fullPage: true });
    }
    await switcher.selectOption({ index: 0 });
    await expect(page.getByTestId('file-name')).toHaveText(/^me\/tiny-vision:v1\.2 \(projector\) \(sha256-/);
    await expect(page.getByTestId('integrity')).toContainText('a multimodal projector');
    watch.expectClean();
  });

  test('a GGUF whose embedding has fewer rows than its tokens: refused as llama.cpp refuses it, the tensor named; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles(join(process.cwd(), 'fixtures', 'tokenizer', 'broken-embedding.gguf'));
    await expect(page.getByTestId('file-name')).toHaveText('broken-embedding.gguf');
    await expect(page.getByTestId('integrity')).not.toContainText("llama.cpp's loader would accept it");
    const finding = page.locator('[data-code="gguf-vocab-embedding-mismatch"]');
    await expect(finding).toContainText(
      "token_embd.weight has 402 rows, one per token, but tokenizer.ggml.tokens lists 406: llama.cpp refuses the file (“check_tensor_dims: tensor 'token_embd.weight' has wrong shape; expected 8, 406, got 8, 402”)",
    );
    await expect(page.getByRole('region', { name: 'Errors' })).toContainText('gguf-vocab-embedding-mismatch');
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: testInfo.outputPath(`gguf-vocab-embedding-${width}.png`) });
    }
    // Two ids with one text: llama.cpp aborts on its vocabulary assert.
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles(join(process.cwd(), 'fixtures', 'tokenizer', 'broken-duplicate-token.gguf'));
    await expect(page.locator('[data-code="gguf-duplicate-token"]')).toContainText(
      'tokenizer.ggml.tokens holds the same text at two ids: "I" at 40 and 41. llama.cpp aborts',
    );
    watch.expectClean();
  });

  test('a remote GGUF reads its header over Range, not the weights', async ({ page }) => {
    const watch = watchPage(page);
    const tag = `t=${uniqueTag('gguf-remote')}`;
    await openApp(page);
    await page.getByRole('textbox', { name: 'URL of a model file' }).fill(`${ORIGIN_A}/range/${TINY}?${tag}`);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.getByTestId('verdict')).toContainText('GGUF · llama');
    const log = await serverLog(tag);
    const sent = log.reduce((total, entry) => total + entry.bytesSent, 0);
    expect(log.every((entry) => entry.status === 206)).toBe(true);
    expect(sent).toBeLessThan(readFileSync(fixturePath(TINY)).length / 2);
    watch.expectClean();
  });

  test('a split GGUF reads as one model from its files, and from the URL of one split', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(SPLITS.map(fixturePath));
    await expect(page.getByTestId('verdict')).toContainText('GGUF · llama · Tiny Llama (split) · 2x256 · Q4_K_M');
    await expect(page.getByTestId('shard-count')).toHaveText(/2 shards/);
    await expect(page.getByTestId('integrity')).toContainText("llama.cpp's loader would accept it");
    const table = page.getByRole('grid').first();
    await expect(table.getByRole('columnheader', { name: /Shard/ })).toBeVisible();
    await page.getByRole('tab', { name: 'GGUF' }).click();
    // The type mix counts both files: the same 8 Q4_K tensors as the unsplit file.
    await expect(page.getByTestId('gguf-quant-mix').getByRole('row').nth(1)).toContainText(/Q4_K\s*8\s*240 KB/);

    const tag = `t=${uniqueTag('gguf-split')}`;
    await page.getByRole('textbox', { name: 'URL of a model file' }).fill(`${ORIGIN_A}/range/${SPLITS[1]}?${tag}`);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.getByTestId('shard-count')).toHaveText(/2 shards/);
    await expect(page.getByTestId('verdict')).toContainText('Tiny Llama (split)');
    expect((await serverLog(tag)).every((entry) => entry.status === 206)).toBe(true);
    watch.expectClean();
  });

  test('a dimension past 2^53: "?" in the shapes, a dash for the size, no read of values', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const file = buildGguf({
      tensors: [
        { name: 'output_norm.weight', ne: [64], type: GGML.F32 },
        { name: 'blk.0.ffn_down.weight', ne: [2n ** 60n, 2], type: GGML.Q4_K, offset: 256 },
      ],
      dataBytes: 256,
    });
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles({ name: 'huge-dim.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(file) });
    await expect(page.locator('[data-code="gguf-invalid-shape"]')).toContainText(
      '1 tensor ("blk.0.ffn_down.weight") has',
    );
    const row = page.getByRole('grid', { name: 'Tensors' }).getByRole('row').filter({ hasText: 'ffn_down' });
    await expect(row).toContainText('[2, ?]');
    await expect(row).not.toContainText('NaN');
    await row.getByRole('gridcell', { name: 'blk.0.ffn_down.weight' }).click();
    const details = page.getByTestId('tensor-details');
    await expect(details).toContainText('[?, 2] — fastest-varying first');
    await expect(details).not.toContainText('NaN');
    await expect(page.getByTestId('values-unreadable')).toContainText('size is unknown');
    await expect(details.getByRole('button', { name: 'Read values' })).toHaveCount(0);
    watch.expectClean();
  });

  test('a GGUF cut inside its header ends in a clear message', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const cut = readFileSync(fixturePath(TINY)).subarray(0, 3000);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles({ name: 'cut.gguf', mimeType: 'application/octet-stream', buffer: cut });
    await expect(page.locator('[data-code="gguf-truncated"]')).toContainText(/truncated|ends inside its header/);
    await expect(page.getByText("llama.cpp's GGUF loader")).toBeVisible();
    watch.expectClean();
  });
});
