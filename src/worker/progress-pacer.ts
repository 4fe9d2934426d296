/**
 * Progress messages of one load, at most one per PROGRESS_POST_INTERVAL_MS, the latest state winning. A shard set
 * reports every index chunk and every shard header (hundreds of messages in a few seconds), and each one re-renders
 * the loading view on the page: on a two-core machine that main-thread work competed with the network and the
 * worker for the CPU. A message held back is posted when its interval ends, or at once before any other message of
 * the load (a preview, the result, an error), so the page always ends on the latest state and never sees progress
 * after the result. A message of a new phase posts the one held back first: each phase ends on its final state (all
 * shard headers read), even when the next phase keeps the worker busy past the interval.
 */
import { PROGRESS_POST_INTERVAL_MS } from '../core/limits';
import type { WorkerResponse } from './protocol';

type ProgressMessage = Extract<WorkerResponse, { type: 'progress' }>;

export interface ProgressPacer {
  send(message: ProgressMessage): void;
  /** Posts what is held back now: before any other message of the load, so progress never arrives after it. */
  flush(): void;
  /** Drops what is held back (the load was abandoned). */
  cancel(): void;
}

export interface PacerClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const REAL_CLOCK: PacerClock = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

export function createProgressPacer(
  post: (message: ProgressMessage) => void,
  clock: PacerClock = REAL_CLOCK,
  intervalMs = PROGRESS_POST_INTERVAL_MS,
): ProgressPacer {
  let lastPostedAt = Number.NEGATIVE_INFINITY;
  let held: ProgressMessage | null = null;
  let timer: unknown = null;
  const postNow = (message: ProgressMessage): void => {
    lastPostedAt = clock.now();
    post(message);
  };
  return {
    send(message) {
      if (held !== null && held.phase !== message.phase) {
        this.flush();
      }
      if (held === null && timer === null && clock.now() - lastPostedAt >= intervalMs) {
        postNow(message);
        return;
      }
      // A stall notice (or its clearing) must survive a newer message that says nothing about stalls.
      held = message.stall === undefined && held?.stall !== undefined ? { ...message, stall: held.stall } : message;
      if (timer === null) {
        timer = clock.setTimeout(
          () => {
            timer = null;
            const latest = held;
            held = null;
            if (latest !== null) {
              postNow(latest);
            }
          },
          Math.max(0, lastPostedAt + intervalMs - clock.now()),
        );
      }
    },
    flush() {
      const latest = held;
      this.cancel();
      if (latest !== null) {
        postNow(latest);
      }
    },
    cancel() {
      held = null;
      if (timer !== null) {
        clock.clearTimeout(timer);
        timer = null;
      }
    },
  };
}
