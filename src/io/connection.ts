/**
 * How many shard headers to read at once, from the protocol the server answered with (Resource Timing's
 * `nextHopProtocol`), and how big each shard's first read should be, from the headers already measured.
 */
import { DEFAULT_FIRST_READ_BYTES } from './http-reader';
import type { ShardNamesSoFar } from './sources/shard-index';
import {
  HTTP1_MAX_SPANS,
  HTTP1_SHARD_CONCURRENCY,
  MULTIPLEXED_SHARD_CONCURRENCY,
  REMOTE_MAX_SPANS,
} from '../core/limits';

/**
 * Hosts known to answer over HTTP/2 or HTTP/3 (the Hub and its CDNs). Used only when Resource Timing cannot say:
 * cross-origin answers without `Timing-Allow-Origin` report an empty protocol.
 */
const KNOWN_MULTIPLEXED_HOSTS = /(^|\.)(huggingface\.co|hf\.co)$/;

/** Headroom over the largest shard header seen: shards of one model differ by a few names at most. */
const SHARD_HEADER_MARGIN = 0.03;

/** First reads are rounded up to this, so a few bytes of difference never cost a second request. */
const FIRST_READ_ROUNDING = 512;

/**
 * Sized first reads are at least this: small headers vary by more than the margin (one shard holds the embeddings,
 * names lengthen with layer numbers), and a few KB cost nothing next to a second round trip.
 */
const MIN_SIZED_FIRST_READ = 4 * 1024;

export interface ShardPacing {
  concurrency: number;
  /** Each read takes one of the few connections a browser opens per host (HTTP/1.1), not a stream of one. */
  perConnection: boolean;
  /** `h2`, `h3`, `http/1.1`, or `unknown` (then the host decided). */
  protocol: string;
}

/** The protocol of the latest finished request to any of `urls`, from this thread's Resource Timing buffer. */
export function observedProtocol(urls: readonly string[]): string {
  const timeline = (globalThis as { performance?: Performance }).performance;
  if (typeof timeline?.getEntriesByName !== 'function') {
    return '';
  }
  let latest: PerformanceResourceTiming | null = null;
  for (const url of urls) {
    for (const entry of timeline.getEntriesByName(url, 'resource') as PerformanceResourceTiming[]) {
      if (entry.nextHopProtocol && (latest === null || entry.startTime > latest.startTime)) {
        latest = entry;
      }
    }
  }
  return latest?.nextHopProtocol ?? '';
}

export function shardPacing(protocol: string, url: string): ShardPacing {
  const known = protocol.toLowerCase();
  if (known === 'h2' || known.startsWith('h3')) {
    return { concurrency: MULTIPLEXED_SHARD_CONCURRENCY, perConnection: false, protocol: known };
  }
  if (known.startsWith('http/1')) {
    return { concurrency: HTTP1_SHARD_CONCURRENCY, perConnection: true, protocol: known };
  }
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    // an unparsable URL is not a known host
  }
  const multiplexed = KNOWN_MULTIPLEXED_HOSTS.test(host);
  return {
    concurrency: multiplexed ? MULTIPLEXED_SHARD_CONCURRENCY : HTTP1_SHARD_CONCURRENCY,
    perConnection: !multiplexed,
    protocol: 'unknown',
  };
}

/** What the shard headers parsed so far say about the size of the next. */
export interface HeadersSeen {
  /** The largest 8 + N seen. */
  largestHead: number;
  /**
   * Header bytes per tensor beyond its name (dtype, shape, offsets, punctuation, the metadata's share), from the
   * header with the most tensors seen: the one a few long names or the metadata skew least.
   */
  bytesPerEntry: number;
}

/**
 * Analysis reads one load may send to `url`'s server in its one extra round trip: REMOTE_MAX_SPANS where requests
 * multiplex (HTTP/2, HTTP/3), HTTP1_MAX_SPANS where the browser's six connections per host would queue the rest.
 */
export function analysisSpanLimit(url: string, finalUrl: string | null): number {
  const protocol = observedProtocol(finalUrl ? [url, finalUrl] : [url]);
  return shardPacing(protocol, finalUrl ?? url).perConnection ? HTTP1_MAX_SPANS : REMOTE_MAX_SPANS;
}

/**
 * A shard's first read once other shards' headers are known, so most shards arrive in one request of close to 8 + N
 * bytes. From the index when it has named the shard's tensors: their names' bytes plus `bytesPerEntry` for each (a
 * first shard holding only the embeddings says nothing about the size of the others); while the index is still
 * streaming that is a lower bound, so the largest header seen also counts. Capped at 1 MiB: a bigger header takes
 * a second request.
 */
export function sizedFirstRead(seen: HeadersSeen, named: ShardNamesSoFar | null = null): number | undefined {
  if (seen.largestHead <= 0) {
    return undefined;
  }
  const fromIndex =
    named !== null && named.tensors > 0 && seen.bytesPerEntry > 0
      ? named.nameBytes + named.tensors * seen.bytesPerEntry
      : 0;
  const expected = named?.complete && fromIndex > 0 ? fromIndex : Math.max(fromIndex, seen.largestHead);
  const wanted = Math.ceil((expected * (1 + SHARD_HEADER_MARGIN)) / FIRST_READ_ROUNDING) * FIRST_READ_ROUNDING;
  return Math.min(DEFAULT_FIRST_READ_BYTES * 8, Math.max(MIN_SIZED_FIRST_READ, wanted));
}
