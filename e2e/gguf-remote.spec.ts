/**
 * GGUF over the network: a Hub repository of GGUF quants (the fake Hub of src/testing/servers/e2e-routes.ts), and a
 * GGUF whose header needs more than the first read, over the HTTP/2 (TLS) bench server 50 ms away.
 */
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { GGML, buildGguf, str, strings, testTensorBytes, u32, type GgufTestValue } from '../src/testing/build-gguf';
import {
  GGUF_HUB_MODEL,
  GGUF_MOE_HUB_MODEL,
  ggufHubRepoFiles,
  ggufMoeHubRepoFiles,
} from '../src/testing/gguf-hub-repo';
import { GPUS } from '../src/core/analysis/memory/estimate';
import { startBenchServer, type BenchServer } from '../scripts/bench-remote-servers';
import { groupDigits } from '../src/core/number-format';
import { FIXTURES_DIR, openApp, ORIGIN_A, statValue, watchPage } from './helpers';

const HUB_ORG = 'lens-e2e';
const GGUF_REPO = 'llama-3.1-8b-gguf';

/** The header, then a sparse data region up to the file's full size. */
function writeSparse(file: string, head: Uint8Array, size: number): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, head);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
}

async function openUrl(page: Page, url: string): Promise<void> {
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}

test.describe('a Hub repository of GGUF files', () => {
  test.beforeAll(() => {
    for (const file of ggufHubRepoFiles()) {
      writeSparse(path.join(FIXTURES_DIR, 'hub', HUB_ORG, GGUF_REPO, file.path), file.head, file.size);
    }
  });

  test('lists its quants with size, bits per weight and fit; one click opens another', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/api/models/${HUB_ORG}/${GGUF_REPO}/tree/main`);
    // The repository opens its Q4_K_M file (header only), and that header sizes every quant.
    await expect(page.getByTestId('file-name')).toHaveText(`${GGUF_HUB_MODEL}-Q4_K_M.gguf`);
    const list = page.getByTestId('gguf-repo-files');
    await expect(list).toContainText(`3 quants, 3 fit RTX 4090 / L4 / A10 at ${groupDigits(4096)} tokens`);
    const row = (quant: string) => list.locator(`tr[data-quant="${quant}"]`);
    await expect(row('Q4_K_M')).toContainText(/Q4_K_M\s*4\.91 GB\s*4\.89\s*✔ fits/);
    await expect(row('Q8_0')).toContainText(/8\.53 GB\s*8\.50/);
    // A split set is one row, with its total size.
    await expect(row('BF16')).toContainText(/16\.1 GB\s*16\.00.*\(2 parts\)/);
    await expect(page.getByTestId('gguf-fit-basis')).toContainText(`${groupDigits(8_030_261_312)}, from the header of`);
    // At 128k tokens the f16 KV cache alone is 16 GiB: nothing fits 24 GB, everything fits an 80 GB H100.
    await list.getByRole('button', { name: '128k' }).click();
    await expect(row('Q4_K_M').getByTestId('gguf-fit')).toContainText('✖ needs');
    await expect(list).toContainText('3 quants, 0 fit RTX 4090');
    await list.getByTestId('gguf-fit-gpu').selectOption({ label: 'H100 / A100 (80 GB)' });
    await expect(list).toContainText('3 quants, 3 fit H100 / A100');
    await row('Q8_0').getByRole('button', { name: 'Open Q8_0' }).click();
    await expect(page.getByTestId('file-name')).toHaveText(`${GGUF_HUB_MODEL}-Q8_0.gguf`);
    await expect(page.getByTestId('verdict')).toContainText('Q8_0');
    await expect(row('Q8_0')).toContainText('open');
    // The context chosen stays with the list across the switch.
    await expect(list.getByRole('button', { name: '128k' })).toHaveAttribute('aria-pressed', 'true');
    watch.expectClean();
  });
});

test.describe('a Hub repository of mixture-of-experts GGUF quants', () => {
  const MOE_REPO = 'qwen3-30b-a3b-gguf';
  const files = ggufMoeHubRepoFiles();

  test.beforeAll(() => {
    for (const file of files) {
      writeSparse(path.join(FIXTURES_DIR, 'hub', HUB_ORG, MOE_REPO, file.path), file.head, file.size);
    }
  });

  test('offers a quant that does not fit whole the --n-cpu-moe that makes it fit', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/api/models/${HUB_ORG}/${MOE_REPO}/tree/main`);
    await expect(page.getByTestId('file-name')).toHaveText(`${GGUF_MOE_HUB_MODEL}-Q4_K_M.gguf`);
    const list = page.getByTestId('gguf-repo-files');
    const gpu = GPUS[0];
    await expect(list).toContainText(
      `2 quants, 1 fit RTX 4090 / L4 / A10 at ${groupDigits(4096)} tokens, 1 more with experts in RAM`,
    );
    // Each layer's share of a file in its routed experts, from the open Q4_K_M's own tensor bytes; Q8_0 is taken to
    // keep that share. What Q8_0 needs whole is the row's own exact figure (its title).
    const [q4, q8] = files;
    const bytesOf = (tensors: typeof q4.tensors, match: (name: string) => boolean) =>
      tensors.filter((t) => match(t.name)).reduce((sum, t) => sum + testTensorBytes(t.type, t.ne), 0);
    const expertsIn = (tensors: typeof q4.tensors, layer: number) =>
      bytesOf(tensors, (name) => name.startsWith(`blk.${layer}.`) && name.includes('_exps.'));
    const total = bytesOf(q4.tensors, () => true);
    const fitCell = list.locator('tr[data-quant="Q8_0"]').getByTestId('gguf-fit');
    const needed = Number(((await fitCell.getAttribute('title')) ?? '').split(' B needed')[0].replace(/\D/g, ''));
    expect(needed).toBeGreaterThan(gpu.capacityBytes);
    const layersFor = (experts: (layer: number) => number) => {
      let moved = 0;
      for (let layer = 0; layer < 48; layer++) {
        moved += experts(layer);
        if (needed - moved <= gpu.capacityBytes) {
          return { layers: layer + 1, moved };
        }
      }
      return null;
    };
    const estimate = layersFor((layer) => (q8.size * expertsIn(q4.tensors, layer)) / total);
    // Q8_0's own expert bytes (not read by the app: its header is never fetched) put the answer within a layer.
    const exact = layersFor((layer) => expertsIn(q8.tensors, layer));
    expect(estimate).not.toBeNull();
    expect(Math.abs((estimate?.layers ?? 0) - (exact?.layers ?? 0))).toBeLessThanOrEqual(1);
    // The figures as GiB (2^30 B) or MiB, to the digits shown.
    const shown = fitCell.getByTestId('gguf-fit-cpu-moe');
    await expect(shown).toHaveText(
      new RegExp(
        `^; fits with --n-cpu-moe ${estimate?.layers}: ≈ [0-9.]+ GiB of experts in RAM, [0-9.]+ (GiB|MiB) spare$`,
      ),
    );
    const [, moved, spare, unit] =
      /≈ ([0-9.]+) GiB .*, ([0-9.]+) (GiB|MiB) spare/.exec((await shown.textContent()) ?? '') ?? [];
    expect(Number(moved)).toBeCloseTo((estimate?.moved ?? 0) / 2 ** 30, 1);
    const spareBytes = gpu.capacityBytes - needed + (estimate?.moved ?? 0);
    expect(Number(spare)).toBeCloseTo(spareBytes / (unit === 'GiB' ? 2 ** 30 : 2 ** 20), 0);
    await expect(list.locator('tr[data-quant="Q4_K_M"]').getByTestId('gguf-fit-cpu-moe')).toHaveCount(0);
    await expect(page.getByTestId('gguf-fit-basis')).toContainText('--n-cpu-moe would keep in RAM');
    // Opened (its header only), the Memory tab sizes Q8_0 exactly: one click sets the fewest layers whose experts in
    // RAM bring the VRAM within the same GPU, one layer fewer would not; the list's estimate is within a layer.
    await list.locator('tr[data-quant="Q8_0"]').getByRole('button', { name: 'Open Q8_0' }).click();
    await expect(page.getByTestId('file-name')).toHaveText(`${GGUF_MOE_HUB_MODEL}-Q8_0.gguf`);
    await page.getByRole('tab', { name: 'Memory' }).click();
    // The tab opens at the model's own maximum context; the list sized its quants at 4,096 tokens.
    const memory = page.getByRole('region', { name: 'Memory' });
    await memory.getByRole('group', { name: 'Context presets' }).getByRole('button', { name: '4k' }).click();
    const fit = page.getByTestId('memory-cpu-moe-fit').getByRole('button', { name: /^Fit RTX 4090 \/ L4 \/ A10: / });
    const layers = Number(/--n-cpu-moe (\d+)$/.exec((await fit.textContent()) ?? '')?.[1]);
    expect(Math.abs(layers - (estimate?.layers ?? 0))).toBeLessThanOrEqual(1);
    await fit.click();
    const slider = page.getByTestId('memory-cpu-moe');
    await expect(slider).toHaveValue(String(layers));
    const vram = async () => Number(((await page.getByTestId('memory-vram-total').textContent()) ?? '').split(' ')[0]);
    expect((await vram()) * 2 ** 30).toBeLessThanOrEqual(gpu.capacityBytes + 0.005 * 2 ** 30);
    await slider.fill(String(layers - 1));
    await expect(slider).toHaveValue(String(layers - 1));
    expect((await vram()) * 2 ** 30).toBeGreaterThan(gpu.capacityBytes - 0.005 * 2 ** 30);
    watch.expectClean();
  });
});

test.describe('a Hub repository of GGUF LoRA adapters', () => {
  const ADAPTERS = 'llama-lora-gguf';

  test('opens an adapter, lists each as a LoRA adapter without a fit, and names what it opened', async ({ page }) => {
    const watch = watchPage(page);
    const dir = path.join(FIXTURES_DIR, 'hub', HUB_ORG, ADAPTERS);
    mkdirSync(dir, { recursive: true });
    const adapter = readFileSync(path.join(FIXTURES_DIR, 'gguf', 'tiny-llama-lora-F16.gguf'));
    writeFileSync(path.join(dir, 'Tiny-Llama-LoRA-F16.gguf'), adapter);
    writeFileSync(path.join(dir, 'Tiny-Llama-LoRA-Q8_0.gguf'), adapter);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/hub/api/models/${HUB_ORG}/${ADAPTERS}/tree/main`);
    await expect(page.getByTestId('file-name')).toHaveText('Tiny-Llama-LoRA-F16.gguf');
    await expect(page.getByTestId('verdict-clauses')).toContainText('llama.cpp adapter, rank 8 on 4 modules');
    const list = page.getByTestId('gguf-repo-files');
    await expect(list).toContainText('GGUF files in');
    await expect(list).toContainText('2 files');
    await expect(list.locator('tr[data-quant="Q8_0"]')).toContainText('LoRA adapter');
    await expect(list.locator('tr[data-quant="Q8_0"]').getByTestId('gguf-fit')).toHaveCount(0);
    // No model to fit on a GPU: no GPU or context inputs.
    await expect(list.getByTestId('gguf-fit-gpu')).toHaveCount(0);
    watch.expectClean();
  });
});

test.describe('a remote GGUF over HTTP/2, 50 ms away', () => {
  test.use({ ignoreHTTPSErrors: true });
  let root: string;
  let server: BenchServer;
  /** Where the header ends: the tensor data starts here. */
  let dataStart: number;

  test.beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'lens-gguf-h2-'));
    // 40,000 tokens: a 0.6 MB header, past the 128 KiB first read, so the reader must grow its reads.
    const tokens = Array.from({ length: 40_000 }, (_, i) => `token-${i.toString(36)}`);
    const file = {
      kvs: [
        ['general.architecture', str('llama')],
        ['general.name', str('Remote Llama')],
        ['llama.block_count', u32(1)],
        ['tokenizer.ggml.model', str('gpt2')],
        ['tokenizer.ggml.tokens', strings(tokens)],
      ] satisfies Array<[string, GgufTestValue]>,
      tensors: [
        { name: 'token_embd.weight', ne: [256, 512], type: GGML.Q8_0 },
        { name: 'blk.0.attn_norm.weight', ne: [256], type: GGML.F32 },
        { name: 'output.weight', ne: [256, 512], type: GGML.Q6_K },
      ],
    };
    dataStart = buildGguf({ ...file, dataBytes: 0 }).length;
    mkdirSync(path.join(root, 'gguf'), { recursive: true });
    writeFileSync(path.join(root, 'gguf', 'remote-llama.gguf'), buildGguf(file));
    server = await startBenchServer('h2', root);
  });

  test.afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('reads the header only, in few requests, and says so', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const first = server.log.length;
    await openUrl(page, `${server.origin}/files/gguf/remote-llama.gguf`);
    await expect(page.getByTestId('verdict')).toContainText('GGUF · llama · Remote Llama');
    await expect(page.getByTestId('stat-tensors')).toContainText('3');
    // The key-values are in the GGUF tab with their types: no empty Metadata tab beside it.
    await expect(page.getByRole('tab', { name: /^Metadata/ })).toHaveCount(0);
    await page.getByRole('tab', { name: 'GGUF' }).click();
    await expect(page.getByTestId('gguf-keys')).toContainText('tokenizer.ggml.tokens');
    await expect(page.getByTestId('gguf-keys')).toContainText(`[${groupDigits(40_000)}]`);
    const log = server.log.slice(first).filter((entry) => entry.method === 'GET');
    const sent = log.reduce((sum, entry) => sum + entry.bytes, 0);
    // What the page says is what the server sent: requests and bytes, all of them for the header.
    await expect(page.getByTestId('integrity')).toContainText(`in ${log.length} requests`);
    expect(await statValue(page, 'stat-bytes-read')).toBe(sent);
    expect(log.length).toBeLessThanOrEqual(3);
    await page.getByTestId('network-breakdown-toggle').click();
    const breakdown = page.getByTestId('network-breakdown');
    await expect(breakdown.locator('[data-purpose="header"]')).toContainText(`${log.length} requests`);
    await expect(breakdown.locator('[data-purpose="values"], [data-purpose="analysis"]')).toHaveCount(0);
    // No request starts in the data region, and the bytes past the header are at most the last read's margin.
    for (const entry of log) {
      expect(Number(/^bytes=(\d+)-/.exec(entry.range ?? '')?.[1])).toBeLessThan(dataStart);
    }
    expect(sent).toBeLessThanOrEqual(dataStart * 1.5);
    watch.expectClean();
  });
});
