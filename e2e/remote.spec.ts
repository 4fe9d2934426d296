import { expect, test, type Page } from '@playwright/test';
import { headerLengthOf, openApp, ORIGIN_A, ORIGIN_B, serverLog, statValue, uniqueTag, watchPage } from './helpers';

/** Each test tags its URLs with a unique query so parallel tests read only their own server log entries. */
function tagged(testName: string): string {
  return `t=${uniqueTag(testName)}`;
}

async function openUrl(page: Page, url: string): Promise<void> {
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}

test.describe('remote files', () => {
  test('a Range server with CORS: header only, counted requests and bytes, share link', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('range');
    await openApp(page);
    const url = `${ORIGIN_A}/range/big-sparse.safetensors?${tag}`;
    await openUrl(page, url);
    await expect(page.getByTestId('file-name')).toHaveText('big-sparse.safetensors');
    await expect(page.getByTestId('normalized-url')).toHaveText(url);
    expect(await statValue(page, 'stat-header')).toBe(headerLengthOf('big-sparse.safetensors'));
    await expect(page.getByTestId('integrity')).toContainText('in 1 request');
    await expect(page.getByTestId('bytes-read')).toContainText(/of 1\.94 GB/);

    const log = await serverLog(tag);
    expect(log).toHaveLength(1);
    expect(log[0].status).toBe(206);
    expect(log[0].range).toMatch(/^bytes=0-\d+$/);
    // The speculative prefix, never the weights.
    expect(log[0].bytesSent).toBeLessThanOrEqual(128 * 1024);
    expect(await statValue(page, 'stat-bytes-read')).toBe(log[0].bytesSent);

    await expect(page).toHaveURL(new RegExp(`\\?v=1&url=${encodeURIComponent(url).replace(/[.?*+()]/g, '\\$&')}`));
    watch.expectClean();
  });

  test('a header larger than the prefix takes exactly a second request', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('two-requests');
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/range/medium-header.safetensors?${tag}`);
    await expect(page.getByTestId('file-name')).toHaveText('medium-header.safetensors');
    const log = await serverLog(tag);
    expect(log.map((entry) => entry.status)).toEqual([206, 206]);
    const headerEnd = 8 + headerLengthOf('medium-header.safetensors') - 1;
    expect(log[1].range).toBe(`bytes=${128 * 1024}-${headerEnd}`);
    await expect(page.getByTestId('integrity')).toContainText('in 2 requests');
    watch.expectClean();
  });

  test('a server that ignores Range is refused before it sends the file', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('norange');
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/norange/big-sparse.safetensors?${tag}`);
    await expect(page.getByRole('alert')).toContainText('ignores Range requests');
    await expect(page.getByRole('alert')).toContainText(/refusing to download 1\.94 GB/);
    const log = await serverLog(tag);
    expect(log.length).toBeGreaterThanOrEqual(1);
    // The socket may have buffered a few MB before the client hung up; the file is 1.94 GB.
    for (const entry of log) {
      expect(entry.bytesSent).toBeLessThan(64 * 1024 * 1024);
    }
    watch.expectClean();
  });

  test('a cross-origin redirect just works', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('redirect');
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/redirect/clean.safetensors?${tag}`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    const log = await serverLog(tag);
    expect(log.some((entry) => entry.origin === 'A' && entry.status === 302)).toBe(true);
    expect(log.some((entry) => entry.origin === 'B' && entry.status === 206)).toBe(true);
    watch.expectClean();
  });

  test('a server without CORS headers is explained as CORS', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_B}/nocors/clean.safetensors?${tagged('nocors')}`);
    await expect(page.getByRole('alert')).toContainText(/CORS|cross-origin/i);
    await expect(page.getByRole('alert')).toContainText('code cors');
    // Chromium itself logs the blocked request; that is the browser reporting the server's fault, not ours.
    expect(watch.errors.filter((error) => !/CORS|Failed to load resource|net::ERR_FAILED/.test(error))).toEqual([]);
  });

  for (const [status, text] of [
    ['401', /Authentication required/],
    ['403', /Access denied/],
    ['404', /Not found/],
  ] as const) {
    test(`HTTP ${status} gets its own message`, async ({ page }) => {
      const watch = watchPage(page);
      await openApp(page);
      await openUrl(page, `${ORIGIN_A}/status/${status}/clean.safetensors?${tagged(status)}`);
      await expect(page.getByRole('alert')).toContainText(text);
      expect(watch.errors.filter((error) => !/Failed to load resource/.test(error))).toEqual([]);
    });
  }

  test('HTTP 500 is retried a bounded number of times, then explained', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('500');
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/status/500/clean.safetensors?${tag}`);
    await expect(page.getByRole('alert')).toContainText(/Server error/);
    const log = await serverLog(tag);
    expect(log.length).toBe(3);
    expect(watch.errors.filter((error) => !/Failed to load resource/.test(error))).toEqual([]);
  });

  test('a transient 500 recovers by retrying', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('flaky');
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/flaky500/clean.safetensors?${tag}`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    expect((await serverLog(tag)).map((entry) => entry.status)).toEqual([500, 206]);
    expect(watch.errors.filter((error) => !/Failed to load resource/.test(error))).toEqual([]);
  });

  test('a connection dropped mid-header resumes with Range', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('drop');
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/drop/clean.safetensors?${tag}`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    expect(await statValue(page, 'stat-header')).toBe(headerLengthOf('clean.safetensors'));
    await expect(page.getByTestId('integrity')).toContainText('reference loader accepts');
    expect((await serverLog(tag)).length).toBeGreaterThanOrEqual(2);
    expect(watch.errors.filter((error) => !/Failed to load resource|ERR_/.test(error))).toEqual([]);
  });

  test('a slow big header shows progress and can be cancelled', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/slow/moe-250k.safetensors?${tagged('slow')}`);
    const progress = page.getByRole('progressbar', { name: 'Loading progress' });
    await expect(progress).toBeVisible();
    await expect(page.locator('.load-progress')).toContainText(/of 33\.0 MB/);
    // The header streams: its first rows are on screen long before the last of its 33 MB arrives.
    const preview = page.getByRole('region', { name: 'First tensors (still loading)' });
    await expect(preview).toContainText('model.embed_tokens.weight');
    await expect(preview).toContainText('model.layers.0.mlp.experts.0.gate_proj.weight');
    await expect(progress).toBeVisible();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('alert')).toContainText('Loading cancelled');
    watch.expectClean();
  });

  test('a share link restores source and view; Back and Forward move between sources', async ({ page }) => {
    const watch = watchPage(page);
    const first = `${ORIGIN_A}/range/clean.safetensors?${tagged('share1')}`;
    const second = `${ORIGIN_A}/range/no-metadata.safetensors?${tagged('share2')}`;
    await openApp(page, `?v=1&url=${encodeURIComponent(first)}&q=mlp&sort=bytes:desc&panel=tensors&row=oops`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    await expect(page.getByRole('searchbox', { name: 'Filter tensors' })).toHaveValue('mlp');
    await expect(page.getByTestId('row-count')).toContainText('6 shown');
    await expect(page.getByRole('columnheader', { name: /Bytes/ })).toHaveAttribute('aria-sort', 'descending');
    await expect(page.getByText(/Ignored "row" in the link/)).toBeVisible();

    await openUrl(page, second);
    await expect(page.getByTestId('file-name')).toHaveText('no-metadata.safetensors');
    await page.goBack();
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    await page.goForward();
    await expect(page.getByTestId('file-name')).toHaveText('no-metadata.safetensors');
    watch.expectClean();
  });

  test('pasting a URL anywhere loads it', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const url = `${ORIGIN_A}/range/clean.safetensors?${tagged('paste')}`;
    await page.evaluate((text) => {
      const event = new ClipboardEvent('paste', { clipboardData: new DataTransfer(), bubbles: true });
      event.clipboardData?.setData('text/plain', text);
      document.body.dispatchEvent(event);
    }, url);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    watch.expectClean();
  });

  test('a token is never sent to a non-Hugging Face host, nor put in the link', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('token');
    await openApp(page);
    await page.getByRole('button', { name: /Token/ }).click();
    await page.getByPlaceholder('hf_…').fill('hf_secretTOKEN123');
    // The token popover floats over the results; Escape puts it away (the token stays set).
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog', { name: 'Hugging Face access token' })).toBeHidden();
    await expect(page.getByRole('button', { name: 'Token (set)' })).toBeVisible();
    await openUrl(page, `${ORIGIN_A}/range/clean.safetensors?${tag}`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    const log = await serverLog(tag);
    expect(log.every((entry) => entry.authorization === null)).toBe(true);
    expect(page.url()).not.toContain('hf_secret');
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain('hf_secret');
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain('hf_secret');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: /report/i }).click(),
    ]);
    const { readFileSync } = await import('node:fs');
    const report = readFileSync(await download.path(), 'utf8');
    expect(report).not.toContain('hf_secret');
    // The header, then the config.json beside the file, which the report reads on demand (none here: a 404).
    const network = JSON.parse(report).network;
    expect(network.requests).toBe(2);
    expect(network.byPurpose.sidecars.requests).toBe(1);
    const configReads = await serverLog((entry) => entry.path.startsWith('/range/config.json'));
    expect(configReads.length).toBeGreaterThan(0);
    expect(configReads.every((entry) => entry.authorization === null)).toBe(true);
    watch.expectClean();
  });

  test('a share link with a javascript: URL is refused with a message', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page, `?url=${encodeURIComponent('javascript:alert(1)')}`);
    await expect(page.getByText(/Ignored "url" in the link: the javascript: scheme is not allowed/)).toBeVisible();
    watch.expectClean();
  });
});
