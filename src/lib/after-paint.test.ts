import { describe, expect, it } from 'vitest';
import { nextQueuedTask } from './after-paint';

/** Pauses after `stepMs` of busy work each until `done()` holds, at most `limit` times; returns how many it took. */
async function pausesUntil(done: () => boolean, stepMs: number, limit: number): Promise<number> {
  let pauses = 0;
  while (!done() && pauses < limit) {
    const until = performance.now() + stepMs;
    while (performance.now() < until) {
      // A step of real work, so a timer is due by the pause.
    }
    await nextQueuedTask();
    pauses++;
  }
  return pauses;
}

describe('nextQueuedTask', () => {
  it('lets a due timer in at the next pause', async () => {
    let fired = false;
    setTimeout(() => (fired = true), 0);
    expect(await pausesUntil(() => fired, 2, 1_200)).toBeLessThanOrEqual(2);
  });

  it('lets a due timer in when the pauses start from inside a pause', async () => {
    // Work resumed by one pause and pausing again: a runtime that delivers queued messages in batches would run
    // every later pause in the same batch and hold the timer back.
    await nextQueuedTask();
    let fired = false;
    setTimeout(() => (fired = true), 0);
    expect(await pausesUntil(() => fired, 2, 1_200)).toBeLessThanOrEqual(2);
  });

  it('settles in order, one pause after another', async () => {
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => nextQueuedTask().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3]);
  });
});
