import { describe, expect, it } from 'vitest';
import { createProgressPacer, type PacerClock } from './progress-pacer';
import type { WorkerResponse } from './protocol';

type ProgressMessage = Extract<WorkerResponse, { type: 'progress' }>;

/** A clock the test moves by hand; timers fire when their time is passed. */
function manualClock(): PacerClock & { advance(ms: number): void } {
  let now = 0;
  let timers: Array<{ at: number; run: () => void; id: number }> = [];
  let nextId = 1;
  return {
    now: () => now,
    setTimeout(run, ms) {
      const id = nextId++;
      timers.push({ at: now + ms, run, id });
      return id;
    },
    clearTimeout(id) {
      timers = timers.filter((timer) => timer.id !== id);
    },
    advance(ms) {
      now += ms;
      const due = timers.filter((timer) => timer.at <= now);
      timers = timers.filter((timer) => timer.at > now);
      for (const timer of due) {
        timer.run();
      }
    },
  };
}

const progress = (bytesRead: number, extra: Partial<ProgressMessage> = {}): ProgressMessage => ({
  type: 'progress',
  id: 1,
  phase: 'shards',
  bytesRead,
  bytesTotal: null,
  ...extra,
});

/** A pacer at 100 ms on a manual clock, recording the bytes of each message it posts. */
function pacedBytes() {
  const clock = manualClock();
  const posted: number[] = [];
  const pacer = createProgressPacer((message) => posted.push(message.bytesRead), clock, 100);
  return { clock, posted, pacer };
}

describe('progress pacing', () => {
  it("posts a phase's last held state before the next phase's first, which waits its turn", () => {
    const { clock, posted, pacer } = pacedBytes();
    pacer.send(progress(1));
    clock.advance(10);
    // The last shard header: held back, as the first message went out 10 ms ago.
    pacer.send(progress(24));
    // The analyses start at once and hold the thread past the interval: their message must not swallow the 24.
    pacer.send(progress(25, { phase: 'analyze' }));
    expect(posted).toEqual([1, 24]);
    clock.advance(100);
    expect(posted).toEqual([1, 24, 25]);
  });

  it('posts the first message at once and then the latest one per interval, never a stale one last', () => {
    const { clock, posted, pacer } = pacedBytes();
    pacer.send(progress(1));
    for (let bytes = 2; bytes <= 40; bytes++) {
      clock.advance(10);
      pacer.send(progress(bytes));
    }
    clock.advance(100);
    // 390 ms of messages every 10 ms: the first, then the latest held at each 100 ms, and the last state at the end.
    expect(posted).toEqual([1, 10, 20, 30, 40]);
  });

  it('posts at once again after a quiet interval', () => {
    const { clock, posted, pacer } = pacedBytes();
    pacer.send(progress(1));
    clock.advance(250);
    pacer.send(progress(2));
    expect(posted).toEqual([1, 2]);
  });

  it('keeps a held stall notice (or its clearing) when a newer message says nothing about stalls', () => {
    const clock = manualClock();
    const posted: ProgressMessage[] = [];
    const pacer = createProgressPacer((message) => posted.push(message), clock, 100);
    pacer.send(progress(1));
    pacer.send(progress(2, { stall: null }));
    pacer.send(progress(3));
    clock.advance(100);
    expect(posted.map((message) => [message.bytesRead, message.stall])).toEqual([
      [1, undefined],
      [3, null],
    ]);
  });

  it('posts what it holds at once when asked, before the message that asked', () => {
    const { clock, posted, pacer } = pacedBytes();
    pacer.send(progress(1));
    pacer.send(progress(2));
    pacer.flush();
    expect(posted).toEqual([1, 2]);
    clock.advance(1_000);
    expect(posted).toEqual([1, 2]);
  });

  it('drops what it holds when the load is abandoned', () => {
    const { clock, posted, pacer } = pacedBytes();
    pacer.send(progress(1));
    pacer.send(progress(2));
    pacer.cancel();
    clock.advance(1_000);
    expect(posted).toEqual([1]);
  });
});
