/**
 * "Encode a text" with a GGUF's own tokenizer, as llama.cpp tokenizes: in the GGUF tab of SentencePiece models
 * gguf-py converted (BPE as Llama 2's, Unigram as T5's: the ids sentencepiece itself gives), and in the compare view, where a GGUF beside the
 * tokenizer.json it came from encodes the same, and one converted with the wrong pre-tokenizer parts from the right
 * one. Answers from scripts/gguf-encode-fixtures.py.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildGguf, str, strings } from '../src/testing/build-gguf';
import { openApp, watchPage } from './helpers';

const DIR = join(process.cwd(), 'fixtures', 'tokenizer');
const ANSWERS = JSON.parse(readFileSync(join(DIR, 'gguf-encodings.json'), 'utf8')) as Record<
  string,
  { encodings: Array<{ text: string; ids: number[] }>; differsFromOriginal?: string[] }
>;

/** Picks files in the drop zone's file input, as a user does. */
async function pick(page: Page, files: Parameters<Locator['setInputFiles']>[0]): Promise<void> {
  await page.getByTestId('file-input').first().setInputFiles(files);
}

async function openGguf(page: Page, name: string): Promise<void> {
  await pick(page, join(DIR, name));
  await expect(page.getByTestId('file-name')).toHaveText(name);
}

/** Screenshots of `target` at the two widths a change to the page is looked at. */
async function screenshots(page: Page, target: Locator, path: (width: number) => string): Promise<void> {
  for (const width of [1440, 800]) {
    await page.setViewportSize({ width, height: 900 });
    await target.scrollIntoViewIfNeeded();
    await target.screenshot({ path: path(width) });
  }
}

/** Types each sample the fixture script answered for `file` and waits for its ids. */
async function expectEveryAnswer(encode: Locator, file: string): Promise<void> {
  // A textarea's value holds no \r (the browser normalizes line breaks to \n), so texts with one are left to the
  // unit tests.
  const typeable = ANSWERS[file].encodings.filter(({ text }) => text.length > 0 && !text.includes('\r'));
  for (const { text, ids } of typeable) {
    await encode.getByRole('textbox').fill(text);
    await expect
      .poll(async () => (await encode.locator('.encode-text-id').allTextContents()).map(Number), {
        message: JSON.stringify(text),
      })
      .toEqual(ids);
  }
}

test.describe("a GGUF's own tokenizer", () => {
  test('the GGUF tab encodes a text as sentencepiece does, BOS first; screenshots', async ({ page }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await openGguf(page, 'spm-llama.gguf');
    await page.getByRole('tab', { name: 'GGUF' }).click();
    const encode = page.getByTestId('encode-text');
    // The sample text is encoded as soon as the tab opens.
    await expect(encode.getByTestId('encode-text-count')).toContainText('1 of them added around the text');
    await expectEveryAnswer(encode, 'spm-llama.gguf');
    // A token piece keeps the space SentencePiece put before the word, shown as ·.
    await encode.getByRole('textbox').fill('The quick brown fox jumps over the lazy dog.');
    await expect(encode.locator('.encode-text-piece').nth(1)).toHaveText(/^·T/);
    await expect(encode.getByTestId('encode-text-count')).toHaveText(
      /^\d+ tokens for 44 characters, 1 of them added around the text$/,
    );
    await expect(page.getByTestId('encode-text-error')).toHaveCount(0);
    await screenshots(page, page.locator('section[aria-label="Tokenizer"]'), (width) =>
      testInfo.outputPath(`gguf-encode-${width}.png`),
    );
    watch.expectClean();
  });

  test('a T5 Unigram GGUF encodes a text as sentencepiece does, EOS last', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openGguf(page, 'spm-t5.gguf');
    await page.getByRole('tab', { name: 'GGUF' }).click();
    const encode = page.getByTestId('encode-text');
    await expectEveryAnswer(encode, 'spm-t5.gguf');
    await expect(encode.locator('.encode-text-piece').last()).toHaveText('</s>');
    watch.expectClean();
  });

  test('a GGUF tokenizer none of those covered (rwkv) says which ones Encode a text covers', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const bytes = buildGguf({
      kvs: [
        ['general.architecture', str('rwkv6')],
        ['tokenizer.ggml.model', str('rwkv')],
        ['tokenizer.ggml.tokens', strings(['a', 'b'])],
      ],
    });
    await pick(page, { name: 'rwkv.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
    await page.getByRole('tab', { name: 'GGUF' }).click();
    await expect(page.getByTestId('encode-text-error')).toHaveText(
      `Encode a text covers llama.cpp's gpt2 (BPE), llama (SentencePiece BPE), t5 (SentencePiece Unigram) and bert (WordPiece) tokenizers; this GGUF's tokenizer.ggml.model is "rwkv".`,
    );
    watch.expectClean();
  });

  test('a tokenizer llama.cpp refuses (two ids with one text): said above the encoding', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openGguf(page, 'broken-duplicate-token.gguf');
    await page.getByRole('tab', { name: 'GGUF' }).click();
    await expect(page.getByTestId('gguf-encode-refused')).toHaveText(
      'llama.cpp refuses this tokenizer (gguf-duplicate-token in Findings), so it encodes nothing; the ids below are what its tokens would give if it loaded.',
    );
    await expect(page.getByTestId('encode-text-count')).toBeVisible();
    watch.expectClean();
  });

  test('a byte-level vocabulary without every byte: what it drops is counted, as llama.cpp drops it silently; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    // gguf-py's tiny Llama: 320 tokens, lower-case letters but no capitals, no space marker, no emoji.
    await pick(page, join(process.cwd(), 'fixtures', 'gguf', 'tiny-llama-Q4_K_M.gguf'));
    await page.getByRole('tab', { name: 'GGUF' }).click();
    const encode = page.getByTestId('encode-text');
    await encode.getByRole('textbox').fill('Hello world 🙂');
    await expect(encode.getByTestId('encode-text-dropped')).toHaveText(
      '4 characters of the text have no token and are dropped: this vocabulary lacks some of the 256 byte tokens a byte-level BPE needs, and llama.cpp drops such bytes without a word.',
    );
    await expect(encode.locator('.encode-text-piece')).toHaveText(['<s>', 'e', 'l', 'l', 'o', 'w', 'o', 'r', 'l', 'd']);
    await screenshots(page, encode, (width) => testInfo.outputPath(`gguf-encode-dropped-${width}.png`));
    watch.expectClean();
  });

  test('a tokenizer.json: the tokenizer.ggml.pre a GGUF of it needs, found by cutting the probe texts; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await pick(
      page,
      ['model.safetensors', 'tokenizer.json'].map((name) => join(DIR, 'bpe-llama3', name)),
    );
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    await page.getByRole('button', { name: 'Read tokenizer.json' }).click();
    await expect(page.getByTestId('encode-text-llama-pre')).toHaveText(
      "As a GGUF, llama.cpp tokenizes like this file with tokenizer.ggml.pre gpt-2, phi-2, jina-es (or 16 more), GPT-2's pattern: its patterns cut the 12 probe texts into the same pieces.",
    );
    await screenshots(page, page.getByTestId('encode-text'), (width) =>
      testInfo.outputPath(`tokenizer-json-llama-pre-${width}.png`),
    );
    watch.expectClean();
  });

  test('compare: a GGUF encodes as the tokenizer.json it was converted from', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await pick(
      page,
      ['model.safetensors', 'tokenizer.json'].map((name) => join(DIR, 'bpe-llama3', name)),
    );
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(join(DIR, 'bpe-llama3.gguf'));
    await expect(page.getByTestId('compare-headline')).toBeVisible();
    await page.getByRole('button', { name: 'Read and compare every token' }).click();
    const both = page.getByTestId('encode-both');
    const sample = ANSWERS['bpe-llama3.gguf'].encodings[3];
    await both.getByRole('textbox').fill(sample.text);
    await expect(both.getByTestId('encode-both-verdict')).toHaveText(
      `The same ${sample.ids.length} ids on both sides.`,
    );
    await expect(both.getByTestId('encode-both-b').locator('.encode-text-id')).toHaveText(sample.ids.map(String));
    await expect(both.getByTestId('encode-both-pre')).toHaveText(
      "B names tokenizer.ggml.pre “gpt-2”: llama.cpp cuts any text as A's tokenizer.json does.",
    );
    await both.getByRole('button', { name: 'Try the 12 probe texts' }).click();
    await expect(both.getByTestId('probe-texts-verdict')).toHaveText(
      'Every probe text gets the same ids on both sides (12 texts).',
    );
    await expect(both.getByTestId('probe-texts-table').locator('tbody tr')).toHaveCount(12);
    watch.expectClean();
  });

  test('compare: a GGUF whose tokenizer.ggml.pre cuts otherwise than its tokenizer.json is named, with the name that would not; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    // A: a model with Llama 3's split pattern in its tokenizer.json; B: its GGUF conversion that names gpt-2.
    await pick(page, [join(DIR, 'bpe-llama3', 'model.safetensors'), join(DIR, 'bpe-llama3-regex', 'tokenizer.json')]);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(join(DIR, 'bpe-llama3-regex-gpt2-pre.gguf'));
    await expect(page.getByTestId('compare-headline')).toBeVisible();
    await page.getByRole('button', { name: 'Read and compare every token' }).click();
    await expect(page.getByTestId('encode-both-pre')).toHaveText(
      "B names tokenizer.ggml.pre “gpt-2”: llama.cpp cuts text otherwise than A's tokenizer.json, so texts can get other ids (the probe texts show which); “llama3” would cut alike (convert again, or load with --override-kv tokenizer.ggml.pre=str:llama3).",
    );
    await screenshots(page, page.locator('.tokenizer-diff'), (width) =>
      testInfo.outputPath(`encode-both-pre-${width}.png`),
    );
    watch.expectClean();
  });

  test('compare: a GGUF converted with the wrong pre-tokenizer parts from the right one where llama.cpp splits otherwise; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await openGguf(page, 'bpe-llama3-regex.gguf');
    await page.getByRole('tab', { name: 'GGUF' }).click();
    await expect(page.getByTestId('gguf-pre-tokenizer')).toHaveText(
      "llama-bpe: Llama 3's pattern, whole-word tokens taken as they are",
    );
    await screenshots(page, page.locator('section[aria-label="Tokenizer"] .facts'), (width) =>
      testInfo.outputPath(`gguf-pre-${width}.png`),
    );
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(join(DIR, 'bpe-llama3-regex-gpt2-pre.gguf'));
    await expect(page.getByTestId('compare-b-name')).toContainText('bpe-llama3-regex-gpt2-pre.gguf');
    const both = page.getByTestId('encode-both');
    const [text] = ANSWERS['bpe-llama3-regex-gpt2-pre.gguf'].differsFromOriginal ?? [];
    expect(text).toBeTruthy();
    await both.getByRole('textbox').fill(text);
    await expect(both.getByTestId('encode-both-verdict')).toHaveText(/they part at token \d+;/);
    const idsOf = (side: string) =>
      both
        .getByTestId(`encode-both-${side}`)
        .locator('.encode-text-id')
        .allTextContents()
        .then((ids) => ids.map(Number));
    const right = ANSWERS['bpe-llama3-regex.gguf'].encodings.find((sample) => sample.text === text)?.ids;
    const wrong = ANSWERS['bpe-llama3-regex-gpt2-pre.gguf'].encodings.find((sample) => sample.text === text)?.ids;
    expect(await idsOf('a')).toEqual(right);
    expect(await idsOf('b')).toEqual(wrong);
    // Of the probe texts, the code is cut otherwise by GPT-2's pattern (the unit tests name it).
    await both.getByRole('button', { name: 'Try the 12 probe texts' }).click();
    await expect(both.getByTestId('probe-texts-verdict')).toHaveText(
      '1 of 12 probe texts gets other ids on the two sides.',
    );
    const differing = both.locator('tr.probe-differs');
    await expect(differing).toHaveCount(1);
    await expect(differing.locator('td').first()).toContainText('def main():');
    await expect(differing.locator('td').last()).toHaveText(/^part at token \d+$/);
    await screenshots(page, page.locator('.tokenizer-diff'), (width) =>
      testInfo.outputPath(`gguf-encode-both-${width}.png`),
    );
    watch.expectClean();
  });
});
