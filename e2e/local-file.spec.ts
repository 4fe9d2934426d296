import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { FIXTURES, tinyLlamaTensors } from '../src/testing/fixture-manifest';
import { formatBytes } from '../src/core/number-format';
import {
  APP_ORIGIN,
  dropFile,
  fixturePath,
  headerLengthOf,
  openApp,
  openLocalFile,
  ORIGIN_A,
  statValue,
  watchPage,
} from './helpers';

const CLEAN_TENSORS = tinyLlamaTensors();
const CLEAN_PARAMS = CLEAN_TENSORS.reduce((sum, t) => sum + t.shape.reduce((p, d) => p * d, 1), 0);

test.describe('local file', () => {
  test('dropping a file shows summary, table, chart, metadata and findings', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await expect(page.getByText('Private by design')).toBeVisible();
    await dropFile(page, 'clean.safetensors', readFileSync(fixturePath('clean.safetensors')));

    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    const headerLength = headerLengthOf('clean.safetensors');
    expect(await statValue(page, 'stat-tensors')).toBe(CLEAN_TENSORS.length);
    expect(await statValue(page, 'stat-stored-elements')).toBe(CLEAN_PARAMS);
    expect(await statValue(page, 'stat-header')).toBe(headerLength);
    // Exactly the 8-byte prefix plus the header: the data region is never read.
    expect(await statValue(page, 'stat-bytes-read')).toBe(8 + headerLength);
    await expect(page.getByTestId('integrity')).toContainText('reference loader accepts');
    await expect(page.getByText('No problems found')).toBeVisible();

    // Table: header row plus rendered data rows; names and shapes as the Hub formats them.
    const table = page.getByRole('grid', { name: 'Tensors' });
    await expect(table.getByRole('row').filter({ hasText: 'model.embed_tokens.weight' })).toContainText('[256, 64]');
    await expect(page.getByTestId('row-count')).toContainText(`${CLEAN_TENSORS.length} shown`);

    await page.getByRole('tab', { name: 'Dtypes' }).click();
    const dtypeRow = page.getByRole('table', { name: 'Dtype totals' }).locator('tr[data-dtype="BF16"]');
    await expect(dtypeRow).toContainText(String(CLEAN_TENSORS.length));
    await expect(page.locator('.recharts-bar-rectangle').first()).toBeVisible();
    await page.getByRole('radio', { name: 'tensors' }).check();
    await expect(page.getByRole('radio', { name: 'tensors' })).toBeChecked();
    // The tooltip joins the chart with the first pointer in its box: a hover on the bar shows its dtype and value.
    const chart = page.getByRole('region', { name: 'Dtype chart' });
    await expect(chart.locator('.recharts-tooltip-wrapper')).toHaveCount(0);
    await chart.locator('.recharts-bar-rectangle').first().hover();
    const tooltip = chart.locator('.recharts-tooltip-wrapper');
    await expect(tooltip).toContainText('BF16');
    await expect(tooltip).toContainText(String(CLEAN_TENSORS.length));

    await page.getByRole('tab', { name: /Metadata/ }).click();
    const metadata = page.getByRole('region', { name: 'Metadata' });
    await expect(metadata.getByText('modelspec.architecture')).toBeVisible();
    // JSON-valued metadata is pretty-printed.
    await expect(metadata.locator('pre')).toContainText('"optimizer": {');
    await expect(metadata.getByRole('link', { name: 'https://example.com/tiny-llama' })).toBeVisible();

    // Nothing but the app's own assets was requested.
    const foreign = watch.requests.filter(
      (url) => !url.startsWith(APP_ORIGIN) && !url.startsWith('blob:') && !url.startsWith('data:'),
    );
    expect(foreign).toEqual([]);
    watch.expectClean();
  });

  test('files of other model formats say what they are: a whisper.cpp GGML model, an ONNX model', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    // whisper.cpp's ggml-base.en.bin opens with 'ggml' as a little-endian uint32, then its hyperparameters.
    const ggml = Buffer.concat([Buffer.from([0x6c, 0x6d, 0x67, 0x67, 0x33, 0xc3, 0x00, 0x00]), Buffer.alloc(4096)]);
    await dropFile(page, 'ggml-base.en.bin', ggml);
    await expect(page.locator('[data-code="legacy-ggml"]')).toContainText('whisper.cpp loads it as it is');
    await expect(page.locator('[data-code="header-too-large"]')).toHaveCount(0);
    const onnx = Buffer.concat([Buffer.from('\x08\x08\x12\x07pytorch\x1a\x052.1.0', 'latin1'), Buffer.alloc(4096)]);
    await dropFile(page, 'model.onnx', onnx);
    await expect(page.locator('[data-code="onnx-model"]')).toContainText('producer “pytorch”');
    watch.expectClean();
  });

  test('a config chosen alone says it opens with its model, and the load is marked done', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles({ name: 'adapter_config.json', mimeType: 'application/json', buffer: Buffer.from('{"r": 8}') });
    const card = page.getByRole('alert');
    await expect(card).toContainText('adapter_config.json is not a model file');
    await expect(card).toContainText("It is a model's companion file, read with the weights");
    await expect(card).toContainText('Source: adapter_config.json');
    await expect.poll(() => page.evaluate(() => performance.getEntriesByName('lens:load-done').length)).toBe(1);
    watch.expectClean();
  });

  test('a 1.9 GB file reads only 8 + N bytes', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'big-sparse.safetensors');
    const headerLength = headerLengthOf('big-sparse.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('big-sparse.safetensors');
    expect(await statValue(page, 'stat-bytes-read')).toBe(8 + headerLength);
    await expect(page.getByTestId('bytes-read')).toContainText(/read [\d.]+ KB of 1\.94 GB \(0\.000\d+%\)/);
    watch.expectClean();
  });

  test('filter, dtype filter and sort the table', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'clean.safetensors');
    const filter = page.getByRole('searchbox', { name: 'Filter tensors' });
    await filter.fill('/layers\\.1\\./');
    await expect(page.getByTestId('row-count')).toContainText('9 shown');
    await filter.fill('mlp');
    await expect(page.getByTestId('row-count')).toContainText('6 shown');
    await filter.fill('/[unclosed/');
    const regexError = page.getByRole('alert').filter({ hasText: 'Invalid regular expression' });
    await expect(regexError).toBeVisible();
    // One message, not the engine's own prefix repeated.
    await expect(regexError).toHaveText(/^Invalid regular expression \/\[unclosed\/: .+/);
    await expect(regexError).not.toHaveText(/Invalid regular expression.*Invalid regular expression/);
    await filter.press('Escape');
    await expect(page.getByTestId('row-count')).toContainText(`${CLEAN_TENSORS.length} shown`);

    await page.getByRole('columnheader', { name: /Bytes/ }).getByRole('button').click();
    const firstRow = page.getByRole('grid', { name: 'Tensors' }).getByRole('rowgroup').nth(1).getByRole('row').first();
    // The largest tensors first: embeddings and lm_head are 256 × 64.
    await expect(firstRow).toContainText(/embed_tokens|lm_head/);
    await expect(page.getByRole('columnheader', { name: /Bytes/ })).toHaveAttribute('aria-sort', 'descending');
    watch.expectClean();
  });

  for (const fixture of FIXTURES.filter((f) => f.expectCodes.length > 0)) {
    test(`damaged fixture ${fixture.file} shows ${fixture.expectCodes.join(', ')}`, async ({ page }) => {
      const watch = watchPage(page);
      await openApp(page);
      await openLocalFile(page, fixture.file);
      await expect(page.getByTestId('file-name').or(page.locator('.not-safetensors'))).toBeVisible();
      for (const code of fixture.expectCodes) {
        await expect(page.locator(`[data-code="${code}"]`).first()).toBeVisible();
      }
      if (!fixture.referenceAccepts) {
        await expect(page.getByText(/reference loader would refuse/)).toBeVisible();
      }
      watch.expectClean();
    });
  }

  test('clicking a finding selects its tensors', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'gap.safetensors');
    const finding = page.locator('[data-code="gap"]');
    await finding.getByRole('button', { name: /Show 2 tensors/ }).click();
    await expect(page.getByTestId('row-count')).toContainText('2 shown');
    await expect(page.getByRole('button', { name: /finding: gap/ })).toBeVisible();
    await page.getByRole('button', { name: /finding: gap/ }).click();
    watch.expectClean();
  });

  test('downloads the report, CSV and raw header', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'truncated.safetensors');
    await expect(page.getByTestId('file-name')).toBeVisible();
    // The data the header lays out runs past the file's end: the figure and the scan's offer say by how much.
    const pastEnd = 8 + headerLengthOf('truncated.safetensors') + (await statValue(page, 'stat-data-bytes'));
    const missing = formatBytes(pastEnd - (await statValue(page, 'stat-file-size')));
    await expect(page.getByTestId('stat-data-bytes')).toContainText(`(${missing} past the end)`);
    await expect(page.getByTestId('value-scan')).toContainText(`The file ends ${missing} before its tensors do`);

    const [reportDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: /report/i }).click(),
    ]);
    const report = JSON.parse(readFileSync(await reportDownload.path(), 'utf8'));
    expect(report.schemaVersion).toBe(1);
    expect(report.source).toEqual({ kind: 'file', name: 'truncated.safetensors' });
    expect(report.file.headerLength).toBe(headerLengthOf('truncated.safetensors'));
    expect(report.file.bytesRead).toBe(8 + headerLengthOf('truncated.safetensors'));
    expect(report.tensors.count).toBe(tinyLlamaTensors(1).length);
    expect(report.tensors.byDtype.BF16.tensors).toBe(tinyLlamaTensors(1).length);
    expect(report.referenceLoader).toBe('refuses');
    expect(report.findings.map((f: { code: string }) => f.code)).toContain('truncated');

    const [csvDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const csv = readFileSync(await csvDownload.path(), 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toBe('name,dtype,shape,elements,bytes,begin,end');
    expect(csv).toHaveLength(tinyLlamaTensors(1).length + 1);

    const [headerDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download header JSON' }).click(),
    ]);
    const headerJson = JSON.parse(readFileSync(await headerDownload.path(), 'utf8'));
    expect(Object.keys(headerJson)).toContain('model.embed_tokens.weight');
    watch.expectClean();
  });

  test('samples open without a file of your own', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await page.getByRole('button', { name: 'Damaged file' }).click();
    await expect(page.getByTestId('file-name')).toHaveText('damaged-truncated.safetensors');
    await expect(page.getByText(/reference loader would refuse/)).toBeVisible();
    watch.expectClean();
  });

  test('the first screen names every format; checkpoint samples by keyboard: title, focus, share link', async ({
    page,
    context,
  }) => {
    const watch = watchPage(page);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await openApp(page);
    await expect(page).toHaveTitle('Safetensors Lens');
    const formats = page.getByTestId('readable-formats');
    for (const ending of ['.safetensors', '.bin', '.pt', '.pth', '.ckpt', '.pkl']) {
      await expect(formats).toContainText(ending);
    }
    await expect(page.getByRole('textbox', { name: 'URL of a model file' })).toBeVisible();

    // Enter on a sample: the loaded view's heading takes the focus (the button is gone), the tab names the file.
    await page.getByRole('button', { name: 'PyTorch checkpoint' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('file-name')).toHaveText('pytorch_model.bin');
    await expect(page).toHaveTitle('pytorch_model.bin — Safetensors Lens');
    await expect(page.getByTestId('file-format')).toContainText('PyTorch checkpoint');
    await expect(page.locator('.result-head h2')).toBeFocused();

    // Its share link is one query on this page, and it opens the same sample.
    await expect(page.getByTestId('sample-share')).toBeVisible();
    await page.getByRole('button', { name: 'Copy link' }).click();
    await expect(page.getByRole('button', { name: 'Link copied' })).toBeVisible();
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(link).not.toContain('??');
    expect(new URL(link).searchParams.get('url')).toBe(`${APP_ORIGIN}/samples/pytorch_model.bin`);
    await page.goto(link);
    await expect(page.getByTestId('file-name')).toHaveText('pytorch_model.bin');
    await expect(page.getByTestId('normalized-url')).toHaveText(`${APP_ORIGIN}/samples/pytorch_model.bin`);

    // The hostile pickle sample: what it would run is on screen, and nothing ran.
    await openApp(page);
    await page.getByRole('button', { name: 'Hostile pickle' }).click();
    await expect(page.getByTestId('file-name')).toHaveText('hostile-os-system.pkl');
    await expect(page).toHaveTitle('hostile-os-system.pkl — Safetensors Lens');
    await expect(page.getByTestId('integrity')).toContainText('dangerous: loading this file would run code');

    // A source that fails to open closes the previous one: the tab title goes back to the app's name.
    await page.getByRole('textbox', { name: 'URL of a model file' }).fill(`${ORIGIN_A}/status/404/pytorch_model.bin`);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.getByRole('alert')).toContainText(/Not found/);
    await expect(page.getByTestId('file-name')).toHaveCount(0);
    await expect(page).toHaveTitle('Safetensors Lens');
    watch.expectClean([/Failed to load resource: the server responded with a status of 404/]);
  });
});

test('a filter regex that hangs is stopped, and the file comes back without it', async ({ page }) => {
  test.setTimeout(60_000);
  const watch = watchPage(page);
  await openApp(page);
  await openLocalFile(page, 'redos-bait.safetensors');
  await expect(page.getByTestId('row-count')).toContainText('2 shown');
  await page.getByRole('searchbox', { name: 'Filter tensors' }).fill('/(a+)+$/');
  await expect(page.getByTestId('table-notice')).toContainText('was stopped', { timeout: 20_000 });
  await expect(page.getByTestId('row-count')).toContainText('2 shown');
  await expect(page.getByRole('searchbox', { name: 'Filter tensors' })).toHaveValue('');
  // The replacement worker answers new queries.
  await page.getByRole('searchbox', { name: 'Filter tensors' }).fill('norm');
  await expect(page.getByTestId('row-count')).toContainText('1 shown');
  watch.expectClean();
});
