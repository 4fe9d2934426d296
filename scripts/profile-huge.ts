/**
 * Finds what runs in the page's long main-thread tasks on the huge-input cases of e2e/hostile-huge.spec.ts.
 *
 *   npx vite build --minify false --outDir dist-profile && npx tsx scripts/profile-huge.ts [--dist dist-profile]
 *     [--port 4290] [--case metadata-1m]
 *
 * For each case it opens the file as the spec does (a small file and every tab first, to warm up), then clicks every
 * tab while recording a Chrome trace and a CPU profile, and prints, for each task over 50 ms: its duration, the
 * trace events inside it (script, GC, style, layout, paint) and the functions with the most self time. The test
 * servers run on 127.0.0.1 only. Prints findings; asserts nothing (the spec asserts the bound). With
 * `PROFILE_SAVE_DIR=dir` it also writes each step's CPU profile and trace there, for DevTools.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from '@playwright/test';
import { CHROMIUM_ARGS } from './find-chromium.mjs';
import { MILLION_ROW_FIXTURES } from '../src/testing/huge-fixtures';
import { startPreview, waitForServer } from './bench-page';
import { writeHugeFixture } from './fixtures-huge';

interface Options {
  dist: string;
  port: number;
  only: string | null;
}

function parseOptions(argv: string[]): Options {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  return {
    dist: value('--dist') ?? 'dist-profile',
    port: Number(value('--port') ?? 4290),
    only: value('--case') ?? null,
  };
}

const CASES: { id: string; file?: string; link?: string }[] = [
  // The same steps on a small file: what a tab costs whatever the input.
  { id: 'baseline-clean', file: 'clean.safetensors' },
  { id: 'metadata-1m', file: 'huge-metadata-1m.safetensors' },
  { id: 'metadata-1m-link', link: 'huge-metadata-1m.safetensors' },
  { id: 'metadata-json-20k', file: 'huge-metadata-json-20k.safetensors' },
  { id: 'modules-50k', file: 'huge-modules-50k.safetensors' },
  { id: 'modules-250k', file: 'huge-modules-250k.safetensors' },
  { id: 'modules-1m', file: 'huge-modules-1m.safetensors' },
  { id: 'shape-20m', file: 'huge-shape-20m.safetensors' },
  { id: 'layers-1m', file: 'huge-layers-1m.safetensors' },
  { id: 'experts-1m', file: 'huge-experts-1m.safetensors' },
];

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

/** Sums, per long task, the time of the trace events nested in it by name (outermost events only, per name). */
function summarizeTrace(events: TraceEvent[]): string[] {
  const threadNames = events.filter((event) => event.name === 'thread_name' && event.args?.name === 'CrRendererMain');
  const lines: string[] = [];
  for (const thread of threadNames) {
    const onThread = events.filter(
      (event) => event.pid === thread.pid && event.tid === thread.tid && event.ph === 'X' && event.dur !== undefined,
    );
    const tasks = onThread.filter((event) => event.name === 'RunTask' && (event.dur ?? 0) > 50_000);
    for (const task of tasks) {
      const end = task.ts + (task.dur ?? 0);
      const byName = new Map<string, number>();
      const open = new Map<string, number>();
      const inside = onThread
        .filter((event) => event !== task && event.ts >= task.ts && event.ts < end)
        .sort((a, b) => a.ts - b.ts);
      for (const event of inside) {
        // Count an event only when no event of the same name encloses it, so nested repeats are not summed twice.
        const openUntil = open.get(event.name) ?? -1;
        if (event.ts < openUntil) {
          continue;
        }
        open.set(event.name, event.ts + (event.dur ?? 0));
        byName.set(event.name, (byName.get(event.name) ?? 0) + (event.dur ?? 0));
      }
      const parts = [...byName]
        .filter(([, dur]) => dur >= 5_000)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([name, dur]) => `${name} ${(dur / 1000).toFixed(0)}`);
      lines.push(`  task ${((task.dur ?? 0) / 1000).toFixed(0)} ms: ${parts.join(', ')}`);
    }
  }
  return lines;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/**
 * Self and inclusive time per function over the samples that fall into one long task (profile microseconds). The
 * inclusive figures name the app function a task spends its time under (a React render, a message handler).
 */
function summarizeProfile(
  profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number },
  window: { start: number; end: number },
): string[] {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      parents.set(child, node.id);
    }
  }
  const keyOf = (frame: ProfileNode['callFrame']) =>
    `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop() ?? ''}:${frame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i];
    const delta = profile.timeDeltas[i + 1] ?? 0;
    if (time < window.start || time >= window.end) {
      continue;
    }
    const frame = nodes.get(profile.samples[i])?.callFrame;
    if (!frame) {
      continue;
    }
    self.set(keyOf(frame), (self.get(keyOf(frame)) ?? 0) + delta);
    const seen = new Set<string>();
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parents.get(id)) {
      const node = nodes.get(id);
      if (!node || !node.callFrame.url) {
        continue;
      }
      const key = keyOf(node.callFrame);
      if (!seen.has(key)) {
        seen.add(key);
        inclusive.set(key, (inclusive.get(key) ?? 0) + delta);
      }
    }
  }
  const top = (times: Map<string, number>, label: string) =>
    [...times]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .filter(([, us]) => us >= 3_000)
      .map(([key, us]) => `    ${label} ${(us / 1000).toFixed(0).padStart(5)} ms  ${key}`);
  return [...top(self, 'self'), ...top(inclusive, 'incl')];
}

async function recordLongTasks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const tasks: number[] = [];
    (window as unknown as { __longTasks: number[] }).__longTasks = tasks;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        tasks.push(Math.round(entry.duration));
      }
    }).observe({ type: 'longtask', buffered: true });
  });
}

const takeLongTasks = (page: Page) =>
  page.evaluate(() => {
    const tasks = (window as unknown as { __longTasks?: number[] }).__longTasks;
    return tasks ? tasks.splice(0, tasks.length) : [];
  });

async function clickEveryTab(page: Page, onTab: (tab: string) => Promise<void>): Promise<void> {
  const tabs = page.getByRole('tablist', { name: 'Views' }).getByRole('tab');
  for (const name of await tabs.allTextContents()) {
    await tabs.filter({ hasText: name }).first().click();
    await page.waitForTimeout(400);
    await onTab(name);
  }
}

async function profiled<T>(
  browser: Browser,
  page: Page,
  cdp: CDPSession,
  label: string,
  action: () => Promise<T>,
): Promise<void> {
  await takeLongTasks(page);
  await browser.startTracing(page, {
    categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink'],
  });
  await cdp.send('Profiler.start');
  await action();
  const { profile } = await cdp.send('Profiler.stop');
  const traceBytes = await browser.stopTracing();
  if (process.env.PROFILE_SAVE_DIR) {
    const base = join(process.env.PROFILE_SAVE_DIR, label.replace(/[^\w.-]+/g, '_'));
    await writeFile(`${base}.cpuprofile`, JSON.stringify(profile));
    await writeFile(`${base}.trace.json`, traceBytes);
  }
  const trace = JSON.parse(traceBytes.toString()) as { traceEvents: TraceEvent[] };
  const tasks = await takeLongTasks(page);
  const summary = summarizeTrace(trace.traceEvents);
  console.log(`${label}: long tasks ${tasks.length ? tasks.join(', ') + ' ms' : 'none'}`);
  for (const line of summary) {
    console.log(line);
  }
  const mainThreads = new Set(
    trace.traceEvents
      .filter((event) => event.name === 'thread_name' && event.args?.name === 'CrRendererMain')
      .map((event) => `${event.pid}:${event.tid}`),
  );
  const windows = trace.traceEvents
    .filter(
      (event) => event.name === 'RunTask' && (event.dur ?? 0) > 50_000 && mainThreads.has(`${event.pid}:${event.tid}`),
    )
    .map((event) => ({ start: event.ts, end: event.ts + (event.dur ?? 0) }));
  for (const window of windows) {
    console.log(`  in the ${((window.end - window.start) / 1000).toFixed(0)} ms task:`);
    for (const line of summarizeProfile(
      { ...profile, samples: profile.samples ?? [], timeDeltas: profile.timeDeltas ?? [] },
      window,
    )) {
      console.log(line);
    }
  }
}

async function runCase(browser: Browser, options: Options, fixtures: string, item: (typeof CASES)[number]) {
  const app = `http://127.0.0.1:${options.port}/`;
  const page = await browser.newPage();
  await recordLongTasks(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
  console.log(`\n== ${item.id}`);
  if (item.link) {
    const url = `http://127.0.0.1:${options.port + 400}/range/${item.link}`;
    await profiled(browser, page, cdp, 'open link with panel=metadata', async () => {
      await page.goto(`${app}?url=${encodeURIComponent(url)}&panel=metadata`);
      await page.getByTestId('metadata-virtual-list').locator('dt').first().waitFor({ timeout: 120_000 });
      await page.getByTestId('verdict-pending').waitFor({ state: 'detached', timeout: 120_000 });
      await page.waitForTimeout(500);
    });
    const list = page.getByTestId('metadata-virtual-list');
    await profiled(browser, page, cdp, 'scroll half way', async () => {
      await list.evaluate((element) => element.scrollTo(0, element.scrollHeight / 2));
      await page.waitForTimeout(500);
    });
    await page.close();
    return;
  }
  const million = MILLION_ROW_FIXTURES.find((fixture) => fixture.file === item.file);
  if (million && !existsSync(join(fixtures, million.file))) {
    // Not among the e2e fixtures (bench-million writes its own copy): written here on first use.
    writeHugeFixture(join(fixtures, million.file), million);
  }
  await page.goto(app);
  await page.getByTestId('file-input').first().setInputFiles(join(fixtures, 'clean.safetensors'));
  await page.getByTestId('verdict-pending').waitFor({ state: 'detached', timeout: 30_000 });
  await clickEveryTab(page, async () => {});
  await page.getByRole('tab', { name: /^Tensors/ }).click();
  await profiled(browser, page, cdp, 'open the file (until analyses are in)', async () => {
    await page
      .getByTestId('file-input')
      .first()
      .setInputFiles(join(fixtures, item.file ?? ''));
    await page.getByTestId('file-name').filter({ hasText: item.file }).waitFor({ timeout: 120_000 });
    await page.getByTestId('verdict-pending').waitFor({ state: 'detached', timeout: 120_000 });
    await page.waitForTimeout(500);
  });
  const tabs = page.getByRole('tablist', { name: 'Views' }).getByRole('tab');
  for (const name of await tabs.allTextContents()) {
    await profiled(browser, page, cdp, `tab ${name}`, async () => {
      await tabs.filter({ hasText: name }).first().click();
      // Charts mount a task or two after the click: wait for them too.
      await page.waitForTimeout(2_000);
    });
    const enc = page.getByRole('tree', { name: 'Module tree' }).getByRole('button', { name: 'enc', exact: true });
    if (name.startsWith('Modules') && (await enc.count()) > 0) {
      // As the spec does: a tree node filters the tensor table.
      await profiled(browser, page, cdp, 'click the tree node "enc"', async () => {
        await enc.click();
        await page.waitForTimeout(400);
      });
    }
  }
  await page.close();
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const fixtures = join(process.cwd(), 'e2e', '.fixtures');
  const children: ChildProcess[] = [
    startPreview(options.port, options.dist),
    spawn(
      'node_modules/.bin/tsx',
      [
        'src/testing/servers/cli.ts',
        '--root',
        fixtures,
        '--port-a',
        String(options.port + 400),
        '--port-b',
        String(options.port + 401),
      ],
      { stdio: 'ignore' },
    ),
  ];
  try {
    await waitForServer(`http://127.0.0.1:${options.port}/`, 60_000);
    await waitForServer(`http://127.0.0.1:${options.port + 400}/__log`);
    const browser = await chromium.launch({
      executablePath: process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE || '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
    });
    try {
      for (const item of CASES.filter((entry) => !options.only || entry.id === options.only)) {
        await runCase(browser, options, fixtures, item);
      }
    } finally {
      await browser.close();
    }
  } finally {
    for (const child of children) {
      child.kill('SIGTERM');
    }
  }
}

await main();
