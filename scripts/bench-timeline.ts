/**
 * `BENCH_TIMELINE=1 npx tsx scripts/bench-remote.ts`: where one app load's time goes. Reads the page's and the
 * worker's User Timing marks (`lens:step:*`, src/lib/perf-marks.ts) and the bench server's request log, puts them on
 * one clock (epoch ms: each thread's timeOrigin + startTime, the server's performance.timeOrigin + its times) and
 * prints them relative to "Open" (`lens:load-start`). Repeated marks (one per shard header, one per request) are
 * summarised as first / median / last.
 */
import type { Page } from '@playwright/test';
import type { BenchRequest } from './bench-remote-servers';

export interface Mark {
  name: string;
  at: number;
}

/** An expression that lists the `lens:` marks of the page or worker it runs in, on the epoch clock. */
export const MARKS_IN_PAGE = `(() => performance.getEntriesByType('mark')
  .filter((entry) => entry.name.startsWith('lens:'))
  .map((entry) => ({ name: entry.name, at: performance.timeOrigin + entry.startTime })))()`;

/** Every `lens:` mark of the page and its workers, on the epoch clock. */
export async function collectMarks(page: Page): Promise<Mark[]> {
  const marks = (await page.evaluate(MARKS_IN_PAGE)) as Mark[];
  for (const worker of page.workers()) {
    marks.push(...((await worker.evaluate(MARKS_IN_PAGE)) as Mark[]));
  }
  return marks;
}

function spread(label: string, times: number[]): string {
  if (times.length === 0) {
    return '';
  }
  const sorted = [...times].sort((a, b) => a - b);
  const pick = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
  return (
    `${label} ×${sorted.length}: first ${sorted[0].toFixed(0)}, 25% ${pick(0.25).toFixed(0)}, median ` +
    `${pick(0.5).toFixed(0)}, 75% ${pick(0.75).toFixed(0)}, last ${sorted[sorted.length - 1].toFixed(0)} ms`
  );
}

/** Prints one load's timeline: steps in order, repeated steps summarised, then the requests by kind. */
export function printTimeline(marks: readonly Mark[], requests: readonly BenchRequest[]): void {
  const start = marks.find((mark) => mark.name === 'lens:load-start')?.at;
  if (start === undefined) {
    console.log('    (no lens:load-start mark)');
    return;
  }
  const serverOrigin = performance.timeOrigin;
  const steps = new Map<string, number[]>();
  for (const mark of marks) {
    const name = mark.name.replace(/^lens:(step:)?/, '');
    steps.set(name, [...(steps.get(name) ?? []), mark.at - start]);
  }
  const ordered = [...steps.entries()].sort((a, b) => Math.min(...a[1]) - Math.min(...b[1]));
  let previous = 0;
  for (const [name, times] of ordered) {
    if (times.length > 1) {
      console.log(`    ${spread(name, times)}`);
      continue;
    }
    const at = times[0];
    console.log(`    ${at.toFixed(0).padStart(6)} ms  (+${(at - previous).toFixed(0).padStart(5)})  ${name}`);
    previous = at;
  }
  const kinds = new Map<string, BenchRequest[]>();
  for (const request of requests) {
    const file = request.path.slice(request.path.lastIndexOf('/') + 1);
    const kind = /\.index\.json$/.test(file) ? 'index' : /\.safetensors$/.test(file) ? 'shard reads' : file;
    kinds.set(kind, [...(kinds.get(kind) ?? []), request]);
  }
  for (const [kind, list] of kinds) {
    const begins = list.map((request) => serverOrigin + request.startedAt - start);
    const ends = list.map((request) => serverOrigin + (request.endedAt ?? request.startedAt) - start);
    console.log(`    server ${spread(`${kind} arrived`, begins)}`);
    console.log(`    server ${spread(`${kind} answered`, ends)}`);
  }
  const shardReads = kinds.get('shard reads') ?? [];
  let most = 0;
  for (const request of shardReads) {
    const inFlight = shardReads.filter(
      (other) => other.startedAt <= request.startedAt && (other.endedAt ?? Infinity) > request.startedAt,
    ).length;
    most = Math.max(most, inFlight);
  }
  console.log(`    server: at most ${most} shard reads open at once`);
}
