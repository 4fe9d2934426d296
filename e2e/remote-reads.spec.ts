/**
 * Issue 14, what the remote reads were for: analyses that want more of the data region than the remote budget
 * allows say "sampled N of M" on screen and in the report, the server sees only bounded reads, and kohya's declared
 * alpha is confirmed by a sample instead of read from every tensor.
 */
import { expect, test, type Page } from '@playwright/test';
import { COMFY_SAMPLED_LAYERS, KOHYA_SPREAD_MODULES } from '../src/testing/remote-sampling-fixtures';
import { downloadReport, openApp, ORIGIN_A, serverLog, uniqueTag, watchPage } from './helpers';

/**
 * io/analysis-spans.ts: spans per load, bytes per span, bytes per file. The test server speaks HTTP/1.1, where the
 * spans are two rounds on the browser's six connections per host (core/limits.ts HTTP1_MAX_SPANS).
 */
const MAX_SPANS = 12;
const MAX_SPAN_BYTES = 64 * 1024;
const MAX_FILE_BYTES = 256 * 1024;

async function openUrl(page: Page, url: string): Promise<void> {
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}

test.describe('remote analysis reads', () => {
  test('266 comfy_quant configs 256 KiB apart: "sampled 12 of 266 configs" on screen, in the report, bounded on the wire', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const tag = uniqueTag('comfy-sampled');
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/range/comfy-int8-266-configs.safetensors?t=${tag}`);
    const words = `sampled ${MAX_SPANS} of ${COMFY_SAMPLED_LAYERS} configs`;
    await expect(page.getByTestId('verdict-clauses')).toContainText(`on ${COMFY_SAMPLED_LAYERS} quantized matrices`);
    await expect(page.getByTestId('verdict-clauses')).toContainText(`bits/weight, format from ${words}`);
    await expect(page.getByTestId('bytes-read')).toContainText(words);

    await page.getByRole('tab', { name: 'Quantization' }).click();
    await expect(page.getByTestId('quant-config-sample')).toContainText(words);
    const configs = page.getByRole('table', { name: 'Per-layer quantization configs' });
    await expect(configs.getByRole('row').nth(1)).toContainText(String(MAX_SPANS));

    const report = await downloadReport(page);
    expect(report.quantization).toMatchObject({
      configSample: { read: MAX_SPANS, of: COMFY_SAMPLED_LAYERS, noun: 'config', sampled: true },
      confidence: 'medium',
    });
    expect(report.dataReads).toMatchObject({ tensors: MAX_SPANS, sampled: true });

    // The server saw the header read(s), then one bounded request per sampled config.
    const log = await serverLog((entry) => entry.path.includes(tag) && entry.method === 'GET');
    const dataReads = log.filter((entry) => entry.bytesSent < 1024);
    expect(dataReads).toHaveLength(MAX_SPANS);
    expect(log.length - MAX_SPANS).toBeLessThanOrEqual(2);
    for (const entry of dataReads) {
      const [start, end] = (entry.range ?? '').replace('bytes=', '').split('-').map(Number);
      expect(end - start + 1).toBeLessThanOrEqual(MAX_SPAN_BYTES);
    }
    expect(dataReads.reduce((sum, entry) => sum + entry.bytesSent, 0)).toBeLessThanOrEqual(MAX_FILE_BYTES);
    watch.expectClean();
  });

  test('a kohya LoRA: ss_network_alpha is used and 8 alphas confirm it; without it the alphas are read', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    const declaredTag = uniqueTag('kohya-declared');
    await openUrl(page, `${ORIGIN_A}/range/kohya-40-alphas.safetensors?t=${declaredTag}`);
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByTestId('lora-alpha')).toHaveText('32 (from metadata)');
    await expect(page.getByTestId('lora-alpha-sample')).toHaveText(
      `sampled 8 of ${KOHYA_SPREAD_MODULES} alphas, to confirm the metadata`,
    );
    const declared = await serverLog((entry) => entry.path.includes(declaredTag) && entry.method === 'GET');

    const undeclaredTag = uniqueTag('kohya-undeclared');
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/range/kohya-40-alphas-undeclared.safetensors?t=${undeclaredTag}`);
    await page.getByRole('tab', { name: 'Model' }).click();
    await expect(page.getByTestId('lora-alpha')).toHaveText('32 (from tensors)');
    await expect(page.getByTestId('lora-alpha-sample')).toHaveText(
      `sampled ${MAX_SPANS} of ${KOHYA_SPREAD_MODULES} alphas`,
    );
    const undeclared = await serverLog((entry) => entry.path.includes(undeclaredTag) && entry.method === 'GET');

    // Header request(s) plus 8 confirming reads, against plus 12 (the span cap) when alpha must be discovered.
    expect(declared.length).toBeLessThanOrEqual(2 + 8);
    expect(undeclared.length).toBeGreaterThanOrEqual(1 + MAX_SPANS);
    expect(declared.length).toBeLessThan(undeclared.length);
    watch.expectClean();
  });

  test('a remote shard set: what each request was for, on screen and in the report, sums to the server log', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const tag = uniqueTag('purposes');
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/shards/${tag}/shards-clean/model.safetensors.index.json`);
    await expect(page.getByTestId('file-name')).toHaveText('model.safetensors.index.json', { timeout: 30_000 });
    await expect(page.getByTestId('verdict-pending')).toHaveCount(0, { timeout: 30_000 });

    await page.getByTestId('network-breakdown-toggle').click();
    const table = page.getByTestId('network-breakdown');
    await expect(table.locator('[data-purpose="index"]')).toContainText('1 request');
    await expect(table.locator('[data-purpose="header"]')).toContainText('163 requests');

    const report = await downloadReport(page);
    const log = await serverLog(tag);
    const network = report.network as {
      requests: number;
      bytesFetched: number;
      roundTrips: number;
      byPurpose: Record<string, { requests: number; bytesFetched: number; roundTrips: number }>;
    };
    expect(network.requests).toBe(log.length);
    expect(network.bytesFetched).toBe(log.reduce((sum, entry) => sum + entry.bytesSent, 0));
    const purposes = Object.values(network.byPurpose);
    expect(purposes.reduce((sum, p) => sum + p.requests, 0)).toBe(log.length);
    expect(purposes.reduce((sum, p) => sum + p.bytesFetched, 0)).toBe(network.bytesFetched);
    expect(network.byPurpose.index.requests).toBe(log.filter((entry) => entry.path.endsWith('.index.json')).length);
    expect(network.byPurpose.header.requests).toBe(log.filter((entry) => entry.path.endsWith('.safetensors')).length);
    await expect(page.getByTestId('integrity')).toContainText(
      `in ${log.length} requests, ${network.roundTrips} round trips`,
    );
    watch.expectClean();
  });
});
