import { describe, expect, it } from 'vitest';
import type { ByteReader, ReadOptions, RequestObserver } from '../../core/bytes/byte-reader';
import { Meter } from './meter';

/** A reader whose requests the test drives by hand: start one, feed it bytes, end it. */
function manualReader(): ByteReader & {
  request(purpose?: ReadOptions['purpose']): { bytes(n: number): void; end(): void };
} {
  let observer: RequestObserver | null = null;
  let requests = 0;
  let bytesFetched = 0;
  return {
    name: 'manual',
    size: null,
    preferredFirstRead: 8,
    read: () => Promise.resolve(new Uint8Array(0)),
    stats: () => ({ requests, bytesFetched }),
    observe: (next) => {
      observer = next;
    },
    request(purpose) {
      requests++;
      const tally = observer?.(purpose ?? null);
      return {
        bytes: (n) => {
          bytesFetched += n;
          tally?.bytes(n);
        },
        end: () => tally?.end(),
      };
    },
  };
}

describe('Meter', () => {
  it('breaks requests and bytes down by purpose, summing to the totals', () => {
    const meter = new Meter();
    const index = meter.add(manualReader(), 'index');
    const shard = meter.add(manualReader());
    const first = index.request();
    first.bytes(1000);
    first.end();
    const header = shard.request();
    header.bytes(300);
    header.end();
    const data = shard.request('analysis');
    data.bytes(82);
    data.end();
    meter.addDirect(2, 5000);
    const stats = meter.stats();
    expect(stats.byPurpose).toEqual({
      index: { requests: 1, bytesFetched: 1000, roundTrips: 1 },
      header: { requests: 1, bytesFetched: 300, roundTrips: 1 },
      analysis: { requests: 1, bytesFetched: 82, roundTrips: 1 },
      'hub-api': { requests: 2, bytesFetched: 5000, roundTrips: 2 },
    });
    const purposes = Object.values(stats.byPurpose ?? {});
    expect(purposes.reduce((sum, p) => sum + p.requests, 0)).toBe(stats.requests);
    expect(purposes.reduce((sum, p) => sum + p.bytesFetched, 0)).toBe(stats.bytesFetched);
  });

  it('counts sequential round trips: parallel requests share one, a request after an answer adds one', () => {
    const meter = new Meter();
    const reader = meter.add(manualReader());
    const header = reader.request();
    header.end();
    // Three data reads in flight together: one round trip after the header's.
    const reads = [reader.request('analysis'), reader.request('analysis'), reader.request('analysis')];
    // A request sent while the others are still in flight does not wait for them.
    expect(meter.stats().roundTrips).toBe(2);
    reads.forEach((read) => read.end());
    reader.request('analysis').end();
    const stats = meter.stats();
    expect(stats.roundTrips).toBe(3);
    expect(stats.byPurpose?.header?.roundTrips).toBe(1);
    expect(stats.byPurpose?.analysis).toMatchObject({ requests: 4, roundTrips: 2 });
  });

  it('a restarted load counts both attempts, the first as its own restart line', () => {
    const first = new Meter();
    const reader = first.add(manualReader());
    const a = reader.request();
    a.bytes(128);
    a.end();
    const b = reader.request();
    b.bytes(64);
    b.end();
    const second = new Meter();
    second.carryRestart(first.stats());
    const again = second.add(manualReader()).request();
    again.bytes(200);
    again.end();
    const stats = second.stats();
    expect(stats).toMatchObject({ requests: 3, bytesFetched: 392, roundTrips: 3 });
    expect(stats.byPurpose).toEqual({
      restart: { requests: 2, bytesFetched: 192, roundTrips: 2 },
      header: { requests: 1, bytesFetched: 200, roundTrips: 1 },
    });
  });
});
