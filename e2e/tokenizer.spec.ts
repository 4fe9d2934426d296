/**
 * The Tokenizer tab: a dropped model with its tokenizer files (read with the load), and a repository on the fake Hub
 * and a file URL (read only when the tab opens). The chat template rendered on the sample conversation, the check
 * that generation stops where a turn ends, and tokens the embedding has no row for, found at load.
 */
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSafetensors } from '../src/testing/build-safetensors';
import { formatBytes } from '../src/core/number-format';
import { tinyLlamaTensors } from '../src/testing/fixture-manifest';
import {
  chatmlTokenizerConfig,
  LLAMA3_TEMPLATE,
  llama3GenerationConfig,
  llama3TokenizerConfig,
  legacyTokenizerFiles,
} from '../src/testing/models/tokenizer-files';
import { APP_ORIGIN, FIXTURES_DIR, openApp, openLocalFile, ORIGIN_A, serverLog, watchPage } from './helpers';

/** The tiny Llama: 256 embedding rows. */
const TINY_MODEL = Buffer.from(buildSafetensors(tinyLlamaTensors(2, 64, 172, 256), { metadata: { format: 'pt' } }));

/** tokenizer.json files the tokenizers library wrote, with a model and tokenizer_config.json each. */
const VOCABULARY_DIR = join(process.cwd(), 'fixtures', 'tokenizer');
const VOCABULARY_REPO = 'vocabulary';

/** Fake-Hub repositories only this spec reads, so the server log counts are its own. */
const HUB_ORG = 'lens-tokenizer';
const LISTED_REPO = 'listed';
const BARE_REPO = 'bare';
/** LISTED_REPO's layout again, for the compare test alone (the server log is shared by every test of the run). */
const BASE_REPO = 'base';
/** A model whose tokenizer.json (padded to 1.5 MB) is read through the server's /slow route: 64 KiB each 50 ms. */
const SLOW_REPO = 'slow-vocabulary';
const SLOW_VOCABULARY = Buffer.from(
  JSON.stringify({
    ...(JSON.parse(readFileSync(join(VOCABULARY_DIR, 'bpe-llama3', 'tokenizer.json'), 'utf8')) as object),
    notes: 'x'.repeat(1_500_000),
  }),
);
/** BASE_REPO's fine-tune: its generation_config.json fixed, a tool token added, the template changed. */
const TUNED_REPO = 'tuned';

test.beforeAll(() => {
  for (const repo of [LISTED_REPO, BASE_REPO]) {
    const listed = join(FIXTURES_DIR, 'hub', HUB_ORG, repo);
    mkdirSync(listed, { recursive: true });
    writeFileSync(join(listed, 'model.safetensors'), TINY_MODEL);
    writeFileSync(
      join(listed, 'tokenizer_config.json'),
      JSON.stringify({ ...llama3TokenizerConfig(), chat_template: undefined }),
    );
    writeFileSync(join(listed, 'chat_template.jinja'), LLAMA3_TEMPLATE);
    writeFileSync(join(listed, 'generation_config.json'), JSON.stringify(llama3GenerationConfig(true)));
  }
  const tuned = join(FIXTURES_DIR, 'hub', HUB_ORG, TUNED_REPO);
  mkdirSync(tuned, { recursive: true });
  writeFileSync(join(tuned, 'model.safetensors'), TINY_MODEL);
  writeFileSync(join(tuned, 'tokenizer_config.json'), JSON.stringify(tunedTokenizerConfig()));
  writeFileSync(join(tuned, 'generation_config.json'), JSON.stringify(llama3GenerationConfig(true)));
  const vocabulary = join(FIXTURES_DIR, 'hub', HUB_ORG, VOCABULARY_REPO);
  mkdirSync(vocabulary, { recursive: true });
  for (const name of ['model.safetensors', 'tokenizer.json', 'tokenizer_config.json']) {
    writeFileSync(join(vocabulary, name), readFileSync(join(VOCABULARY_DIR, 'wordpiece-bert', name)));
  }
  const slow = join(FIXTURES_DIR, 'hub', HUB_ORG, SLOW_REPO);
  mkdirSync(slow, { recursive: true });
  writeFileSync(join(slow, 'model.safetensors'), readFileSync(join(VOCABULARY_DIR, 'bpe-llama3', 'model.safetensors')));
  writeFileSync(join(slow, 'tokenizer.json'), SLOW_VOCABULARY);
  const bare = join(FIXTURES_DIR, 'hub', HUB_ORG, BARE_REPO);
  mkdirSync(bare, { recursive: true });
  writeFileSync(join(bare, 'model.safetensors'), TINY_MODEL);
});

/** Files as a file input takes them: JSON values serialized, text and bytes as they are. */
function asInputFiles(files: Record<string, Buffer | string | object>) {
  return Object.entries(files).map(([name, content]) => ({
    name,
    mimeType: 'application/octet-stream',
    buffer: Buffer.isBuffer(content)
      ? content
      : Buffer.from(typeof content === 'string' ? content : JSON.stringify(content)),
  }));
}

async function drop(page: Page, files: Record<string, Buffer | string | object>): Promise<void> {
  await page.getByTestId('file-input').first().setInputFiles(asInputFiles(files));
}

/** Drops `names` from `folder` on the page, as a user picks several files of one model. */
async function dropFiles(page: Page, folder: string, names: readonly string[]): Promise<void> {
  await page
    .getByTestId('file-input')
    .first()
    .setInputFiles(names.map((name) => join(folder, name)));
}

/** Drops the tiny model with Llama 3's tokenizer files, generation_config.json as first released or fixed. */
async function dropLlama3(page: Page, fixed: boolean): Promise<void> {
  await drop(page, {
    'model.safetensors': TINY_MODEL,
    'tokenizer_config.json': llama3TokenizerConfig(),
    'generation_config.json': llama3GenerationConfig(fixed),
  });
  await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
}

async function openUrl(page: Page, url: string): Promise<void> {
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}

async function tokenizerGets(repo: string): Promise<Array<{ path: string; status: number | null }>> {
  return (await serverLog(`/hub/${HUB_ORG}/${repo}/resolve/main/`)).filter(
    (entry) =>
      entry.method === 'GET' &&
      /(tokenizer_config|generation_config|chat_template|special_tokens_map|added_tokens)\./.test(entry.path),
  );
}

/** Llama 3's files after a fine-tune that taught tool calls: a <|python_tag|> token and a template that emits it. */
function tunedTokenizerConfig(): Record<string, unknown> {
  const base = llama3TokenizerConfig();
  return {
    ...base,
    added_tokens_decoder: {
      ...(base.added_tokens_decoder as object),
      255: {
        content: '<|python_tag|>',
        lstrip: false,
        normalized: false,
        rstrip: false,
        single_word: false,
        special: true,
      },
    },
    chat_template: LLAMA3_TEMPLATE.replace(
      '{%- endfor %}',
      "{%- endfor %}{%- if tools %}{{- '<|python_tag|>' }}{%- endif %}",
    ),
  };
}

const PREVIEW_TURN_END =
  '<|start_header_id|>assistant<|end_header_id|>\n\nIt turns a list of messages into the prompt the model was trained on.<|eot_id|>';

test.describe('the Tokenizer tab', () => {
  test('a dropped model with Llama 3 files: the template rendered, and generation that never stops at <|eot_id|>; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await dropLlama3(page, false);
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    await expect(page.getByTestId('tokenizer-class')).toHaveText('PreTrainedTokenizerFast');
    await expect(page.getByTestId('tokenizer-special-tokens')).toContainText('BOS250"<|begin_of_text|>"');
    await expect(page.getByTestId('tokenizer-stop-ids')).toHaveText('251 <|end_of_text|>');
    await expect(page.getByTestId('chat-preview')).toContainText(PREVIEW_TURN_END);
    const finding = page.getByTestId('turn-end-finding');
    await expect(finding).toHaveAttribute('data-code', 'end-of-turn-not-stop');
    await expect(finding).toContainText(
      "ends the assistant's turn with <|eot_id|> (id 254), but generation stops only at generation_config.json: 251 (<|end_of_text|>)",
    );
    await expect(page.getByTestId('tokenizer-added-tokens')).toContainText('<|eot_id|> 254');
    // The template copies as written.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: APP_ORIGIN });
    await page.getByTestId('copy-chat-template').click();
    await expect(page.getByTestId('copy-chat-template')).toHaveText('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(LLAMA3_TEMPLATE);
    // Found at load, with the other findings, before the tab was opened as well.
    await expect(page.getByRole('region', { name: 'Warnings' })).toContainText('end-of-turn-not-stop');
    await expect(page.getByTestId('sidecars-read')).toHaveText(
      'Also read tokenizer_config.json, generation_config.json: the Tokenizer tab shows what they say.',
    );
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 1000 });
      await page.screenshot({ path: testInfo.outputPath(`tokenizer-${width}.png`), fullPage: true });
    }
    watch.expectClean();
  });

  test('the fixed generation_config.json: the turn end is one generation stops at', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await dropLlama3(page, true);
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    await expect(page.getByTestId('turn-end')).toHaveText(
      'A turn ends with <|eot_id|> (id 254), which generation stops at (generation_config.json: 251 (<|end_of_text|>), 254 (<|eot_id|>)).',
    );
    await expect(page.getByTestId('turn-end-finding')).toHaveCount(0);
    watch.expectClean();
  });

  test('tokens added without embedding rows: an error in Findings as soon as the model loads', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await drop(page, { 'model.safetensors': TINY_MODEL, 'tokenizer_config.json': chatmlTokenizerConfig(true) });
    const finding = page.locator('[data-code="tokenizer-beyond-embedding"]');
    await expect(finding).toContainText(
      'tokenizer_config.json adds 2 tokens at ids past the embedding: <|im_start|> (256), <|im_end|> (257), but model.embed_tokens.weight has 256 rows',
    );
    await expect(page.getByRole('region', { name: 'Errors' })).toContainText('tokenizer-beyond-embedding');
    watch.expectClean();
  });

  test("an older save's added_tokens.json: the pad token past the rows is named with the file it came from", async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await drop(page, { 'model.safetensors': TINY_MODEL, ...legacyTokenizerFiles() });
    await expect(page.locator('[data-code="tokenizer-beyond-embedding"]')).toContainText(
      'added_tokens.json adds 1 token at ids past the embedding: [PAD] (256)',
    );
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    await expect(page.getByTestId('tokenizer-special-tokens')).toContainText('PAD256"[PAD]"');
    await expect(page.getByTestId('tokenizer-no-template')).toBeVisible();
    watch.expectClean();
  });

  test('a repository on the fake Hub: the listed files read only when the tab opens, once', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/api/models/${HUB_ORG}/${LISTED_REPO}/tree/main`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await expect(page.getByTestId('verdict-pending')).toHaveCount(0);
    await page.getByRole('tab', { name: 'Model' }).click();
    expect(await tokenizerGets(LISTED_REPO)).toEqual([]);
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    await expect(page.getByTestId('chat-preview')).toContainText(PREVIEW_TURN_END);
    await expect(page.getByTestId('turn-end')).toContainText('which generation stops at');
    await page.getByRole('tab', { name: 'Tensors' }).click();
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    await expect(page.getByTestId('tokenizer-panel')).toBeVisible();
    const gets = await tokenizerGets(LISTED_REPO);
    expect(gets.map((entry) => entry.path.split('/').pop()).sort()).toEqual([
      'chat_template.jinja',
      'generation_config.json',
      'tokenizer_config.json',
    ]);
    watch.expectClean();
  });

  test('tokenizer.json dropped with the model: read on a click, its ids past the embedding an error; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    const folder = join(VOCABULARY_DIR, 'bpe-llama3');
    await dropFiles(page, folder, ['model.safetensors', 'tokenizer.json', 'tokenizer_config.json']);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    const card = page.getByTestId('tokenizer-vocabulary');
    const size = readFileSync(join(folder, 'tokenizer.json')).length;
    await expect(card).toContainText(`Reads tokenizer.json (${formatBytes(size)}) from your disk`);
    await expect(page.getByText('tokenizer.json has 4 tokens')).toHaveCount(0);
    await card.getByRole('button', { name: 'Read tokenizer.json' }).click();
    await expect(card.getByTestId('vocabulary-model')).toHaveText('BPE');
    await expect(card.getByTestId('vocabulary-tokens')).toHaveText('406 (ids 0–405)');
    await expect(card.getByTestId('vocabulary-template')).toHaveText('<|begin_of_text|> $A');
    await expect(card.getByRole('button', { name: 'Read tokenizer.json' })).toHaveCount(0);
    // A text encoded as the tokenizers library encodes it: Python's ids for the same text.
    const python = JSON.parse(readFileSync(join(VOCABULARY_DIR, 'tokenizers.json'), 'utf8')) as {
      files: Record<string, { encodeSamples: Array<{ text: string; ids: number[] }> }>;
    };
    const encoder = card.getByTestId('encode-text');
    await expect(encoder.getByTestId('encode-text-count')).toContainText('1 of them added around the text');
    for (const sample of python.files['bpe-llama3'].encodeSamples) {
      await encoder.getByRole('textbox', { name: 'Encode a text' }).fill(sample.text);
      await expect(encoder.getByTestId('encode-text-count')).toHaveText(
        new RegExp(`^${sample.ids.length} tokens for ${[...sample.text].length} characters`),
      );
      await expect(encoder.locator('.encode-text-id')).toHaveText(sample.ids.map(String));
    }
    // Every token a page at a time from the worker, and found by its text with its id.
    await card.getByTestId('vocabulary-browser-open').click();
    const browser = card.getByTestId('vocabulary-browser');
    await browser.getByRole('spinbutton', { name: 'From id' }).fill('400');
    await expect(browser.getByRole('listitem').first()).toHaveText('"<|begin_of_text|>"');
    await browser.getByRole('searchbox', { name: 'Find' }).fill('eot');
    await expect(browser.getByTestId('vocabulary-browser-range')).toHaveText('1 token contains "eot"');
    await expect(browser.getByRole('listitem')).toHaveText(['"<|eot_id|>"']);
    expect(await browser.getByRole('listitem').getAttribute('value')).toBe('404');
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await card.screenshot({ path: testInfo.outputPath(`tokenizer-vocabulary-${width}.png`) });
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
        0,
      );
    }
    await expect(page.locator('[data-code="tokenizer-beyond-embedding"]')).toContainText(
      'tokenizer.json has 4 tokens at ids past the embedding: <|start_header_id|> (402), <|end_header_id|> (403), <|eot_id|> (404) and 1 more, but model.embed_tokens.weight has 402 rows',
    );
    await expect(page.locator('[data-code="template-double-bos"]')).toContainText('gives <|begin_of_text|> twice');
    watch.expectClean();
  });

  test('a tokenizer.json whose pattern backtracks for ever: the encode is stopped after 2 s, the page stays live', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    const folder = join(VOCABULARY_DIR, 'wordpiece-bert');
    const hostile = JSON.parse(readFileSync(join(folder, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
    hostile.pre_tokenizer = { type: 'Split', pattern: { Regex: '(a+)+$' }, behavior: 'Isolated', invert: false };
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles(
        asInputFiles({
          'model.safetensors': readFileSync(join(folder, 'model.safetensors')),
          'tokenizer_config.json': readFileSync(join(folder, 'tokenizer_config.json')),
          'tokenizer.json': hostile,
        }),
      );
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    const card = page.getByTestId('tokenizer-vocabulary');
    await card.getByRole('button', { name: 'Read tokenizer.json' }).click();
    const encoder = card.getByTestId('encode-text');
    await expect(encoder.getByTestId('encode-text-count')).toBeVisible();
    await encoder.getByRole('textbox', { name: 'Encode a text' }).fill(`${'a'.repeat(40)}!`);
    await expect(encoder.getByTestId('encode-text-error')).toHaveText(
      "Encoding did not finish within 2 s and was stopped: a pattern of the tokenizer's pre-tokenizer backtracks on this text (a regular expression from the file).",
      { timeout: 10_000 },
    );
    // A new worker takes the next text.
    await encoder.getByRole('textbox', { name: 'Encode a text' }).fill('the fox');
    await expect(encoder.getByTestId('encode-text-error')).toHaveCount(0);
    await expect(encoder.getByTestId('encode-text-count')).toContainText('for 7 characters');
    await page.getByRole('tab', { name: 'Tensors' }).click();
    await expect(page.getByRole('grid', { name: 'Tensors' })).toBeVisible();
    watch.expectClean();
  });

  test('a model with only tokenizer.json beside it: the Tokenizer tab offers it, and shows its vocabulary', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    const folder = join(VOCABULARY_DIR, 'unigram-t5');
    await dropFiles(page, folder, ['model.safetensors', 'tokenizer.json']);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    await expect(page.getByTestId('tokenizer-status')).toHaveText(
      'No tokenizer_config.json, chat template or generation_config.json beside the model; its tokenizer.json is there.',
    );
    const card = page.getByTestId('tokenizer-vocabulary');
    await card.getByRole('button', { name: 'Read tokenizer.json' }).click();
    await expect(card.getByTestId('vocabulary-model')).toHaveText('Unigram');
    await expect(card.getByTestId('vocabulary-template')).toHaveText('$A </s>');
    await expect(page.getByTestId('tokenizer-no-template')).toBeVisible();
    watch.expectClean();
  });

  test('tokenizer.json of a repository: its listed size shown, fetched only on the click, once', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/api/models/${HUB_ORG}/${VOCABULARY_REPO}/tree/main`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    const card = page.getByTestId('tokenizer-vocabulary');
    await expect(card).toContainText(
      `Reads tokenizer.json (${formatBytes(readFileSync(join(VOCABULARY_DIR, 'wordpiece-bert', 'tokenizer.json')).length)}) by one request to the server that holds the model`,
    );
    const vocabularyGets = () => serverLog(`/hub/${HUB_ORG}/${VOCABULARY_REPO}/resolve/main/tokenizer.json`);
    expect(await vocabularyGets()).toEqual([]);
    await card.getByRole('button', { name: 'Read tokenizer.json' }).click();
    await expect(card.getByTestId('vocabulary-template')).toHaveText('[CLS] $A [SEP]');
    await expect(card.getByTestId('vocabulary-model')).toHaveText('WordPiece');
    expect(await vocabularyGets()).toHaveLength(1);
    watch.expectClean();
  });

  test('tokenizer.json from a slow server: its bytes shown with a Cancel that leaves it unread; read on the next click', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/slow/hub/${HUB_ORG}/${SLOW_REPO}/model.safetensors`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    const card = page.getByTestId('tokenizer-vocabulary');
    await card.getByRole('button', { name: 'Read tokenizer.json' }).click();
    const status = card.getByRole('status');
    await expect(status).toContainText(
      new RegExp(
        `^Reading tokenizer\\.json: [0-9.]+ [kKM]B of ${formatBytes(SLOW_VOCABULARY.length).replace('.', '\\.')}Cancel$`,
      ),
    );
    await status.getByRole('button', { name: 'Cancel' }).click();
    await expect(card.getByRole('button', { name: 'Read tokenizer.json' })).toBeVisible();
    await expect(card.getByTestId('vocabulary-model')).toHaveCount(0);
    const gets = () => serverLog(`/slow/hub/${HUB_ORG}/${SLOW_REPO}/tokenizer.json`);
    expect(await gets()).toHaveLength(1);
    await card.getByRole('button', { name: 'Read tokenizer.json' }).click();
    await expect(card.getByTestId('vocabulary-model')).toHaveText('BPE', { timeout: 15_000 });
    expect(await gets()).toHaveLength(2);
    watch.expectClean([/404/]);
  });

  test('a file URL with nothing beside it: the names tried once, and the tab says so; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/${HUB_ORG}/${BARE_REPO}/resolve/main/model.safetensors`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    await expect(page.getByTestId('tokenizer-status')).toHaveText(
      'No tokenizer_config.json, chat template or generation_config.json beside the model: tried ' +
        'tokenizer_config.json, chat_template.jinja, chat_template.json, generation_config.json, ' +
        'special_tokens_map.json, added_tokens.json, each missing, over 8 MiB or not valid JSON (UTF-8 text for a ' +
        '.jinja); a tokenizer.json may be, and is tried only when asked.',
    );
    // Its guessed tokenizer.json is offered, by one request, and not tried until then.
    await expect(page.getByTestId('tokenizer-vocabulary')).toContainText(
      'Reads tokenizer.json by one request to the server that holds the model',
    );
    expect(await serverLog(`/hub/${HUB_ORG}/${BARE_REPO}/resolve/main/tokenizer.json`)).toEqual([]);
    const gets = await tokenizerGets(BARE_REPO);
    expect(gets.map((entry) => entry.status)).toEqual([404, 404, 404, 404, 404, 404]);
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: testInfo.outputPath(`tokenizer-none-${width}.png`) });
    }
    watch.expectClean([/404/]);
  });

  test('a template that never ends: the load completes, and the preview says it was stopped', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const endless = '{% for i in range(100000000000) %}{% endfor %}never';
    await drop(page, {
      'model.safetensors': TINY_MODEL,
      'tokenizer_config.json': { ...llama3TokenizerConfig(), chat_template: endless },
    });
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    // The sample render in the parser worker was stopped too: the report completed, with the tokenizer section.
    await expect(page.getByTestId('verdict-pending')).toHaveCount(0);
    await page.getByRole('tab', { name: 'Tokenizer' }).click();
    await expect(page.getByTestId('chat-preview-error')).toHaveText(
      'The template did not finish rendering within 2 s and was stopped: it loops for too long, or for ever, on the sample conversation.',
    );
    await expect(page.getByTestId('turn-end')).toHaveCount(0);
    // The page stayed responsive: another tab opens at once.
    await page.getByRole('tab', { name: 'Dtypes' }).click();
    await expect(page.getByRole('tab', { name: 'Dtypes' })).toHaveAttribute('aria-selected', 'true');
    watch.expectClean();
  });

  test('compare: both sides’ tokenizer.json read on one click and set side by side', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const files = (folder: string) =>
      ['model.safetensors', 'tokenizer.json', 'tokenizer_config.json'].map((name) =>
        join(VOCABULARY_DIR, folder, name),
      );
    await page.getByTestId('file-input').first().setInputFiles(files('wordpiece-bert'));
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(files('unigram-t5'));
    await expect(page.getByTestId('compare-headline')).toBeVisible();
    const line = page.getByTestId('tokenizer-diff-vocabulary');
    await expect(line).toContainText('Both sides have a tokenizer.json');
    await expect(page.getByTestId('tokenizer-diff-fields')).not.toContainText('tokenizer.json model');
    await line.getByRole('button', { name: 'Read and compare every token' }).click();
    const fields = page.getByTestId('tokenizer-diff-fields');
    // A and B head their own columns, over an empty one for the row labels.
    await expect(fields.locator('thead th')).toHaveText(['', 'A', 'B']);
    await expect(fields.getByRole('row', { name: /tokenizer\.json model/ })).toContainText('WordPieceUnigram');
    await expect(fields.getByRole('row', { name: /tokenizer\(text\) gives/ })).toContainText('[CLS] $A [SEP]$A </s>');
    await expect(line).toHaveCount(0);
    // Two vocabularies trained apart: their ids hold other tokens from the first special one on.
    const tokens = page.getByTestId('vocabulary-diff');
    await expect(tokens).toContainText('A: 200 tokens (tokenizer.json, WordPiece), no merges.');
    await expect(tokens.getByTestId('vocabulary-diff-changed')).toContainText('Another token at the same id:');
    await expect(tokens.getByTestId('vocabulary-diff-merges')).toHaveCount(0);
    watch.expectClean();
  });

  test('compare: what a fine-tune changed in the tokenizer, dropped files read with the models; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await dropLlama3(page, false);
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(
      asInputFiles({
        'model.safetensors': TINY_MODEL,
        'tokenizer_config.json': tunedTokenizerConfig(),
        'generation_config.json': llama3GenerationConfig(true),
      }),
    );
    await expect(page.getByTestId('compare-headline')).toBeVisible();
    await expect(page.getByTestId('tokenizer-diff-fields')).toContainText('stops at251251, 254');
    await expect(page.getByTestId('tokenizer-diff-only-b')).toHaveText(
      'Added tokens only in B (1): <|python_tag|> (255)',
    );
    const template = page.getByTestId('tokenizer-diff-template');
    await expect(template).toContainText('Chat template “default” changed');
    await expect(template.locator('.diff-added')).toContainText([
      '+ {%- if tools %}',
      "+ {{- '<|python_tag|>' }}",
      '+ {%- endif %}',
    ]);
    await expect(template.locator('.diff-added')).toHaveCount(3);
    await expect(template.locator('.diff-removed')).toHaveCount(0);
    // The report carries the same comparison.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download report' }).click(),
    ]);
    const report = JSON.parse(readFileSync(await download.path(), 'utf8')) as {
      compare: { tokenizer: { fields: unknown[]; onlyInB: unknown[]; templates: Array<{ status: string }> } };
    };
    expect(report.compare.tokenizer.fields).toEqual([{ field: 'stops at', a: '251', b: '251, 254' }]);
    expect(report.compare.tokenizer.onlyInB).toEqual([{ id: 255, text: '<|python_tag|>', special: true }]);
    expect(report.compare.tokenizer.templates.map((entry) => entry.status)).toEqual(['changed']);
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 1000 });
      await page.getByRole('region', { name: 'Tokenizers' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: testInfo.outputPath(`tokenizer-compare-${width}.png`), fullPage: true });
    }
    watch.expectClean();
  });

  test('compare two repositories: no tokenizer file read until asked, then each side once', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/api/models/${HUB_ORG}/${BASE_REPO}/tree/main`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByLabel('URL to compare with').fill(`${ORIGIN_A}/hub/api/models/${HUB_ORG}/${TUNED_REPO}/tree/main`);
    await page.getByRole('button', { name: 'Compare URL' }).click();
    await expect(page.getByTestId('compare-headline')).toBeVisible();
    await expect(page.getByTestId('tokenizer-diff-pending')).toContainText(
      'The tokenizer files beside the models are not read until asked (A: 3 requests, B: 2 requests).',
    );
    expect(await tokenizerGets(BASE_REPO)).toEqual([]);
    expect(await tokenizerGets(TUNED_REPO)).toEqual([]);
    await page.getByRole('button', { name: 'Read them' }).click();
    await expect(page.getByTestId('tokenizer-diff-only-b')).toHaveText(
      'Added tokens only in B (1): <|python_tag|> (255)',
    );
    // A's template lives in chat_template.jinja, B's inside tokenizer_config.json: compared as the one each uses.
    await expect(page.getByTestId('tokenizer-diff-template')).toContainText('Chat template “default” changed');
    expect(await tokenizerGets(BASE_REPO)).toHaveLength(3);
    expect(await tokenizerGets(TUNED_REPO)).toHaveLength(2);
    watch.expectClean();
  });

  test('compare a GGUF with the transformers files it came from: its stale EOS named, what GGUF does not record left out', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    // The sample GGUF (llama.cpp's writer): <s> 1, </s> 2 as EOS, <|start|> 4, <|end|> 5, and a template without a
    // system turn.
    await openLocalFile(page, 'gguf/tiny-llama-Q4_K_M.gguf');
    await expect(page.getByTestId('file-name')).toHaveText('tiny-llama-Q4_K_M.gguf');
    await page.getByRole('tab', { name: 'Compare' }).click();
    const special = (content: string) => ({ content, lstrip: false, normalized: false, rstrip: false, special: true });
    const updated = {
      added_tokens_decoder: {
        0: special('<unk>'),
        1: special('<s>'),
        2: special('</s>'),
        3: special('<pad>'),
        4: special('<|start|>'),
        5: special('<|end|>'),
      },
      bos_token: '<s>',
      eos_token: '<|end|>',
      pad_token: '<pad>',
      chat_template:
        "{% for message in messages %}{{ '<|start|>' + message['role'] + '\\n' + message['content'] + '<|end|>\\n' }}" +
        "{% endfor %}{% if add_generation_prompt %}{{ '<|start|>assistant\\n' }}{% endif %}",
      tokenizer_class: 'PreTrainedTokenizerFast',
      model_max_length: 2048,
    };
    await page.getByTestId('compare-file-input').setInputFiles(
      asInputFiles({
        'model.safetensors': TINY_MODEL,
        'tokenizer_config.json': updated,
      }),
    );
    await expect(page.getByTestId('compare-headline')).toBeVisible();
    const fields = page.getByTestId('tokenizer-diff-fields');
    await expect(fields).toContainText('EOS token</s> (2)<|end|> (5)');
    // A GGUF has no tokenizer class or maximum length: not shown as differences.
    await expect(fields).not.toContainText('tokenizer class');
    await expect(fields).not.toContainText('max length');
    // The template is the same text in both (the converter copied it).
    await expect(page.getByText('Same chat template: default.')).toBeVisible();
    watch.expectClean();
  });

  test('compare tokenizer.json with GGUF conversions by gguf-py, token by token: a stale one’s mistakes named; screenshots', async ({
    page,
  }, testInfo) => {
    const watch = watchPage(page);
    await openApp(page);
    await dropFiles(page, join(VOCABULARY_DIR, 'bpe-llama3'), [
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Compare' }).click();
    // Two ids with other texts, the last added token missing, merges 10 and 11 swapped.
    await page.getByTestId('compare-file-input').setInputFiles(join(VOCABULARY_DIR, 'bpe-llama3-stale.gguf'));
    await expect(page.getByTestId('compare-headline')).toBeVisible();
    const line = page.getByTestId('tokenizer-diff-vocabulary');
    await expect(line).toContainText('A has a tokenizer.json (');
    await expect(line).toContainText('(a GGUF as llama.cpp reads it)');
    await line.getByRole('button', { name: 'Read and compare every token' }).click();
    const tokens = page.getByTestId('vocabulary-diff');
    await expect(tokens).toContainText(
      'A: 406 tokens (tokenizer.json, BPE), 144 merges. B: 405 tokens (GGUF, gpt2, pre-tokenizer gpt-2), 144 merges.',
    );
    await expect(tokens.getByTestId('vocabulary-diff-counts')).toHaveText('403 ids hold the same text on both sides.');
    await expect(tokens.getByTestId('vocabulary-diff-changed')).toContainText('Another token at the same id: 2 (');
    await expect(tokens.locator('tbody tr')).toHaveText(['40"I""Ix"', '41"J""Jx"']);
    await expect(tokens.getByTestId('vocabulary-diff-only-a')).toHaveText(
      'Ids only A has a token for (1): "<think>" (405)',
    );
    await expect(tokens.getByTestId('vocabulary-diff-only-b')).toHaveCount(0);
    await expect(tokens.getByTestId('vocabulary-diff-merges')).toContainText(
      'Merges differ: 2 ranks hold another merge, 0 only in A, 0 only in B',
    );
    await expect(tokens.getByTestId('vocabulary-diff-merges')).toContainText('the first at rank 10:');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download report' }).click(),
    ]);
    const report = JSON.parse(readFileSync(await download.path(), 'utf8')) as {
      compare: { vocabulary: { changed: { count: number }; onlyInA: { count: number }; merges: { reranked: number } } };
    };
    expect(report.compare.vocabulary.changed.count).toBe(2);
    expect(report.compare.vocabulary.onlyInA.count).toBe(1);
    expect(report.compare.vocabulary.merges.reranked).toBe(2);
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.getByTestId('vocabulary-diff').scrollIntoViewIfNeeded();
      await page.locator('.tokenizer-diff').screenshot({ path: testInfo.outputPath(`vocabulary-diff-${width}.png`) });
    }

    // The faithful conversion: A's tokenizer.json is read now, so one click compares.
    await page.getByTestId('compare-file-input').setInputFiles(join(VOCABULARY_DIR, 'bpe-llama3.gguf'));
    await expect(page.getByTestId('compare-b-name')).toContainText('bpe-llama3.gguf');
    await expect(page.getByTestId('tokenizer-diff-vocabulary')).toContainText('Both sides list their tokens');
    await page.getByRole('button', { name: 'Compare every token' }).click();
    await expect(page.getByTestId('vocabulary-diff-same')).toHaveText(
      'Every token is the same: 406 ids hold the same text on both sides, 3 empty ids filled as [PAD<id>] by the converter. The merges are in the same order.',
    );
    watch.expectClean();
  });

  test('compare: one text encoded by both sides’ tokenizer.json, where the ids part marked', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const folder = join(VOCABULARY_DIR, 'bpe-llama3');
    const files = ['model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
    await dropFiles(page, folder, files);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors');
    await page.getByRole('tab', { name: 'Compare' }).click();
    // B: the same files, its post-processor gone, so tokenizer(text) adds no <|begin_of_text|>.
    const tokenizer = JSON.parse(readFileSync(join(folder, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
    await page.getByTestId('compare-file-input').setInputFiles(
      asInputFiles({
        'model.safetensors': readFileSync(join(folder, 'model.safetensors')),
        'tokenizer.json': { ...tokenizer, post_processor: null },
        'tokenizer_config.json': readFileSync(join(folder, 'tokenizer_config.json')),
      }),
    );
    await expect(page.getByTestId('compare-headline')).toBeVisible();
    await page.getByRole('button', { name: 'Read and compare every token' }).click();
    await expect(page.getByTestId('vocabulary-diff-same')).toBeVisible();
    const both = page.getByTestId('encode-both');
    await expect(both.getByTestId('encode-both-verdict')).toHaveText(
      /^A (\d+) tokens, B (\d+) tokens: they part at token 1; 1 token of A and 0 tokens of B differ \(marked\)\.$/,
    );
    const idsA = await both.getByTestId('encode-both-a').locator('.encode-text-id').allTextContents();
    const idsB = await both.getByTestId('encode-both-b').locator('.encode-text-id').allTextContents();
    expect(idsA[0]).toBe('400');
    expect(idsB).toEqual(idsA.slice(1));
    await expect(both.getByTestId('encode-both-a').locator('.encode-text-differs')).toHaveCount(1);
    await expect(both.getByTestId('encode-both-b').locator('.encode-text-differs')).toHaveCount(0);
    // Another text: encoded again on both sides, parting the same way.
    await both.getByRole('textbox').fill('fox');
    await expect
      .poll(async () => {
        const a = await both.getByTestId('encode-both-a').locator('.encode-text-piece').allTextContents();
        const b = await both.getByTestId('encode-both-b').locator('.encode-text-piece').allTextContents();
        return [a.join(''), b.join('')];
      })
      .toEqual(['<|begin_of_text|>fox', 'fox']);
    watch.expectClean();
  });

  test('compare two GGUFs: their own token lists on one click, a missing pre-tokenizer named', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(VOCABULARY_DIR, 'bpe-llama3.gguf'));
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(join(VOCABULARY_DIR, 'broken-no-merges.gguf'));
    await expect(page.getByTestId('tokenizer-diff-vocabulary')).toContainText('Both sides list their tokens');
    await page.getByRole('button', { name: 'Compare every token' }).click();
    await expect(page.getByTestId('vocabulary-diff-pre')).toHaveText(
      'The pre-tokenizers differ (A gpt-2, B none): llama.cpp cuts text into words otherwise before BPE, so the same text can get other tokens even over one vocabulary.',
    );
    await expect(page.getByTestId('vocabulary-diff-merges')).toHaveText(
      'Merges not compared: B keeps none (a SentencePiece or WordPiece tokenizer ranks its tokens by score or by length instead).',
    );
    watch.expectClean();
  });

  test('compare: a side whose tokenizer.json is not one says why no token is compared', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const folder = join(VOCABULARY_DIR, 'bpe-llama3');
    await dropFiles(page, folder, ['model.safetensors', 'tokenizer.json']);
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(
      asInputFiles({
        'model.safetensors': readFileSync(join(folder, 'model.safetensors')),
        'tokenizer.json': { version: '1.0' },
      }),
    );
    await page.getByRole('button', { name: 'Read and compare every token' }).click();
    await expect(page.getByTestId('tokenizer-diff-vocabulary-problem')).toHaveText(
      'Tokens not compared. B: tokenizer.json has no "model" object: it is not a tokenizer.json the tokenizers library writes.',
    );
    await expect(page.getByTestId('vocabulary-diff')).toHaveCount(0);
    watch.expectClean();
  });

  test('compare a WordPiece tokenizer.json with its GGUF: the converter’s ▁ and ## spelling is not a difference', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(VOCABULARY_DIR, 'wordpiece-bert.gguf'));
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page
      .getByTestId('compare-file-input')
      .setInputFiles(
        ['model.safetensors', 'tokenizer.json'].map((name) => join(VOCABULARY_DIR, 'wordpiece-bert', name)),
      );
    await expect(page.getByTestId('compare-headline')).toBeVisible();
    await page.getByRole('button', { name: 'Read and compare every token' }).click();
    await expect(page.getByTestId('vocabulary-diff-same')).toHaveText(
      "Every token is the same: 5 ids hold the same text on both sides, 195 more in llama.cpp's spelling (▁ before a word, no ## on a continuation, a space for an added token's ▁).",
    );
    watch.expectClean();
  });
});
