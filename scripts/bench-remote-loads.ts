/**
 * What every remote timing of the shard model shares (bench-remote.ts for the figures, bench-ab.ts for A/B
 * runs of two builds): the page expressions that open the app on a URL as a user would and run the floor's plain
 * fetches, and the tail read from a load's marks.
 */
import type { Mark } from './bench-timeline';

/**
 * A user pastes a URL well after the page has drawn its box; by then the parser worker, which the app starts a task
 * after boot, has loaded and compiled its script. Submitting on the load event instead timed that start-up too.
 */
const USER_PASTE_DELAY_MS = 500;

/** Plain fetches in flight for the floor (the figure; Chromium queues HTTP/1.1 ones at 6 per origin). */
export const FLOOR_IN_FLIGHT = 64;

/**
 * Waits until the app's URL box is drawn and USER_PASTE_DELAY_MS more, types the URL into the box and submits it,
 * then waits for the complete report (analyses included) or a load error; answers `lens:load-start` →
 * `lens:load-done` in ms, or the error's text. Polls every 20 ms inside the page, so the driver adds no traffic while
 * the load runs.
 */
export function openAndAwaitReport(url: string): string {
  return `(async () => {
    while (!document.getElementById('url-input')) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, ${USER_PASTE_DELAY_MS}));
    const input = document.getElementById('url-input');
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, ${JSON.stringify(url)});
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.form.requestSubmit();
    const deadline = performance.now() + 180000;
    for (;;) {
      const done = performance.getEntriesByName('lens:load-done')[0];
      if (done) {
        // The marks are read after the frame that shows the report, not before.
        while (performance.getEntriesByName('lens:step:report-painted').length === 0 && performance.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return { ms: done.startTime - performance.getEntriesByName('lens:load-start')[0].startTime };
      }
      const failed = document.querySelector('.load-error');
      if (failed) return { error: failed.textContent };
      if (performance.now() > deadline) return { error: 'no complete report within 180 s' };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })()`;
}

/**
 * The physical floor as a page expression answering its ms: the whole index, then every shard's exact 8 + N bytes
 * by plain `fetch` calls with a Range header, FLOOR_IN_FLIGHT at once. No parsing.
 */
export function floorExpression(indexUrl: string, shards: readonly { url: string; bytes: number }[]): string {
  return `(async () => {
    const started = performance.now();
    await (await fetch(${JSON.stringify(indexUrl)})).arrayBuffer();
    const shards = ${JSON.stringify(shards)};
    let next = 0;
    const worker = async () => {
      while (next < shards.length) {
        const shard = shards[next++];
        const answer = await fetch(shard.url, { headers: { Range: 'bytes=0-' + (shard.bytes - 1) } });
        if ((await answer.arrayBuffer()).byteLength !== shard.bytes) throw new Error('short answer: ' + shard.url);
      }
    };
    await Promise.all(Array.from({ length: ${FLOOR_IN_FLIGHT} }, worker));
    return performance.now() - started;
  })()`;
}

/** The worker's last `shard-header` mark on the epoch clock; -Infinity when the load read no shard set. */
export function lastShardHeaderAt(marks: readonly Mark[]): number {
  return Math.max(...marks.filter((mark) => mark.name === 'lens:step:shard-header').map((mark) => mark.at));
}

/** The last shard header's mark to the mark `end`, on the epoch clock (NaN for a single file). */
export function cpuTail(marks: readonly Mark[], end: string): number {
  const lastShard = lastShardHeaderAt(marks);
  const done = marks.find((mark) => mark.name === end)?.at;
  return Number.isFinite(lastShard) && done !== undefined ? done - lastShard : NaN;
}
