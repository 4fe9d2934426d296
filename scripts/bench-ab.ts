/**
 * A/B of app builds on the DeepSeek-V3 shard set (scripts/bench-deepseek-shards.ts), the way bench-remote.ts times
 * the app (plain DevTools pipe, a fresh context per load, the same server 50 ms away), with the builds alternated
 * load by load and a floor load every round, so every build meets the same moments of a shared machine. Prints, per
 * build, the medians of paste → complete, the last shard header, the tail after it and each tail step
 * (`lens:step:*`).
 *
 *   npm run build && npx vite build --outDir /tmp/dist-b   # the two builds
 *   npx tsx scripts/bench-ab.ts dist /tmp/dist-b [--rounds 7] [--http1] [--threads] [--flags=--js-flags=--no-turbofan]
 *
 * `--threads` adds each load's CPU per thread name (scripts/bench-thread-cpu.ts). `--flags=` passes Chromium flags
 * for an experiment (docs/performance.md, "Background compiles in the tail").
 * Nothing is asserted; a difference is worth claiming only when a second run shows it too.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeDeepseekShards } from './bench-deepseek-shards';
import { launchBenchBrowser } from './bench-browsers';
import { startPreview, waitForServer } from './bench-page';
import { cpuTail, floorExpression, lastShardHeaderAt, openAndAwaitReport } from './bench-remote-loads';
import { startBenchServer } from './bench-remote-servers';
import { cpuByThreadName, threadTicks, type ThreadTicks } from './bench-thread-cpu';
import type { Mark } from './bench-timeline';

const INDEX = 'model.safetensors.index.json';
const FIRST_PORT = 4391;
/** Tail steps shorter than this in the median are left out of the printout. */
const PRINTED_STEP_MS = 2;

interface Options {
  dists: string[];
  rounds: number;
  protocol: 'h2' | 'http/1.1';
  flags: string[];
  /** Also print each load's CPU per thread name, every process of the machine included (Linux). */
  threads: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { dists: [], rounds: 5, protocol: 'h2', flags: [], threads: false };
  for (let at = 0; at < argv.length; at++) {
    const arg = argv[at];
    if (arg === '--rounds') {
      options.rounds = Number(argv[++at]);
    } else if (arg === '--http1') {
      options.protocol = 'http/1.1';
    } else if (arg === '--threads') {
      options.threads = true;
    } else if (arg.startsWith('--flags=')) {
      options.flags.push(arg.slice('--flags='.length));
    } else {
      options.dists.push(arg);
    }
  }
  if (options.dists.length === 0 || !(options.rounds > 0)) {
    throw new Error(
      'usage: bench-ab.ts <dist> [<dist> …] [--rounds N] [--http1] [--threads] [--flags=<chromium flag>]',
    );
  }
  for (const dist of options.dists) {
    if (!existsSync(path.join(dist, 'index.html'))) {
      throw new Error(`${dist} holds no build (index.html)`);
    }
  }
  return options;
}

/** Per label, per figure: the values of every round. */
class Figures {
  private readonly byLabel = new Map<string, Map<string, number[]>>();

  add(label: string, figure: string, value: number): void {
    const figures = this.byLabel.get(label) ?? new Map<string, number[]>();
    this.byLabel.set(label, figures);
    const values = figures.get(figure) ?? [];
    figures.set(figure, values);
    values.push(value);
  }

  /** One line per label: each figure's median, with every value for the headline figures. */
  print(): void {
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
    for (const [label, figures] of this.byLabel) {
      const parts: string[] = [];
      for (const [figure, values] of figures) {
        const step = figure.startsWith('· ');
        if (step && median(values) < PRINTED_STEP_MS) {
          continue;
        }
        const all = step ? '' : ` [${values.map((value) => value.toFixed(0)).join(', ')}]`;
        parts.push(`${figure} ${median(values).toFixed(0)} ms${all}`);
      }
      console.log(`${label}:\n  ${parts.join('\n  ')}`);
    }
  }
}

/** The load's figures from its marks: paste → complete, the last shard header, the tail and each step after it. */
function addLoad(figures: Figures, label: string, marks: readonly Mark[]): void {
  const at = (name: string) => marks.find((mark) => mark.name === name)?.at ?? NaN;
  const start = at('lens:load-start');
  const done = at('lens:load-done');
  const lastShard = lastShardHeaderAt(marks);
  figures.add(label, 'paste → complete', done - start);
  figures.add(label, 'last shard header', lastShard - start);
  figures.add(label, 'tail (last shard → complete)', cpuTail(marks, 'lens:load-done'));
  let previous = lastShard;
  const steps = marks
    .filter((mark) => mark.at >= lastShard && mark.at <= done && mark.name !== 'lens:step:shard-header')
    .sort((a, b) => a.at - b.at);
  for (const mark of steps) {
    figures.add(label, `· ${mark.name.replace(/^lens:(step:)?/, '')}`, mark.at - previous);
    previous = mark.at;
  }
}

/**
 * CPU per thread name between two snapshots (null: not asked), as `· cpu <name>` figures and their sum. An app
 * load's window also holds the 500 ms wait before the paste and the report's paint; the floor's is its fetches alone.
 */
function addThreadCpu(figures: Figures, label: string, before: ThreadTicks | null, after: ThreadTicks | null): void {
  if (before === null || after === null) {
    return;
  }
  let all = 0;
  for (const [name, ms] of cpuByThreadName(before, after)) {
    figures.add(label, `· cpu ${name}`, ms);
    all += ms;
  }
  figures.add(label, 'cpu, every thread of the machine', all);
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const root = mkdtempSync(path.join(os.tmpdir(), 'st-lens-bench-ab-'));
  const model = writeDeepseekShards(root);
  const previews = options.dists.map((dist, at) => startPreview(FIRST_PORT + at, dist));
  const server = await startBenchServer(options.protocol, root);
  const browser = await launchBenchBrowser(false, options.flags);
  try {
    await Promise.all(options.dists.map((_, at) => waitForServer(`http://127.0.0.1:${FIRST_PORT + at}/`)));
    const base = `${server.origin}/bench/deepseek-v3-layout/resolve/main/`;
    const shards = model.heads.map((head) => ({ url: base + head.file, bytes: head.bytes }));
    console.log(
      `${await browser.version()}, ${options.protocol}, ${options.rounds} rounds, flags: ${options.flags.join(' ') || 'none'}`,
    );
    const figures = new Figures();
    for (let round = 0; round < options.rounds; round++) {
      const floorPage = await browser.open(`http://127.0.0.1:${FIRST_PORT}/`);
      const floorTicks = options.threads ? threadTicks() : null;
      const floorMs = await floorPage.evaluate<number>(floorExpression(base + INDEX, shards));
      figures.add('floor', 'paste → complete', floorMs);
      addThreadCpu(figures, 'floor', floorTicks, options.threads ? threadTicks() : null);
      await floorPage.close();
      // Each round reverses the order, so no build always runs first after the floor.
      const order = options.dists.map((_, at) => at);
      for (const at of round % 2 === 0 ? order : order.reverse()) {
        const page = await browser.open(`http://127.0.0.1:${FIRST_PORT + at}/`);
        const ticks = options.threads ? threadTicks() : null;
        const outcome = await page.evaluate<{ ms: number } | { error: string }>(openAndAwaitReport(base + INDEX));
        // Before the page closes: its renderer's threads go with it.
        const ticksAfter = options.threads ? threadTicks() : null;
        const marks = await page.marks();
        await page.close();
        if ('error' in outcome) {
          throw new Error(`${options.dists[at]} failed to load the set: ${outcome.error}`);
        }
        addLoad(figures, options.dists[at], marks);
        addThreadCpu(figures, options.dists[at], ticks, ticksAfter);
      }
    }
    figures.print();
  } finally {
    await browser.close();
    await server.close();
    previews.forEach((preview) => preview.kill());
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
