/**
 * Issue 23, tensor values on demand: a local model with planted NaN / Inf / all-zero / outlier tensors (written by
 * numpy, scripts/values-fixtures.py) is scanned and read, with statistics equal to numpy's, and compared with its
 * finetune (exactly the two changed tensors named); a remote 64 MiB tensor
 * opened by a share link with values=1 is sampled, and downloaded whole only after the click that says its size.
 * LoRA adapters (PEFT dropped with its config, a GGUF LoRA over HTTP) give each module's update as numpy does. A GGUF
 * with one tensor of each ggml codebook type (IQ1_S … IQ3_S, written by gguf-py) reads as gguf-py dequantizes it,
 * and one with ggml's 1- and 2-bit types (Q1_0, Q2_0) as ggml's own dequantizers do (in numpy).
 */
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  downloadReport,
  FIXTURES_DIR,
  openApp,
  ORIGIN_A,
  readValuesOf,
  serverLog,
  uniqueTag,
  watchPage,
} from './helpers';
import { buildSafetensors } from '../src/testing/build-safetensors';
import { formatBytes, formatValue, groupDigits, plural } from '../src/core/number-format';
import { nonFiniteAnswers, present } from '../src/testing/values-fixtures';

const PLANTED = join(process.cwd(), 'fixtures', 'values', 'planted.safetensors');
/** A tiny llama in BF16 and its Q8_0 GGUF conversion (scripts/gguf-pair-fixtures.py). */
const PAIR_HF = join(process.cwd(), 'fixtures', 'values', 'tiny-llama-hf.safetensors');
const PAIR_GGUF = join(process.cwd(), 'fixtures', 'values', 'tiny-llama-Q8_0.gguf');
const NUMPY = JSON.parse(readFileSync(join(process.cwd(), 'fixtures', 'values', 'planted.json'), 'utf8')) as {
  stats: Record<string, Record<string, number>>;
};
const VALUES_DIR = join(process.cwd(), 'fixtures', 'values');
/** A Llama-3-like model whose chat tokens were never trained, and numpy's untrained rows of each file. */
const UNTRAINED = JSON.parse(readFileSync(join(VALUES_DIR, 'untrained-tokens.json'), 'utf8')) as {
  files: Record<
    string,
    { tensor: string; rows: number; untrained: number[]; tokens: Record<string, string>; inTemplate: number[] }
  >;
  chatFinetune: { changed: number; trained: number[]; inTemplate: number[] };
};
/**
 * GGUFs of one tensor per type (each IQ1/IQ2/IQ3 type at [16, 256]; Q1_0 and Q2_0 at [16, 512]), numpy's statistics
 * of their dequantized values, and each type's block.
 */
const BLOCK_TYPE_FILES = [
  { file: 'codebook-types', title: 'every codebook type (IQ1_S … IQ3_S)', values: '4 096', bytes: /\d+/ },
  { file: 'sign-types', title: 'ggml’s 1- and 2-bit types (Q1_0, Q2_0)', values: '8 192', bytes: /18/ },
].map((entry) => ({
  ...entry,
  numpy: JSON.parse(readFileSync(join(process.cwd(), 'fixtures', 'values', `${entry.file}.json`), 'utf8')) as {
    stats: Record<string, Record<string, number> & { type: string }>;
  },
}));
/** Elements per block of the types above (ggml-common.h). */
const BLOCK_ELEMENTS: Record<string, number> = { Q1_0: 128, Q2_0: 64 };
const MiB = 1024 * 1024;
/** LoRA adapters and numpy's ‖scale · B @ A‖_F per module (scripts/lora-update-fixtures.py). */
const LORA_DIR = join(process.cwd(), 'fixtures', 'values');
const LORA_ANSWERS = JSON.parse(readFileSync(join(LORA_DIR, 'lora-updates.json'), 'utf8')) as {
  files: Record<string, Record<string, { norm: number; scale: number; relative?: number; delta?: NumpyDelta }>>;
};

/** numpy's ΔW = scale · B @ A as "Compute ΔW" lays it out, rounded to float32. */
interface NumpyDelta {
  shape: number[];
  min: number;
  max: number;
  mean: number;
  std: number;
  zeros: number;
  first: number[];
}

/** The report's `loraUpdateValues` entry for `module` equals numpy's ΔW (float32 rounding apart). */
function expectNumpyDelta(report: Record<string, unknown>, file: string, module: string): void {
  const entries = report.loraUpdateValues as Array<{ module: string; shape: number[]; stats: Record<string, number> }>;
  const entry = entries.find((e) => e.module === module);
  const want = LORA_ANSWERS.files[file][module].delta as NumpyDelta;
  expect(entry?.shape).toEqual(want.shape);
  expect(entry?.stats.count).toBe(want.shape.reduce((a, b) => a * b, 1));
  expect(entry?.stats.zeros).toBe(want.zeros);
  for (const key of ['min', 'max', 'mean', 'std'] as const) {
    expect(Math.abs((entry?.stats[key] ?? NaN) - want[key]), key).toBeLessThanOrEqual(2 ** -22 * Math.abs(want[key]));
  }
}

interface ReportedUpdate {
  module: string;
  norm: number;
  scale: number;
  scaleSource: string;
}

/** Every module's norm and scale in the report equal numpy's (norms to 1e-6 relative). */
function expectNumpyUpdates(modules: readonly ReportedUpdate[], file: string): void {
  const want = LORA_ANSWERS.files[file];
  expect(modules.map((m) => m.module).sort()).toEqual(Object.keys(want).sort());
  for (const module of modules) {
    expect(module.scale, module.module).toBeCloseTo(want[module.module].scale, 12);
    expect(Math.abs(module.norm - want[module.module].norm), module.module).toBeLessThanOrEqual(
      1e-6 * want[module.module].norm,
    );
  }
}

test.describe('tensor values', () => {
  test('a local model: the scan finds the planted tensors, and a tensor’s statistics equal numpy’s', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(PLANTED);
    // Until values are asked for, only the parser worker runs; the first values request starts the slice worker.
    await expect(page.getByRole('button', { name: 'Scan all values' })).toBeVisible();
    expect(page.workers().map((worker) => worker.url())).toEqual([expect.stringContaining('parser.worker')]);
    const size = statSync(PLANTED).size;
    const headerBytes = 8 + Number(readFileSync(PLANTED).readBigUInt64LE(0));
    await expect(page.getByTestId('stat-bytes-read')).toHaveAttribute('data-value', String(headerBytes));
    await page.getByRole('button', { name: 'Scan all values' }).click();
    const result = page.getByTestId('scan-result');
    await expect(result).toContainText('Scanned 9 tensors');
    await expect.poll(() => page.workers().length).toBe(2);
    // The scan read every tensor once: the whole file is now read, and the status line says what for.
    await expect(page.getByTestId('stat-bytes-read')).toHaveAttribute('data-value', String(size));
    await expect(page.getByTestId('bytes-read')).toContainText(
      `read ${formatBytes(size)} of ${formatBytes(size)} (100%): header ${formatBytes(headerBytes)} + values ${formatBytes(size - headerBytes)}`,
    );
    await expect(page.getByTestId('scan-nan')).toContainText('model.layers.0.self_attn.q_norm.weight: 1 NaN');
    await expect(page.getByTestId('scan-inf')).toContainText('model.norm.weight: 1 +Inf');
    await expect(page.getByTestId('scan-zero').getByRole('listitem')).toHaveText(['model.layers.5.mlp.gate.bias']);
    await expect(page.getByTestId('scan-outliers').getByRole('listitem')).toHaveCount(1);
    await expect(page.getByTestId('scan-outliers')).toContainText('model.layers.3.mlp.down_proj.weight');
    // Across layers, layer 3's down_proj stands out by its abs-max, numpy's.
    const layers = page.getByTestId('scan-layers');
    await expect(layers.getByRole('combobox')).toHaveValue('0');
    await expect(layers.getByRole('combobox').locator('option').first()).toHaveText(
      'model.layers.#.mlp.down_proj.weight (6 layers)',
    );
    // No down_proj has a row or column all zeros: the zero-lines figure says so rather than drawing empty bars.
    await layers.getByRole('radio', { name: 'zero lines' }).check();
    await expect(page.getByTestId('scan-layers-flat')).toHaveText(
      'No layer has rows or columns all zeros for model.layers.#.mlp.down_proj.weight.',
    );
    // The value planted at [10, 20] of layer 3 makes column 20 an outlier input channel of that layer alone.
    await expect(page.getByTestId('scan-outlier-columns').getByRole('listitem')).toHaveCount(1);
    await expect(page.getByTestId('scan-outlier-columns')).toContainText(
      `model.layers.3.mlp.down_proj.weight: 1 of ${plural(128, 'column')} (20; up to`,
    );
    await layers.getByRole('radio', { name: 'outlier columns' }).check();
    await expect(page.getByTestId('scan-layers-chart').locator('rect title')).toHaveText(
      [0, 1, 2, 3, 4, 5].map((layer) => `layer ${layer}: outlier columns ${layer === 3 ? 1 : 0} over its tensor`),
    );
    await layers.getByRole('radio', { name: 'abs-max' }).check();
    const down = 'model.layers.3.mlp.down_proj.weight';
    await expect(page.getByTestId('scan-layers-chart').locator('rect title').nth(3)).toHaveText(
      `layer 3: abs-max ${formatValue(NUMPY.stats[down].absMax)} over its tensor`,
    );

    const name = 'model.layers.3.mlp.down_proj.weight';
    await page.getByText(name, { exact: true }).first().click();
    await page.getByRole('button', { name: 'Read values' }).click();
    await expect(page.getByTestId('values-read')).toContainText('All 8 192 values');
    await expect(page.getByTestId('values-heatmap')).toContainText('64 rows × 128 columns');

    const report = await downloadReport(page);
    const values = report.values as Array<{ tensor: string; stats: Record<string, number>; read: unknown }>;
    expect(values.map((entry) => entry.tensor)).toEqual([name]);
    const got = values[0].stats;
    const want = NUMPY.stats[name];
    for (const key of ['count', 'nan', 'posInf', 'negInf', 'zeros', 'min', 'max', 'absMax']) {
      expect(got[key], key).toBe(want[key]);
    }
    for (const key of ['mean', 'std']) {
      expect(Math.abs(got[key] - want[key]) / Math.abs(want[key]), key).toBeLessThan(1e-3);
    }
    expect(values[0].read).toMatchObject({ sampled: false, confirmed: false });
    expect(report.valueScan).toMatchObject({
      done: true,
      tensors: 9,
      nanTensors: ['model.layers.0.self_attn.q_norm.weight'],
      infTensors: ['model.norm.weight'],
      allZeroTensors: ['model.layers.5.mlp.gate.bias'],
    });

    // Its finetune (two tensors nudged by 1 %): Compare values names exactly those two.
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(PLANTED.replace('planted', 'planted-tuned'));
    await expect(page.getByTestId('compare-b-name')).toHaveText('planted-tuned.safetensors');
    await page.getByRole('button', { name: 'Compare values' }).click();
    await expect(page.getByTestId('compare-values-changed')).toHaveText('2 changed');
    const changed = page.getByTestId('compare-values-table').locator('tbody tr td:first-child');
    await expect(changed).toHaveText(['model.layers.1.mlp.down_proj.weight', 'model.layers.4.mlp.down_proj.weight']);
    await expect(page.getByTestId('compare-values-layers')).toBeVisible();

    // Across formats: a Hugging Face model against its Q8_0 GGUF, paired by llama.cpp's names, values dequantized.
    await page.getByTestId('file-input').first().setInputFiles(PAIR_HF);
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(PAIR_GGUF);
    await expect(page.getByTestId('compare-b-name')).toHaveText('tiny-llama-Q8_0.gguf');
    await page.getByRole('button', { name: 'Compare values' }).click();
    await expect(page.getByTestId('compare-values-changed')).toHaveText('14 changed');
    await expect(page.getByTestId('compare-values-result')).toContainText(
      '6 with values equal after decoding BF16 and decoding F32',
    );
    const q = page.getByTestId('compare-values-table').getByRole('row', { name: /layers\.0\.self_attn\.q_proj/ });
    await expect(q).toContainText('GGUF rows put back in Hugging Face order');
    await expect(q).toContainText('BF16 → Q8_0');
    watch.expectClean();
  });

  for (const { file, title, values, bytes, numpy } of BLOCK_TYPE_FILES) {
    test(`a GGUF of ${title}: scanned whole, each tensor’s statistics equal numpy’s`, async ({ page }) => {
      const watch = watchPage(page);
      const tensors = Object.keys(numpy.stats).length;
      await openApp(page);
      await page
        .getByTestId('file-input')
        .first()
        .setInputFiles(join(process.cwd(), 'fixtures', 'values', `${file}.gguf`));
      await page.getByRole('button', { name: 'Scan all values' }).click();
      await expect(page.getByTestId('scan-result')).toContainText(`Scanned ${tensors} tensors`);
      expect((await downloadReport(page)).valueScan).toMatchObject({ done: true, tensors, skipped: [] });

      for (const [name, want] of Object.entries(numpy.stats)) {
        await page.getByText(name, { exact: true }).first().click();
        await expect(page.getByTestId('tensor-details')).toContainText(want.type);
        await page.getByRole('button', { name: 'Read values' }).click();
        await expect(page.getByTestId('values-read')).toContainText(`All ${values} values`);
        // A block's values share its bytes: its first 8 are shown once, beside its first value.
        const block = BLOCK_ELEMENTS[want.type] ?? 256;
        const firstRows = page.getByTestId('values-first').locator('tbody tr');
        await expect(firstRows.first()).toContainText(
          new RegExp(`^0.* … \\(the first 8 of a ${bytes.source}-byte block of ${block} values\\)$`),
        );
        await expect(firstRows.nth(1)).toContainText('in the block above');
        const read = (await downloadReport(page)).values as Array<{ tensor: string; stats: Record<string, number> }>;
        const entry = present(read.find((candidate) => candidate.tensor === name));
        for (const key of ['count', 'nan', 'posInf', 'negInf', 'zeros', 'min', 'max', 'absMax']) {
          expect(entry.stats[key], `${want.type} ${key}`).toBe(want[key]);
        }
        for (const key of ['mean', 'std']) {
          expect(Math.abs(entry.stats[key] - want[key]), `${want.type} ${key}`).toBeLessThan(1e-6 * want.std);
        }
        await page.keyboard.press('Escape');
      }
      watch.expectClean();
    });
  }

  test('Llama 3’s untrained chat tokens: the scan names numpy’s rows and the tokens its chat template writes', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const want = UNTRAINED.files['untrained-tokens/model.safetensors'];
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(join(VALUES_DIR, 'untrained-tokens'));
    await page.getByRole('button', { name: 'Scan all values' }).click();
    const note = page.getByTestId('scan-untrained');
    await expect(note).toContainText(
      `model.embed_tokens.weight: ${want.untrained.length} of ${want.rows} token rows were never trained (ids ${want.untrained[0]}–${want.untrained[want.untrained.length - 1]})`,
    );
    const written = want.inTemplate.map((id) => `${want.tokens[String(id)]} (${id})`);
    await expect(page.getByTestId('scan-untrained-template')).toContainText(
      `The chat template writes ${want.inTemplate.length} of them: ${written.join(', ')}.`,
    );
    await note.getByText('Their tokens').click();
    await expect(page.getByTestId('scan-untrained-tokens').getByRole('listitem')).toHaveText(
      Object.entries(want.tokens).map(([id, text]) => `${id}: ${text}`),
    );
    expect((await downloadReport(page)).valueScan).toMatchObject({
      untrainedTokens: { tensor: want.tensor, count: want.untrained.length },
    });
    // Read values of the embedding alone says the same.
    await page.getByRole('grid', { name: 'Tensors' }).getByText(want.tensor, { exact: true }).click();
    await page.getByRole('button', { name: 'Read values' }).click();
    await expect(page.getByTestId('tensor-details').getByTestId('scan-untrained')).toContainText(
      `${want.untrained.length} of ${want.rows} token rows were never trained`,
    );
    await page.keyboard.press('Escape');

    // Against its chat fine-tune (the header tokens trained, <|eot_id|> not): the rows it taught and the one it did not.
    const chat = UNTRAINED.chatFinetune;
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-folder-input').setInputFiles(join(VALUES_DIR, 'untrained-tokens-chat'));
    await expect(page.getByTestId('compare-b-name')).toHaveText('model.safetensors');
    await page.getByRole('button', { name: 'Compare values' }).click();
    await expect(page.getByTestId('compare-embedding-rows')).toContainText(
      `model.embed_tokens.weight row by row: ${chat.changed} of ${want.rows} token rows changed.`,
    );
    await expect(page.getByTestId('compare-embedding-trained')).toContainText(
      `trained in B: ${chat.trained.map((id) => `${want.tokens[String(id)]} (${id})`).join(', ')}.`,
    );
    await expect(page.getByTestId('compare-embedding-untrained')).toContainText(
      `and B's chat template writes ${chat.inTemplate.map((id) => `${want.tokens[String(id)]} (${id})`).join(', ')}:`,
    );

    // Its GGUF: the file's own token list names every id, and the padded rows are counted as holding no token.
    const gguf = UNTRAINED.files['untrained-tokens.gguf'];
    await page.getByTestId('file-input').first().setInputFiles(join(VALUES_DIR, 'untrained-tokens.gguf'));
    await expect(page.getByTestId('file-name')).toHaveText('untrained-tokens.gguf');
    await page.getByRole('button', { name: 'Scan all values' }).click();
    await expect(page.getByTestId('scan-untrained')).toContainText(
      `${gguf.untrained.length - Object.keys(gguf.tokens).length} of them hold no token in the GGUF's token list`,
    );
    await expect(page.getByTestId('scan-untrained-template')).toContainText(written.join(', '));
    watch.expectClean();
  });

  test('a passthrough merge: the scan says which layers are copies, and lists numpy’s equal tensors', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const answer = JSON.parse(readFileSync(join(VALUES_DIR, 'passthrough-merge.json'), 'utf8')) as {
      groups: string[][];
    };
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(VALUES_DIR, 'passthrough-merge.safetensors'));
    await page.getByRole('button', { name: 'Scan all values' }).click();
    await expect(page.getByTestId('scan-repeated-layers')).toHaveText(
      /^model\.layers\.4–5 hold the same values as model\.layers\.2–3, every compared tensor of each/,
    );
    await expect(page.getByTestId('scan-head-copy')).toContainText(
      'lm_head.weight holds the same values as model.embed_tokens.weight: the head is a copy of the token embedding',
    );
    // A merge of layers never trained: its norm weights are all still at 1.0, as numpy finds.
    const norms = (
      JSON.parse(readFileSync(join(VALUES_DIR, 'initial-norms.json'), 'utf8')) as {
        files: Record<string, { norms: number; atOne: string[] }>;
      }
    ).files['passthrough-merge.safetensors'];
    expect(norms.atOne).toHaveLength(norms.norms);
    await expect(page.getByTestId('scan-initial-norms')).toContainText(
      `Every norm weight (${norms.norms} tensors) is exactly 1.0 in every value`,
    );
    expect((await downloadReport(page)).valueScan).toMatchObject({
      initialNorms: { normTensors: norms.norms, atOne: norms.norms },
    });
    const duplicates = page.getByTestId('scan-duplicates');
    await duplicates.getByText(`${2 * answer.groups.length} tensors in ${answer.groups.length} groups`).click();
    const listed = await page.getByTestId('scan-duplicate-groups').getByRole('listitem').allTextContents();
    expect(listed.map((line) => line.split(' = ').sort()).sort()).toEqual(
      answer.groups.map((group) => [...group].sort()).sort(),
    );
    watch.expectClean();
  });

  test('an LM head config.json ties: the scan says whether loading drops trained values, as numpy says', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const answer = JSON.parse(readFileSync(join(VALUES_DIR, 'tied-head.json'), 'utf8')) as Record<
      string,
      { head: { std: number; absMax: number }; embedding: { std: number; absMax: number } }
    >;
    await openApp(page);
    await page.getByTestId('folder-input').first().setInputFiles(join(VALUES_DIR, 'tied-head-trained'));
    await expect(page.locator('li[data-code="config-head-ignored"]')).toBeVisible();
    await page.getByRole('button', { name: 'Scan all values' }).click();
    const trained = answer['tied-head-trained'];
    const note = page.getByTestId('scan-tied-head');
    await expect(note).toContainText(
      'lm_head.weight holds other values than model.embed_tokens.weight (std ' +
        `${formatValue(trained.head.std)} against ${formatValue(trained.embedding.std)}, abs-max ` +
        `${formatValue(trained.head.absMax)} against ${formatValue(trained.embedding.absMax)}), but config.json ` +
        'ties the two: transformers and vLLM use the embedding as the head, so these trained head values are dropped',
    );
    await expect(note).toHaveClass(/values-error/);
    expect((await downloadReport(page)).valueScan).toMatchObject({
      tiedHead: { head: 'lm_head.weight', embedding: 'model.embed_tokens.weight', sameValues: false },
    });

    // A head saved as the embedding upcast to F32: nothing is lost, and the duplicates note does not say it twice.
    await page.getByTestId('folder-input').first().setInputFiles(join(VALUES_DIR, 'tied-head-copy'));
    await page.getByRole('button', { name: 'Scan all values' }).click();
    await expect(page.getByTestId('scan-tied-head')).toContainText(
      'lm_head.weight holds the same values as model.embed_tokens.weight, and config.json ties the two: loading drops nothing',
    );
    await expect(page.getByTestId('scan-result')).toBeVisible();
    await expect(page.getByTestId('scan-head-copy')).toHaveCount(0);
    watch.expectClean();
  });

  test('a FLUX.1-shaped fine-tune: the change per layer keeps double and single blocks apart, numpy’s', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const answer = JSON.parse(readFileSync(join(VALUES_DIR, 'flux-blocks.json'), 'utf8')) as {
      relL2ByLayer: Record<string, number>;
    };
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(VALUES_DIR, 'flux-blocks.safetensors'));
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(join(VALUES_DIR, 'flux-blocks-tuned.safetensors'));
    await expect(page.getByTestId('compare-b-name')).toHaveText('flux-blocks-tuned.safetensors');
    await page.getByRole('button', { name: 'Compare values' }).click();
    const chart = page.getByTestId('compare-values-layers');
    await expect(chart).toContainText('the bars run through double_blocks.0–2, then single_blocks.0–3');
    const titles = Object.entries(answer.relL2ByLayer).map(([layer, relL2]) => {
      const tensors = layer.startsWith('double') ? 6 : 2;
      return `${layer}: mean relative L2 ${formatValue(relL2)} over ${tensors} tensors`;
    });
    await expect(chart.locator('rect title')).toHaveText(titles);
    watch.expectClean();
  });

  test('NaN and infinities: Read values says where they are, as numpy’s argwhere lists them', async ({ page }) => {
    const watch = watchPage(page);
    const answers = nonFiniteAnswers();
    await openApp(page);
    for (const [file, tensors] of Object.entries(answers)) {
      await page.getByTestId('file-input').first().setInputFiles(join(VALUES_DIR, file));
      await expect(page.getByTestId('file-name')).toHaveText(file);
      for (const [name, want] of Object.entries(tensors)) {
        await readValuesOf(page, name);
        const note = page.getByTestId('values-non-finite');
        await expect(note).toContainText(`${groupDigits(want.count)} non-finite value`);
        const first = want.first.map(({ at, kind }) => `[${at.join(', ')}] ${kind}`).join(', ');
        await expect(page.getByTestId('values-non-finite-first')).toHaveText(first);
        await expect(note).toContainText(
          want.rows === 1 ? `in row [${want.first[0].at.slice(0, -1).join(', ')}] of` : ` of ${want.ofRows}`,
        );
        // A row whose every value is NaN (the embedding's token 17, the Q8_0 block with a NaN scale spans half a row).
        const rowLength = want.shape[want.shape.length - 1];
        if (want.count === want.rows * rowLength) {
          await expect(note).toContainText(': every value of that row.');
        } else {
          await expect(note).not.toContainText('every value');
        }
        const read = (await downloadReport(page)).values as Array<{ tensor: string; nonFinite?: unknown }>;
        // The GGUF's embedding: its own token list names the rows.
        if (want.tokens) {
          await expect(page.getByTestId('values-non-finite-tokens')).toHaveText(
            `The tokens of those rows (the GGUF's token list): ${want.tokens.map(({ id, text }) => `${text} (${id})`).join(', ')}.`,
          );
        } else {
          await expect(page.getByTestId('values-non-finite-tokens')).toHaveCount(0);
        }
        expect(read.find((entry) => entry.tensor === name)?.nonFinite).toEqual({
          first: want.first,
          rows: want.rows,
          ofRows: want.ofRows,
          ...(want.tokens ? { tokens: { origin: "the GGUF's token list", texts: want.tokens } } : {}),
        });
        await page.keyboard.press('Escape');
      }
    }

    // The scan lists the tensors holding them; one click shows those in the table, the first one's details open.
    await page.getByTestId('file-input').first().setInputFiles(join(VALUES_DIR, 'non-finite.safetensors'));
    await page.getByRole('button', { name: 'Scan all values' }).click();
    const infinite = Object.entries(answers['non-finite.safetensors'])
      .filter(([, want]) => want.first.some(({ kind }) => kind !== 'NaN'))
      .map(([name]) => name);
    await expect(page.getByTestId('scan-inf').getByRole('listitem')).toHaveCount(infinite.length);
    // Each listed tensor says where, as numpy's argwhere does: the embedding's one broken token row by its index.
    const embedding = answers['non-finite.safetensors']['model.embed_tokens.weight'];
    await expect(
      page.getByTestId('scan-nan').getByRole('listitem').filter({ hasText: 'model.embed_tokens.weight' }),
    ).toHaveText(
      `model.embed_tokens.weight: ${embedding.count} NaN in row [${embedding.first[0].at[0]}] of ${embedding.ofRows}: every value of that row`,
    );
    const positions = (await downloadReport(page)).valueScan as {
      nonFinitePositions: Array<{ tensor: string; first: unknown; rows: number; ofRows: number }>;
    };
    expect(Object.fromEntries(positions.nonFinitePositions.map(({ tensor, ...where }) => [tensor, where]))).toEqual(
      Object.fromEntries(
        Object.entries(answers['non-finite.safetensors']).map(([name, want]) => [
          name,
          { first: want.first, rows: want.rows, ofRows: want.ofRows },
        ]),
      ),
    );
    await page.getByTestId('scan-inf').getByRole('button', { name: 'Show in the table' }).click();
    await expect(page.getByText(`3 tensors · ${infinite.length} shown`)).toBeVisible();
    await expect(page.getByTestId('tensor-details')).toContainText(infinite[0]);
    watch.expectClean();
  });

  test('a PEFT adapter dropped with its config: each module’s update, scaled as PEFT scales it', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles(
        ['adapter_model.safetensors', 'adapter_config.json'].map((name) => join(LORA_DIR, 'lora-peft', name)),
      );
    await page.getByRole('button', { name: 'Scan all values' }).click();
    const summary = page.getByTestId('lora-updates-summary');
    await expect(summary).toContainText('for 6 modules');
    await expect(summary).toContainText(
      'alpha / rank with alpha from adapter_config.json lora_alpha (4 modules); alpha / rank from adapter_config.json alpha_pattern (2 modules)',
    );
    // Two layers: one bar each, and the three targets, v_proj (alpha 32 over rank 8) among them.
    await expect(page.getByTestId('lora-updates-chart').locator('rect')).toHaveCount(2);
    await expect(page.getByTestId('lora-updates-targets').locator('tbody tr')).toHaveCount(3);
    await expect(page.getByTestId('lora-updates-strongest').locator('tbody tr')).toHaveCount(6);
    const report = await downloadReport(page);
    const scan = report.valueScan as { loraUpdates: { modules: ReportedUpdate[]; unmeasured: number } };
    expect(scan.loraUpdates.unmeasured).toBe(0);
    expect(scan.loraUpdates.modules[0]).not.toHaveProperty('rows');
    expectNumpyUpdates(scan.loraUpdates.modules, 'lora-peft/adapter_model.safetensors');
    // The table's first row is the largest update, as numpy has it.
    const largest = Object.entries(LORA_ANSWERS.files['lora-peft/adapter_model.safetensors']).sort(
      (a, b) => b[1].norm - a[1].norm,
    )[0][0];
    await expect(page.getByTestId('lora-updates-strongest').locator('tbody tr').first()).toContainText(largest);
    // A module's name shows its two factors in the table, the first selected.
    await page.getByRole('button', { name: largest, exact: true }).click();
    await expect(page.getByTestId('row-count')).toContainText('2 shown');
    await expect(page.getByText(`LoRA module: ${largest}`)).toBeVisible();
    // Its details form the update itself: every value of ΔW, as numpy's scale · B @ A.
    await page.getByRole('button', { name: 'Compute ΔW' }).click();
    const delta = page.getByTestId('lora-delta-panel');
    await expect(delta.getByTestId('values-read')).toContainText(
      `All 4 096 values of ΔW = ${LORA_ANSWERS.files['lora-peft/adapter_model.safetensors'][largest].scale} · B·A`,
    );
    await expect(delta.getByTestId('values-heatmap')).toContainText('64 rows × 64 columns');
    expectNumpyDelta(await downloadReport(page), 'lora-peft/adapter_model.safetensors', largest);
    watch.expectClean();
  });

  test('a LyCORIS adapter: each LoKr and LoHa module’s update as its loaders form it, numpy’s', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(LORA_DIR, 'lora-lycoris.safetensors'));
    await page.getByRole('button', { name: 'Scan all values' }).click();
    const summary = page.getByTestId('lora-updates-summary');
    await expect(summary).toContainText('for 9 modules');
    await expect(page.getByTestId('lora-updates-lycoris')).toContainText(
      "5 LoKr modules: ΔW = scale · W1 ⊗ W2, whose norms are W1's times W2's; 3 LoHa modules",
    );
    await expect(page.getByTestId('lora-updates-lycoris')).toContainText('1 Tucker LoCon module: ΔW = scale · B·mid·A');
    await expect(page.getByTestId('lora-updates-unmeasured')).toHaveCount(0);
    await expect(summary).toContainText(
      '1 for LoKr modules whose halves are both stored whole, to which the loaders apply no alpha (1 module)',
    );

    const report = await downloadReport(page);
    const scan = report.valueScan as { loraUpdates: { modules: ReportedUpdate[]; unmeasured: number } };
    expect(scan.loraUpdates.unmeasured).toBe(0);
    expectNumpyUpdates(scan.loraUpdates.modules, 'lora-lycoris.safetensors');
    // The largest: its name shows its parts, and its details form its update, as numpy forms it.
    const answers = LORA_ANSWERS.files['lora-lycoris.safetensors'];
    const largest = Object.entries(answers).sort((a, b) => b[1].norm - a[1].norm)[0][0];
    await page.getByRole('button', { name: largest, exact: true }).click();
    await expect(page.getByText(`LoRA module: ${largest}`)).toBeVisible();
    await page.getByRole('button', { name: 'Compute ΔW' }).click();
    const delta = page.getByTestId('lora-delta-panel');
    const [rows, cols] = (answers[largest].delta as NumpyDelta).shape;
    await expect(delta.getByTestId('values-read')).toContainText(
      `All ${groupDigits(rows * cols)} values of ΔW = ${answers[largest].scale} · W1 ⊗ W2 formed from`,
    );
    await expect(delta.getByTestId('values-heatmap')).toContainText(`${rows} rows × ${cols} columns`);
    expectNumpyDelta(await downloadReport(page), 'lora-lycoris.safetensors', largest);
    watch.expectClean();
  });

  test('a GGUF LoRA over HTTP, scanned after the click that says its size: numpy’s updates', async ({ page }) => {
    const watch = watchPage(page);
    const dir = join(FIXTURES_DIR, 'lora-updates');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(LORA_DIR, 'lora-gguf.gguf'), join(dir, 'lora-gguf.gguf'));
    const tag = uniqueTag('lora-gguf');
    await openApp(page, `?v=1&url=${encodeURIComponent(`${ORIGIN_A}/range/lora-updates/lora-gguf.gguf?t=${tag}`)}`);
    await page.getByRole('button', { name: 'Scan all values' }).click();
    await page.getByRole('button', { name: /^Download .* and scan$/ }).click();
    const summary = page.getByTestId('lora-updates-summary');
    await expect(summary).toContainText('for 3 modules');
    await expect(summary).toContainText('alpha / rank with alpha from adapter.lora.alpha');
    await expect(page.getByTestId('lora-updates-targets')).toContainText('token_embd');
    const report = await downloadReport(page);
    const scan = report.valueScan as { loraUpdates: { modules: ReportedUpdate[] } };
    expectNumpyUpdates(scan.loraUpdates.modules, 'lora-gguf.gguf');
    // The token embedding's update, formed from its factors over HTTP: [vocab, dim] as the embedding holds it.
    await page.getByText('token_embd.weight.lora_b', { exact: true }).first().click();
    await page.getByRole('button', { name: 'Compute ΔW' }).click();
    const delta = page.getByTestId('lora-delta-panel');
    await expect(delta.getByTestId('values-read')).toContainText('All 6 144 values of ΔW = 2 · B·A');
    await expect(delta).toContainText('scale alpha 16 (adapter.lora.alpha) / rank 8');
    await expect(delta.getByTestId('values-heatmap')).toContainText('96 rows × 64 columns');
    const first = LORA_ANSWERS.files['lora-gguf.gguf'].token_embd.delta?.first[0] as number;
    await expect(delta.getByTestId('values-first').locator('tbody tr').first()).toContainText(
      String(Math.fround(first)).slice(0, 8),
    );
    expectNumpyDelta(await downloadReport(page), 'lora-gguf.gguf', 'token_embd');
    watch.expectClean();
  });

  test('Compute ΔW over HTTP past 16 MiB of factors: the bytes said first, read only on the second click', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const dir = join(FIXTURES_DIR, 'lora-delta-remote');
    mkdirSync(dir, { recursive: true });
    const specs = [
      { name: 'emb.lora_A.weight', dtype: 'F16', shape: [8, 1_100_000] },
      { name: 'emb.lora_B.weight', dtype: 'F16', shape: [4, 8] },
    ];
    writeFileSync(join(dir, 'adapter.safetensors'), buildSafetensors(specs, { fill: 0x3c }));
    const tag = uniqueTag('lora-delta-remote');
    await openApp(
      page,
      `?url=${encodeURIComponent(`${ORIGIN_A}/range/lora-delta-remote/adapter.safetensors?t=${tag}`)}`,
    );
    await expect(page.getByTestId('file-name')).toHaveText('adapter.safetensors');
    await page.getByText('emb.lora_B.weight', { exact: true }).first().click();
    const sent = async () =>
      (await serverLog((entry) => entry.path.includes(tag))).reduce((sum, entry) => sum + entry.bytesSent, 0);
    const afterLoad = await sent();
    await page.getByRole('button', { name: 'Compute ΔW' }).click();
    const panel = page.getByTestId('lora-delta-panel');
    await expect(panel.getByTestId('lora-delta-confirm')).toHaveText(
      'ΔW of emb needs its two factors whole: 17.6 MB by Range requests, more than the 16.8 MB read without asking.',
    );
    expect(await sent()).toBe(afterLoad);
    await panel.getByRole('button', { name: 'Read 17.6 MB and compute ΔW' }).click();
    await expect(panel.getByTestId('values-read')).toContainText(
      'All 4 400 000 values of ΔW = 1 · B·A formed from 17.6 MB',
    );
    expect(await sent()).toBeGreaterThanOrEqual(afterLoad + 17_600_064);
    watch.expectClean();
  });

  test('a LoRA against its base: Compare values gives each module’s update relative to its weight, as numpy does', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(PAIR_HF);
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page
      .getByTestId('compare-file-input')
      .setInputFiles(
        ['adapter_model.safetensors', 'adapter_config.json'].map((name) => join(LORA_DIR, 'lora-tiny-llama', name)),
      );
    await expect(page.getByTestId('lora-fit-verdict')).toContainText('This adapter fits this base');
    await page.getByRole('button', { name: 'Compare values' }).click();
    const summary = page.getByTestId('lora-relative-summary');
    await expect(summary).toContainText('The adapter (side B) moves its 6 modules by a median');
    await expect(page.getByTestId('lora-relative-layers').locator('rect')).toHaveCount(2);
    const targets = page.getByTestId('lora-relative-targets').locator('tbody td:first-child');
    await expect(targets).toHaveCount(3);
    expect((await targets.allTextContents()).sort()).toEqual(['down_proj', 'q_proj', 'v_proj']);
    const want = LORA_ANSWERS.files['lora-tiny-llama/adapter_model.safetensors'];
    const relative = (module: string) => want[module].relative ?? NaN;
    const largest = Object.keys(want).sort((a, b) => relative(b) - relative(a))[0];
    await expect(page.getByTestId('lora-relative-table').locator('tbody tr').first()).toContainText(largest);
    const report = await downloadReport(page);
    const lora = (report.compare as { valuesLora: { modules: Array<{ module: string; relative: number }> } })
      .valuesLora;
    expect(lora.modules).toHaveLength(6);
    for (const module of lora.modules) {
      expect(Math.abs(module.relative - relative(module.module)), module.module).toBeLessThanOrEqual(
        1e-6 * relative(module.module),
      );
    }
    watch.expectClean();
  });

  test('an adapter on the Hub: one click compares it with the base its config names, then how far it moves it', async ({
    page,
  }) => {
    const watch = watchPage(page);
    // A fake-Hub org of this test's own: the adapter names its base as an org/name repo id.
    const org = join(FIXTURES_DIR, 'hub', 'lens-lora-base');
    mkdirSync(join(org, 'adapter'), { recursive: true });
    mkdirSync(join(org, 'tiny-llama'), { recursive: true });
    copyFileSync(
      join(LORA_DIR, 'lora-tiny-llama', 'adapter_model.safetensors'),
      join(org, 'adapter', 'adapter_model.safetensors'),
    );
    const config = JSON.parse(readFileSync(join(LORA_DIR, 'lora-tiny-llama', 'adapter_config.json'), 'utf8')) as object;
    writeFileSync(
      join(org, 'adapter', 'adapter_config.json'),
      JSON.stringify({ ...config, base_model_name_or_path: 'lens-lora-base/tiny-llama' }),
    );
    copyFileSync(PAIR_HF, join(org, 'tiny-llama', 'model.safetensors'));
    mkdirSync(join(org, 'tiny-llama-copy'), { recursive: true });
    copyFileSync(PAIR_HF, join(org, 'tiny-llama-copy', 'model.safetensors'));
    await openApp(page);
    await page
      .getByRole('textbox', { name: 'URL of a model file' })
      .fill(`${ORIGIN_A}/hub/api/models/lens-lora-base/adapter/tree/main`);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByRole('tab', { name: 'Model' }).click();
    await page.getByTestId('lora-compare-base').click();
    await expect(page.getByTestId('compare-b-name')).toHaveText('model.safetensors');
    await expect(page.getByTestId('lora-fit-verdict')).toContainText('This adapter fits this base');
    await page.getByRole('button', { name: 'Compare values' }).click();
    await expect(page.getByTestId('lora-relative-summary')).toContainText('The adapter (side A) moves its 6 modules');
    const listings = await serverLog('/hub/api/models/lens-lora-base/tiny-llama/tree/main');
    expect(listings.length).toBeGreaterThan(0);
    // The base the config names: no note. Another repository with the same shapes fits too, and says it is not that one.
    await expect(page.getByTestId('lora-fit-declared-base')).toHaveCount(0);
    await page
      .getByRole('textbox', { name: 'URL to compare with' })
      .fill(`${ORIGIN_A}/hub/api/models/lens-lora-base/tiny-llama-copy/tree/main`);
    await page.getByRole('button', { name: 'Compare URL' }).click();
    await expect(page.getByTestId('lora-fit-verdict')).toContainText('This adapter fits this base');
    await expect(page.getByTestId('lora-fit-declared-base')).toContainText(
      "The adapter's config names lens-lora-base/tiny-llama as its base; B is lens-lora-base/tiny-llama-copy.",
    );
    watch.expectClean();
  });

  test('two runs of a LoRA: Compare values sets their updates side by side, rotated factors and all', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const adapter = (name: string) =>
      ['adapter_model.safetensors', 'adapter_config.json'].map((file) => join(LORA_DIR, name, file));
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(adapter('lora-tiny-llama'));
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(adapter('lora-tiny-llama-b'));
    await page.getByRole('button', { name: 'Compare values' }).click();
    await expect(page.getByTestId('lora-pair-summary')).toContainText('6 modules both adapt: median cosine');
    await expect(page.getByTestId('lora-pair-layers').locator('rect')).toHaveCount(2);
    // The factors one by one (layer 0's rotated, so all changed) fold away beneath the updates.
    const factors = page.getByTestId('compare-values-factors');
    await expect(factors.locator('summary')).toHaveText('The factor tensors one by one: 10 tensors, 9 changed');
    await expect(page.getByTestId('compare-values-table')).toBeHidden();
    // v_proj of layer 1 was drawn anew: the largest difference, first in the table.
    await expect(page.getByTestId('lora-pair-table').locator('tbody tr').first()).toContainText(
      'base_model.model.model.layers.1.self_attn.v_proj',
    );
    const report = await downloadReport(page);
    const pair = (report.compare as { valuesLoraPair: { modules: Array<{ module: string; cosine: number }> } })
      .valuesLoraPair;
    const want = LORA_ANSWERS.files['lora-tiny-llama-b/adapter_model.safetensors'] as unknown as Record<
      string,
      { cosine: number }
    >;
    expect(pair.modules).toHaveLength(6);
    for (const module of pair.modules) {
      expect(Math.abs(module.cosine - want[module.module].cosine), module.module).toBeLessThanOrEqual(1e-6);
    }
    watch.expectClean();
  });

  test('a remote 64 MiB tensor by share link: sampled, never downloaded without a click', async ({ page }) => {
    const watch = watchPage(page);
    const tag = uniqueTag('values-64mib');
    const url = `${ORIGIN_A}/range/values-64mib.safetensors?t=${tag}`;
    await openApp(page, `?v=1&url=${encodeURIComponent(url)}&row=0&values=1`);
    const read = page.getByTestId('values-read');
    await expect(read).toContainText('Sampled 512 of 4 096 rows');
    await expect(read).toContainText('8.39 MB of 67.1 MB');
    const sampled = await serverLog((entry) => entry.path.includes(tag) && entry.method === 'GET');
    const sampledBytes = sampled.reduce((sum, entry) => sum + entry.bytesSent, 0);
    // The header read(s) and the 8 MiB sample: nothing near the tensor's 64 MiB.
    expect(sampledBytes).toBeGreaterThanOrEqual(8 * MiB);
    expect(sampledBytes).toBeLessThan(9 * MiB);
    // Row r peaks at r (row 0 is all zeros): the sample's rows, then every row.
    const peaks = page.getByTestId('values-row-magnitudes');
    await expect(peaks).toContainText(/over 51[12] rows read, largest/);
    const [, largest, row] = /largest (\d+) in row ([\d\s]+),/u.exec((await peaks.textContent()) ?? '') ?? [];
    expect(Number(row.replace(/\s/gu, ''))).toBe(Number(largest));
    await expect(page.getByTestId('values-stats').locator('[data-stat="max"]')).toHaveText(largest);

    await page.getByRole('button', { name: 'Read all 67.1 MB' }).click();
    await expect(read).toContainText('All 16 777 216 values (67.1 MB) read on request');
    await expect(page.getByTestId('values-stats').locator('[data-stat="max"]')).toHaveText('4095');
    await expect(peaks).toContainText(
      `median 2048 over ${plural(4095, 'row')}, largest 4095 in row ${groupDigits(4095)}, 2.0× the median`,
    );
    const all = await serverLog((entry) => entry.path.includes(tag) && entry.method === 'GET');
    expect(all.reduce((sum, entry) => sum + entry.bytesSent, 0) - sampledBytes).toBe(64 * MiB);
    watch.expectClean();
  });
});
