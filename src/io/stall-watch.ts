/** The stall notice of a ranged request: a request that still runs but delivers too slowly is reported as crawling. */
import type { StallNotice } from '../core/result';

/**
 * A request that has run this long and still delivers under STALL_RATE_BYTES_PER_S is reported as crawling (with
 * Retry and Cancel in the UI). A header read normally finishes in well under a second even on a slow line, so six
 * seconds rules out a hiccup while the user is still watching; the read itself goes on (a slow server may finish).
 */
export const STALL_NOTICE_MS = 6_000;

/** Below this average rate a request counts as crawling: 1 KiB/s would take over two minutes for a 128 KiB read. */
const STALL_RATE_BYTES_PER_S = 1024;

/** How often a running request re-checks its rate, so the notice's byte count and seconds keep moving. */
const STALL_CHECK_INTERVAL_MS = 1_000;

export interface RateWatch {
  /** Bytes that arrived. */
  count: (bytes: number) => void;
  /** The request ended: stop watching and clear a notice it raised. */
  stop: () => void;
}

/**
 * Watches one request's delivery rate: after `stallNoticeMs` below STALL_RATE_BYTES_PER_S it reports a stall
 * notice every STALL_CHECK_INTERVAL_MS (bytes and seconds so far), and clears it when the request ends. `report()`
 * with no argument only says that bytes arrived.
 */
export function watchRate(stallNoticeMs: number, report: (stall?: StallNotice | null) => void): RateWatch {
  const startedAt = Date.now();
  let received = 0;
  let noticed = false;
  const timer = setInterval(() => {
    const elapsedMs = Date.now() - startedAt;
    if (elapsedMs >= stallNoticeMs && (received * 1000) / elapsedMs < STALL_RATE_BYTES_PER_S) {
      noticed = true;
      report({ bytes: received, elapsedMs });
    } else if (noticed) {
      noticed = false;
      report(null);
    }
  }, STALL_CHECK_INTERVAL_MS);
  return {
    count: (bytes) => {
      received += bytes;
      report();
    },
    stop: () => {
      clearInterval(timer);
      if (noticed) {
        report(null);
      }
    },
  };
}
