/**
 * Remote GGUF header benchmark (`npx tsx scripts/bench-gguf.ts [--short]`, part of `npm run bench`): a
 * Llama-3.1-8B Q4_K_M GGUF with a real-sized 7.8 MB header (128,256 tokens, 280,147 merges;
 * src/testing/gguf-bench-file.ts, written sparse into a temp dir) served by the HTTP/2 bench server
 * BENCH_LATENCY_MS away, read by Range in headless Chromium by `@huggingface/gguf` (the peer) and by the built app (ours,
 * `measureOurs` below), alternating, each in its own browser context. Reports the median time, requests, sequential round trips and bytes
 * against issue 22's targets: at most 4 sequential round trips and 1.5× the header bytes.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { writeLlama3BenchGguf, type BenchGguf } from '../src/testing/gguf-bench-file';
import { BENCH_LATENCY_MS, sequentialRoundTrips, startBenchServer, type BenchServer } from './bench-remote-servers';
import { CHROMIUM_ARGS, findChromium } from './find-chromium.mjs';
import { bundleForPage } from './bench-page-bundle';
import { startPreview, waitForServer } from './bench-page';

const DIST = process.env.BENCH_DIST ?? 'dist';
/** Its own port, so it can run beside scripts/bench-remote.ts's preview. */
const APP_PORT = Number(process.env.BENCH_GGUF_APP_PORT ?? 4292);

/** Runs per contestant; the median is reported. */
const RUNS = process.argv.includes('--short') ? 1 : 5;
/** Issue 22: an 8 MB header in at most this many sequential round trips at 50 ms… */
const TARGET_ROUND_TRIPS = 4;
/** …and at most this many times its bytes. */
const TARGET_BYTES_RATIO = 1.5;

interface Run {
  ms: number;
  /** The Range headers asked, in order. */
  ranges: string[];
  requests: number;
  roundTrips: number;
  bytes: number;
}

/**
 * Ours: the built app (`vite preview` of `dist/`, APP_PORT) in a fresh context, the URL typed and opened, timed from
 * `lens:load-start` to `lens:load-done` as scripts/bench-remote.ts times safetensors; null when there is no build.
 */
async function measureOurs(page: Page, url: string): Promise<number | null> {
  if (!existsSync(path.join(DIST, 'index.html'))) {
    return null;
  }
  await page.goto(`http://127.0.0.1:${APP_PORT}/`);
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
  await page.waitForFunction(
    () => performance.getEntriesByName('lens:load-done').length > 0 || document.querySelector('.load-error') !== null,
    undefined,
    { timeout: 120_000 },
  );
  if ((await page.locator('.load-error').count()) > 0) {
    throw new Error(`the app failed to load ${url}: ${await page.locator('.load-error').innerText()}`);
  }
  return page.evaluate(
    () =>
      performance.getEntriesByName('lens:load-done')[0].startTime -
      performance.getEntriesByName('lens:load-start')[0].startTime,
  );
}

/** @huggingface/gguf bundled for the page. */
function bundlePeer(): Promise<string> {
  return bundleForPage("import { gguf } from '@huggingface/gguf'; globalThis.ggufPeer = gguf;");
}

/**
 * A fresh context with a blank page on the bench server's origin (fulfilled by Playwright, never reaching the
 * server), so the peer's fetches are same-origin and need no preflight.
 */
async function freshPage(browser: Browser, server: BenchServer): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const blank = `${server.origin}/blank.html`;
  await context.route(blank, (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>bench</title>' }),
  );
  await page.goto(blank);
  return { page, close: () => context.close() };
}

function summarise(server: BenchServer, first: number, ms: number): Run {
  const log = server.log.slice(first).filter((entry) => entry.method !== 'OPTIONS');
  return {
    ms,
    ranges: log.map((entry) => entry.range ?? 'whole file'),
    requests: log.length,
    roundTrips: sequentialRoundTrips(log),
    bytes: log.reduce((sum, entry) => sum + entry.bytes, 0),
  };
}

async function runPeer(browser: Browser, server: BenchServer, bundle: string, url: string, model: BenchGguf) {
  const { page, close } = await freshPage(browser, server);
  await page.addScriptTag({ content: bundle });
  const first = server.log.length;
  // A string, so tsx does not wrap helpers the page lacks.
  const result = (await page.evaluate(`(async () => {
    const started = performance.now();
    const parsed = await globalThis.ggufPeer(${JSON.stringify(url)});
    return {
      ms: performance.now() - started,
      tensors: parsed.tensorInfos.length,
      dataStart: Number(parsed.tensorDataOffset),
      tokens: parsed.metadata['tokenizer.ggml.tokens'].length,
    };
  })()`)) as { ms: number; tensors: number; dataStart: number; tokens: number };
  await close();
  if (result.tensors !== model.tensors || result.dataStart !== model.headerBytes) {
    throw new Error(
      `@huggingface/gguf read ${result.tensors} tensors and data start ${result.dataStart}; expected ${model.tensors} and ${model.headerBytes}`,
    );
  }
  return summarise(server, first, result.ms);
}

async function runOurs(browser: Browser, server: BenchServer, url: string): Promise<Run | null> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const first = server.log.length;
  const ms = await measureOurs(page, url);
  await context.close();
  return ms === null ? null : summarise(server, first, ms);
}

function median(runs: Run[]): Run {
  const sorted = [...runs].sort((a, b) => a.ms - b.ms);
  return sorted[Math.floor(sorted.length / 2)];
}

function line(label: string, run: Run, headerBytes: number): string {
  const ratio = run.bytes / headerBytes;
  return (
    `  ${label.padEnd(18)} ${run.ms.toFixed(0).padStart(6)} ms, ${run.requests} requests, ` +
    `${run.roundTrips} sequential round trips${run.roundTrips <= TARGET_ROUND_TRIPS ? '' : ` (target ≤ ${TARGET_ROUND_TRIPS})`}, ` +
    `${(run.bytes / 1e6).toFixed(2)} MB = ${ratio.toFixed(2)}× the header${ratio <= TARGET_BYTES_RATIO ? '' : ` (target ≤ ${TARGET_BYTES_RATIO}×)`}\n` +
    `  ${''.padEnd(18)} ranges: ${run.ranges.join(', ')}`
  );
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'st-lens-bench-gguf-'));
  try {
    const model = writeLlama3BenchGguf(root);
    const bundle = await bundlePeer();
    const chromium = findChromium();
    const { chromium: playwright } = await import('@playwright/test');
    const browser = await playwright.launch({
      executablePath: chromium?.source === 'playwright' ? undefined : chromium?.path,
      args: [...CHROMIUM_ARGS, '--ignore-certificate-errors'],
    });
    const server = await startBenchServer('h2', root);
    const preview = existsSync(path.join(DIST, 'index.html')) ? startPreview(APP_PORT, DIST) : null;
    try {
      if (preview) {
        await waitForServer(`http://127.0.0.1:${APP_PORT}/`);
      }
      const url = `${server.origin}/bench/llama-3.1-8b-gguf/resolve/main/${path.basename(model.file)}`;
      console.log(
        `Chromium ${browser.version()}, @huggingface/gguf ${await peerVersion()}; GGUF header ${(model.headerBytes / 1e6).toFixed(2)} MB ` +
          `(${model.keys} keys, ${model.tensors} tensors), file ${(model.fileBytes / 1e9).toFixed(2)} GB, ` +
          `HTTP/2, ${BENCH_LATENCY_MS} ms added per answer, median of ${RUNS}`,
      );
      const peer: Run[] = [];
      const ours: Run[] = [];
      for (let run = 0; run < RUNS; run++) {
        const mine = await runOurs(browser, server, url);
        if (mine) {
          ours.push(mine);
        }
        peer.push(await runPeer(browser, server, bundle, url, model));
      }
      console.log(line('@huggingface/gguf', median(peer), model.headerBytes));
      if (ours.length > 0) {
        const a = median(ours);
        console.log(line('ours', a, model.headerBytes));
        console.log(`  ours / @huggingface/gguf: ${(a.ms / median(peer).ms).toFixed(2)}×`);
      } else {
        console.log('  ours: not measured (no dist/: run `npm run build` first)');
      }
    } finally {
      preview?.kill();
      await browser.close();
      await server.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function peerVersion(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return (JSON.parse(await readFile('node_modules/@huggingface/gguf/package.json', 'utf8')) as { version: string })
    .version;
}

await main();
