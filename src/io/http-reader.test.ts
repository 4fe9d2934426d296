/**
 * HttpReader against real node:http servers on 127.0.0.1 (the e2e test servers plus a few extra routes),
 * using Node's global fetch. Browser-only behaviour (CORS) is emulated by a fetch wrapper over the real server.
 */
import { describe, expect, it } from 'vitest';
import {
  SLOW_CHUNK_BYTES,
  SLOW_INTERVAL_MS,
  startTestServers,
  type TestServers,
} from '../testing/servers/range-server';
import { IGNORED_RANGE_SLACK_BYTES } from '../core/limits';
import { createHttpReader, DEFAULT_FIRST_READ_BYTES, parseContentRange, type HttpReaderOptions } from './http-reader';
import {
  firstDifference,
  headerFile,
  HUGE_FILE_BYTES,
  patternBytes,
  SMALL_FILE_BYTES,
  type FixtureDir,
} from '../testing/fixture-dir';
import { sourceErrorOf, setUpTestServers } from '../testing/test-server-setup';

/** Fast retries so retry paths stay well under the per-test budget. */
const FAST: HttpReaderOptions = { retryBaseMs: 5 };

/** Bytes one stream chunk can add beyond a limit (undici delivers socket reads of up to 64 KiB). */
const CHUNK_SLACK = 64 * 1024;

let fixtures: FixtureDir;
let servers: TestServers;
let a: string;
/** Per-path request counters for the extra routes below. */
const hits = new Map<string, number>();

setUpTestServers(
  async (dir) => {
    fixtures = dir;
    await fixtures.sparse('huge.bin', HUGE_FILE_BYTES);
    servers = await startTestServers({
      root: fixtures.root,
      extraRoutes: (req, res, ctx) => {
        const route = ctx.url.pathname.split('/')[1];
        const count = (hits.get(ctx.url.pathname) ?? 0) + 1;
        hits.set(ctx.url.pathname, count);
        const asked = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
        const start = asked ? Number(asked[1]) : 0;
        const end = asked ? Math.min(Number(asked[2]), SMALL_FILE_BYTES - 1) : SMALL_FILE_BYTES - 1;
        switch (route) {
          case 'x-chunked200': {
            // Ignores Range and streams the 5 GiB file without Content-Length.
            res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
            const zeros = new Uint8Array(64 * 1024);
            const pump = (): void => {
              while (!res.destroyed && res.write(zeros)) {
                // Fill until backpressure.
              }
              if (!res.destroyed) {
                res.once('drain', pump);
              }
            };
            pump();
            return true;
          }
          case 'x-short': {
            // Answers at most 1000 bytes per request (not at EOF): the reader must follow up.
            const shortEnd = Math.min(end, start + 999);
            res.writeHead(206, { 'Content-Range': `bytes ${start}-${shortEnd}/${SMALL_FILE_BYTES}` });
            res.end(patternBytes(start, shortEnd - start + 1));
            return true;
          }
          case 'x-star': {
            res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/*` });
            res.end(patternBytes(start, end - start + 1));
            return true;
          }
          case 'x-nocontentrange': {
            res.writeHead(206);
            res.end(patternBytes(start, end - start + 1));
            return true;
          }
          case 'x-429': {
            const wait = ctx.url.searchParams.get('wait') ?? '0';
            if (count === 1 || wait !== '0') {
              res.writeHead(429, { 'Retry-After': wait });
              res.end('slow down');
              return true;
            }
            void ctx.serveFile(req, res, 'small.bin');
            return true;
          }
          case 'x-strict416': {
            // A strict server: any range reaching past EOF is refused (416 with the size), not clamped.
            if (asked && Number(asked[2]) >= 16) {
              res.writeHead(416, { 'Content-Range': 'bytes */16' });
              res.end();
              return true;
            }
            void ctx.serveFile(req, res, 'tiny.bin');
            return true;
          }
          case 'x-silent':
            // Accepts the request and never answers (not even headers).
            return true;
          case 'x-416-bare': {
            res.writeHead(416);
            res.end();
            return true;
          }
          case 'x-hub': {
            // Stands in for huggingface.co (the test fetch maps https://huggingface.co/... here).
            res.setHeader('X-Error-Message', 'Access to model org/gated is restricted.');
            const status = Number(ctx.url.searchParams.get('status') ?? '200');
            if (status === 404) {
              res.setHeader('X-Error-Code', ctx.url.searchParams.get('code') ?? 'EntryNotFound');
            }
            if (status !== 200) {
              res.writeHead(status);
              res.end();
              return true;
            }
            void ctx.serveFile(req, res, 'small.bin');
            return true;
          }
          default:
            return false;
        }
      },
    });
    a = servers.originA;
    return servers;
  },
  () => hits.clear(),
);

/** Maps https://huggingface.co/<path> to the local /x-hub route (keeping the query), then real fetch. */
function hubFetch(status?: number, code?: string): typeof fetch {
  return (input, init) => {
    const target = new URL(String(input));
    const query = new URLSearchParams();
    if (status !== undefined) {
      query.set('status', String(status));
    }
    if (code !== undefined) {
      query.set('code', code);
    }
    const local = target.hostname === 'huggingface.co' ? `${a}/x-hub/small.bin?${query}` : String(input);
    return fetch(local, init);
  };
}

describe('createHttpReader: 206 reads', () => {
  it('reads exactly the asked bytes and learns the size from Content-Range', async () => {
    const reader = createHttpReader(`${a}/range/small.bin`);
    expect(reader.size).toBeNull();
    expect(reader.name).toBe('small.bin');
    expect(reader.preferredFirstRead).toBe(DEFAULT_FIRST_READ_BYTES);
    expect(firstDifference(await reader.read(1000, 5000), patternBytes(1000, 5000))).toBe(-1);
    expect(reader.size).toBe(SMALL_FILE_BYTES);
    expect(reader.finalUrl).toBe(`${a}/range/small.bin`);
    expect(reader.stats()).toEqual({ requests: 1, bytesFetched: 5000 });
    expect(servers.log.entries.map((e) => e.range)).toEqual(['bytes=1000-5999']);
  });

  it('returns fewer bytes only at EOF, and makes no request once the size says there is nothing', async () => {
    const reader = createHttpReader(`${a}/range/tiny.bin`);
    expect(firstDifference(await reader.read(0, DEFAULT_FIRST_READ_BYTES), patternBytes(0, 16))).toBe(-1);
    expect(reader.size).toBe(16);
    expect(firstDifference(await reader.read(10, 100), patternBytes(10, 6))).toBe(-1);
    expect(await reader.read(16, 100)).toEqual(new Uint8Array(0));
    expect(await reader.read(0, 0)).toEqual(new Uint8Array(0));
    expect(reader.stats().requests).toBe(2);
  });

  it('streams onChunk with new bytes and a running total', async () => {
    const reader = createHttpReader(`${a}/slow/small.bin`);
    const seen: number[] = [];
    const assembled = new Uint8Array(200_000);
    const bytes = await reader.read(50_000, 200_000, {
      onChunk: (chunk, soFar) => {
        assembled.set(chunk, soFar - chunk.length);
        seen.push(soFar);
      },
    });
    expect(firstDifference(bytes, patternBytes(50_000, 200_000))).toBe(-1);
    expect(firstDifference(assembled, bytes)).toBe(-1);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)).toBe(200_000);
  });

  it('with streamOnly, gives every byte to onChunk and keeps none', async () => {
    const reader = createHttpReader(`${a}/slow/small.bin`);
    const assembled = new Uint8Array(200_000);
    let chunks = 0;
    const bytes = await reader.read(50_000, 200_000, {
      streamOnly: true,
      onChunk: (chunk, soFar) => {
        assembled.set(chunk, soFar - chunk.length);
        chunks++;
      },
    });
    expect(bytes.length).toBe(0);
    expect(chunks).toBeGreaterThan(1);
    expect(firstDifference(assembled, patternBytes(50_000, 200_000))).toBe(-1);
  });

  it('reads a body that is not a byte stream (no BYOB reader) as the stream chunks it', async () => {
    // A TransformStream turns the byte stream into a plain one, as a service worker's or a test's own body may be.
    const plainBody: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      const plain = new Response(answer.body?.pipeThrough(new TransformStream<Uint8Array, Uint8Array>()), answer);
      // Asking for a BYOB reader of a plain stream throws and leaves the stream unlocked.
      expect(() => plain.body?.getReader({ mode: 'byob' })).toThrow(TypeError);
      return plain;
    };
    const reader = createHttpReader(`${a}/slow/small.bin`, { fetchImpl: plainBody });
    const streamed = new Uint8Array(200_000);
    const kept = await reader.read(50_000, 200_000);
    await reader.read(50_000, 200_000, {
      streamOnly: true,
      onChunk: (chunk, soFar) => streamed.set(chunk, soFar - chunk.length),
    });
    expect(firstDifference(kept, patternBytes(50_000, 200_000))).toBe(-1);
    expect(firstDifference(streamed, patternBytes(50_000, 200_000))).toBe(-1);
  });

  it('follows a cross-origin redirect and exposes the final URL', async () => {
    const reader = createHttpReader(`${a}/redirect/small.bin`);
    expect(firstDifference(await reader.read(0, 100), patternBytes(0, 100))).toBe(-1);
    expect(reader.finalUrl).toBe(`${servers.originB}/range/small.bin`);
    expect(reader.stats().requests).toBe(1);
  });

  it('follows up when the server answers shorter ranges than asked', async () => {
    const reader = createHttpReader(`${a}/x-short/small.bin`);
    expect(firstDifference(await reader.read(10, 4500), patternBytes(10, 4500))).toBe(-1);
    expect(reader.stats().requests).toBe(5);
  });

  it('accepts an unknown total (bytes a-b/*) and leaves size unknown', async () => {
    const reader = createHttpReader(`${a}/x-star/small.bin`);
    expect(firstDifference(await reader.read(0, 100), patternBytes(0, 100))).toBe(-1);
    expect(reader.size).toBeNull();
  });
});

describe('createHttpReader: the speculative-prefix edge', () => {
  /** The caller's two-read logic (core/load-header.ts): read(0, prefix), then exactly the rest of 8 + N. */
  async function readHead(url: string, prefix?: number): Promise<{ head: Uint8Array; requests: number }> {
    const reader = createHttpReader(url, prefix === undefined ? {} : { firstReadBytes: prefix });
    const first = await reader.read(0, reader.preferredFirstRead);
    const n = Number(new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true));
    const need = 8 + n;
    let head: Uint8Array;
    if (first.length >= need) {
      head = first.subarray(0, need);
    } else {
      const rest = await reader.read(first.length, need - first.length);
      head = new Uint8Array(need);
      head.set(first);
      head.set(rest, first.length);
    }
    return { head, requests: reader.stats().requests };
  }

  async function checkEdge(prefix: number, headerLengths: number[]): Promise<void> {
    const cases: Array<{ name: string; n: number; file: Uint8Array }> = [];
    for (const n of headerLengths) {
      // With data after the header, and ending exactly at the header (an empty-tensor file).
      for (const tail of [0, 64]) {
        const name = `edge-${prefix}-${n}-${tail}.safetensors`;
        const file = headerFile(n, tail);
        await fixtures.write(name, file);
        cases.push({ name, n, file });
      }
    }
    for (const { name, n, file } of cases) {
      const { head, requests } = await readHead(`${a}/range/${name}`, prefix);
      expect(head.length, name).toBe(8 + n);
      expect(firstDifference(head, file.subarray(0, 8 + n)), name).toBe(-1);
      expect(requests, name).toBe(8 + n <= prefix ? 1 : 2);
    }
  }

  it('covers 8 + N within prefix ± 16 bytes at the default prefix', async () => {
    const prefix = DEFAULT_FIRST_READ_BYTES;
    const lengths: number[] = [];
    for (let total = prefix - 16; total <= prefix + 16; total++) {
      lengths.push(total - 8);
    }
    // Header lengths (not 8 + N) around the prefix too.
    lengths.push(prefix - 16, prefix - 9, prefix - 8, prefix - 7, prefix, prefix + 16);
    await checkEdge(prefix, lengths);
  });

  it('reads the huggingface_hub#4602 headers (N = 99,994..100,000) in one request', async () => {
    // The prefix must hold 8 + 100,000 bytes for checkEdge to expect one request for all of them.
    expect(DEFAULT_FIRST_READ_BYTES).toBeGreaterThanOrEqual(8 + 100_000);
    const lengths: number[] = [];
    for (let n = 99_990; n <= 100_010; n++) {
      lengths.push(n);
    }
    await checkEdge(DEFAULT_FIRST_READ_BYTES, lengths);
  });

  it('is exact at an HF-sized prefix (100,001 bytes) too', async () => {
    const prefix = 100_001;
    const lengths: number[] = [];
    for (let total = prefix - 16; total <= prefix + 16; total++) {
      lengths.push(total - 8);
    }
    await checkEdge(prefix, lengths);
  });
});

describe('createHttpReader: servers that ignore Range', () => {
  it('cancels a 200 for a 5 GiB file at once and says how much it refused', async () => {
    const reader = createHttpReader(`${a}/norange/huge.bin`);
    const error = await sourceErrorOf(reader.read(0, reader.preferredFirstRead));
    expect(error.code).toBe('range-ignored');
    expect(error.message).toContain('This server ignores Range requests; refusing to download 5.37 GB');
    expect(error.message).toContain('131 KB header');
    expect(reader.stats().bytesFetched).toBeLessThanOrEqual(DEFAULT_FIRST_READ_BYTES + IGNORED_RANGE_SLACK_BYTES);
    const entry = await servers.log.waitFor((e) => e.path === '/norange/huge.bin' && e.closed);
    expect(entry.abortedEarly).toBe(true);
    // What the server managed to push before the client hung up: socket buffers, not gigabytes.
    expect(entry.bytesSent).toBeLessThan(64 * 1024 * 1024);
  });

  it('stops a 200 without Content-Length after the bound', async () => {
    const reader = createHttpReader(`${a}/x-chunked200/huge.bin`);
    const error = await sourceErrorOf(reader.read(0, reader.preferredFirstRead));
    expect(error.code).toBe('range-ignored');
    expect(error.message).toContain('the whole file');
    expect(reader.stats().bytesFetched).toBeLessThanOrEqual(
      DEFAULT_FIRST_READ_BYTES + IGNORED_RANGE_SLACK_BYTES + CHUNK_SLACK,
    );
    const entry = await servers.log.waitFor((e) => e.path === '/x-chunked200/huge.bin' && e.closed);
    expect(entry.abortedEarly).toBe(true);
  });

  it('accepts a 200 for a file that is small anyway', async () => {
    const reader = createHttpReader(`${a}/norange/tiny.bin`);
    expect(firstDifference(await reader.read(0, reader.preferredFirstRead), patternBytes(0, 16))).toBe(-1);
    expect(reader.size).toBe(16);
    expect(firstDifference(await reader.read(4, 4), patternBytes(4, 4))).toBe(-1);
  });
});

describe('createHttpReader: protocol violations', () => {
  it('rejects a Content-Range for a different range', async () => {
    const error = await sourceErrorOf(createHttpReader(`${a}/badrange/small.bin`).read(100, 100));
    expect(error.code).toBe('range-mismatch');
    expect(error.message).toContain('bytes 100-199');
    expect(error.message).toContain('101-200');
  });

  it('treats a 206 without Content-Range as a mismatch and hints at Expose-Headers', async () => {
    const error = await sourceErrorOf(createHttpReader(`${a}/x-nocontentrange/small.bin`).read(0, 100));
    expect(error.code).toBe('range-mismatch');
    expect(error.message).toContain('Access-Control-Expose-Headers');
  });

  it('cuts a 206 body that is longer than asked', async () => {
    const reader = createHttpReader(`${a}/longbody/small.bin`);
    expect(firstDifference(await reader.read(100, 100), patternBytes(100, 100))).toBe(-1);
    expect(firstDifference(await reader.read(300, 50), patternBytes(300, 50))).toBe(-1);
    expect(reader.stats().bytesFetched).toBeLessThan(2 * 100 + 2 * CHUNK_SLACK);
  });
});

describe('createHttpReader: failures and retries', () => {
  it('retries a 500 and then succeeds', async () => {
    const reader = createHttpReader(`${a}/flaky500/small.bin`, FAST);
    expect(firstDifference(await reader.read(0, 1000), patternBytes(0, 1000))).toBe(-1);
    expect(reader.stats().requests).toBe(2);
  });

  it('gives up on a persistent 500 after maxRetries', async () => {
    const reader = createHttpReader(`${a}/status/500/small.bin`, { ...FAST, maxRetries: 2 });
    const error = await sourceErrorOf(reader.read(0, 10));
    expect(error.code).toBe('http-5xx');
    expect(error.status).toBe(500);
    expect(error.message).toContain('tried 3 times');
    expect(reader.stats().requests).toBe(3);
  });

  it('honours a short Retry-After on 429 and refuses to wait out a long one', async () => {
    const ok = createHttpReader(`${a}/x-429/small.bin`, FAST);
    expect(firstDifference(await ok.read(0, 10), patternBytes(0, 10))).toBe(-1);
    expect(ok.stats().requests).toBe(2);
    const reader = createHttpReader(`${a}/x-429/small.bin?wait=3600`, FAST);
    const error = await sourceErrorOf(reader.read(0, 10));
    expect(error.code).toBe('http-429');
    expect(error.message).toContain('3600 s');
    expect(reader.stats().requests).toBe(1);
  });

  it('resumes after a connection reset mid-body with exact bytes', async () => {
    const reader = createHttpReader(`${a}/drop/small.bin`, FAST);
    expect(firstDifference(await reader.read(1000, 200_000), patternBytes(1000, 200_000))).toBe(-1);
    const ranges = servers.log.entries.map((e) => e.range);
    expect(ranges).toHaveLength(2);
    expect(ranges[0]).toBe('bytes=1000-200999');
    // The resume starts where the first response stopped (the server sent half before the reset).
    expect(ranges[1]).toBe(`bytes=${1000 + 100_000}-200999`);
  });

  it('times out a stalled body without retrying', async () => {
    const reader = createHttpReader(`${a}/stall/small.bin`, { ...FAST, timeoutMs: 300 });
    const started = Date.now();
    const error = await sourceErrorOf(reader.read(0, 100_000));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('300 ms');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(reader.stats().requests).toBe(1);
    const entry = await servers.log.waitFor((e) => e.closed);
    expect(entry.abortedEarly).toBe(true);
  });

  it('does not time out a body that keeps arriving, however long it takes in all', async () => {
    // /slow sends a chunk every SLOW_INTERVAL_MS. The timeout is 20 intervals, so only a stall of almost a second
    // between two chunks (not a busy CI host's usual 100-200 ms) could trip it, and the file's 40 chunks take twice
    // the timeout in all.
    const chunks = 40;
    const timeoutMs = 20 * SLOW_INTERVAL_MS;
    const size = chunks * SLOW_CHUNK_BYTES;
    await fixtures.write('slow-long.bin', patternBytes(0, size));
    const reader = createHttpReader(`${a}/slow/slow-long.bin`, { ...FAST, timeoutMs });
    const started = Date.now();
    expect(firstDifference(await reader.read(0, size), patternBytes(0, size))).toBe(-1);
    expect(Date.now() - started).toBeGreaterThan(timeoutMs);
    expect(reader.stats().requests).toBe(1);
  });

  it('maps an endless redirect chain to too-many-redirects', async () => {
    const error = await sourceErrorOf(createHttpReader(`${a}/loop/0`, FAST).read(0, 10));
    expect(error.code).toBe('too-many-redirects');
  });

  it('learns the size from a 416 and returns nothing past EOF', async () => {
    const empty = createHttpReader(`${a}/range/empty.bin`);
    expect(await empty.read(0, DEFAULT_FIRST_READ_BYTES)).toEqual(new Uint8Array(0));
    expect(empty.size).toBe(0);
    const tiny = createHttpReader(`${a}/range/tiny.bin`);
    expect(await tiny.read(100, 10)).toEqual(new Uint8Array(0));
    expect(tiny.size).toBe(16);
  });

  it('re-requests within bounds when a strict server answers 416 for a prefix longer than the file', async () => {
    const reader = createHttpReader(`${a}/x-strict416/tiny.bin`);
    expect(firstDifference(await reader.read(0, DEFAULT_FIRST_READ_BYTES), patternBytes(0, 16))).toBe(-1);
    expect(reader.size).toBe(16);
    expect(servers.log.entries.map((e) => e.range)).toEqual([`bytes=0-${DEFAULT_FIRST_READ_BYTES - 1}`, 'bytes=0-15']);
  });

  it('times out a server that never sends headers', async () => {
    const reader = createHttpReader(`${a}/x-silent/small.bin`, { ...FAST, timeoutMs: 200 });
    const error = await sourceErrorOf(reader.read(0, 10));
    expect(error.code).toBe('timeout');
    expect(reader.stats().requests).toBe(1);
  });

  it('maps a 416 without a size to http-416', async () => {
    const error = await sourceErrorOf(createHttpReader(`${a}/x-416-bare/small.bin`).read(0, 10));
    expect(error.code).toBe('http-416');
  });

  it('words 401, 403 and 404 for generic hosts', async () => {
    const e401 = await sourceErrorOf(createHttpReader(`${a}/status/401/x.bin`, { token: 'hf_secret' }).read(0, 10));
    expect(e401.code).toBe('http-401');
    expect(e401.message).toContain('not sent');
    expect(e401.message).not.toContain('hf_secret');
    const e403 = await sourceErrorOf(createHttpReader(`${a}/status/403/x.bin`).read(0, 10));
    expect(e403.code).toBe('http-403');
    const e404 = await sourceErrorOf(createHttpReader(`${a}/status/404/x.bin`).read(0, 10));
    expect(e404.code).toBe('http-404');
    expect(e404.message).toContain('Check the URL');
    expect(servers.log.entries.every((e) => e.authorization === null)).toBe(true);
  });

  it('reports network failure after retries for a closed port', async () => {
    const probeServer = await startTestServers({ root: fixtures.root });
    const closed = probeServer.originA;
    await probeServer.close();
    const reader = createHttpReader(`${closed}/range/small.bin`, { ...FAST, maxRetries: 1 });
    const error = await sourceErrorOf(reader.read(0, 10));
    expect(error.code).toBe('network');
  });
});

describe('createHttpReader: Hugging Face URLs and tokens', () => {
  const hubUrl = 'https://huggingface.co/org/gated/resolve/main/model.safetensors';

  it('sends the token to huggingface.co only', async () => {
    const hub = createHttpReader(hubUrl, { token: 'hf_abc', fetchImpl: hubFetch() });
    expect(firstDifference(await hub.read(0, 10), patternBytes(0, 10))).toBe(-1);
    expect(servers.log.entries[0].authorization).toBe('Bearer hf_abc');
    servers.log.clear();
    const elsewhere = createHttpReader(`${a}/range/small.bin`, { token: 'hf_abc' });
    await elsewhere.read(0, 10);
    const lookalike = createHttpReader('https://huggingface.co.evil.example/x', {
      token: 'hf_abc',
      fetchImpl: (_input, init) => fetch(`${a}/range/small.bin`, init),
    });
    await lookalike.read(0, 10);
    expect(servers.log.entries).toHaveLength(2);
    expect(servers.log.entries.every((e) => e.authorization === null)).toBe(true);
  });

  it('explains 401 with and without a token, without echoing it', async () => {
    const without = await sourceErrorOf(createHttpReader(hubUrl, { fetchImpl: hubFetch(401) }).read(0, 10));
    expect(without.code).toBe('http-401');
    expect(without.message).toMatch(/private or gated.*access token/);
    const withToken = await sourceErrorOf(
      createHttpReader(hubUrl, { token: 'hf_zzz', fetchImpl: hubFetch(401) }).read(0, 10),
    );
    expect(withToken.message).toContain('token was rejected');
    expect(withToken.message).not.toContain('hf_zzz');
    expect(JSON.stringify(withToken.toJSON())).not.toContain('hf_zzz');
  });

  it('explains 403 as gated and quotes X-Error-Message', async () => {
    const error = await sourceErrorOf(
      createHttpReader(hubUrl, { token: 'hf_x', fetchImpl: hubFetch(403) }).read(0, 10),
    );
    expect(error.code).toBe('http-403');
    expect(error.message).toContain('accept the license');
    expect(error.message).toContain('Access to model org/gated is restricted.');
  });

  it('uses X-Error-Code on 404', async () => {
    const entry = await sourceErrorOf(
      createHttpReader(hubUrl, { fetchImpl: hubFetch(404, 'EntryNotFound') }).read(0, 10),
    );
    expect(entry.message).toContain('file was not found');
    const repo = await sourceErrorOf(
      createHttpReader(hubUrl, { fetchImpl: hubFetch(404, 'RepoNotFound') }).read(0, 10),
    );
    expect(repo.message).toContain('repository was not found');
    const revision = await sourceErrorOf(
      createHttpReader(hubUrl, { fetchImpl: hubFetch(404, 'RevisionNotFound') }).read(0, 10),
    );
    expect(revision.message).toContain('revision');
  });
});

describe('createHttpReader: CORS vs network (browser fetch emulated over the real server)', () => {
  /** Rejects like a browser when the response lacks Access-Control-Allow-Origin; no-cors requests pass. */
  const browserFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.mode !== 'no-cors' && response.headers.get('access-control-allow-origin') === null) {
      await response.body?.cancel();
      throw new TypeError('Failed to fetch');
    }
    return response;
  };

  it('classifies a server without CORS headers as cors, after one confirming attempt', async () => {
    const reader = createHttpReader(`${a}/nocors/small.bin`, { ...FAST, fetchImpl: browserFetch });
    const error = await sourceErrorOf(reader.read(0, 10));
    expect(error.code).toBe('cors');
    expect(error.message).toContain('Access-Control-Allow-Origin');
    expect(error.message).toContain('drop it here');
    const methods = servers.log.entries.map((e) => e.method);
    expect(methods.filter((m) => m === 'HEAD').length).toBeGreaterThanOrEqual(1);
    expect(methods.filter((m) => m === 'GET')).toHaveLength(2);
  });

  it('classifies an unreachable server as network', async () => {
    const probeServer = await startTestServers({ root: fixtures.root });
    const closed = probeServer.originA;
    await probeServer.close();
    const reader = createHttpReader(`${closed}/nocors/small.bin`, { ...FAST, maxRetries: 0, fetchImpl: browserFetch });
    const error = await sourceErrorOf(reader.read(0, 10));
    expect(error.code).toBe('network');
  });
});

describe('createHttpReader: cancellation', () => {
  it('rejects with aborted when a per-read signal fires mid-body, and the server sees the disconnect', async () => {
    const controller = new AbortController();
    const reader = createHttpReader(`${a}/slow/small.bin`);
    const pending = reader.read(0, SMALL_FILE_BYTES, {
      signal: controller.signal,
      onChunk: () => controller.abort(),
    });
    const error = await sourceErrorOf(pending);
    expect(error.code).toBe('aborted');
    const entry = await servers.log.waitFor((e) => e.closed);
    expect(entry.abortedEarly).toBe(true);
    expect(entry.bytesSent).toBeLessThan(SMALL_FILE_BYTES);
  });

  it('honours the reader-level signal, before and during a read', async () => {
    const controller = new AbortController();
    const reader = createHttpReader(`${a}/stall/small.bin`, { signal: controller.signal });
    const pending = reader.read(0, 100_000);
    setTimeout(() => controller.abort(), 100);
    expect((await sourceErrorOf(pending)).code).toBe('aborted');
    expect((await sourceErrorOf(reader.read(0, 10))).code).toBe('aborted');
  });

  it('aborts during a retry backoff', async () => {
    const controller = new AbortController();
    const reader = createHttpReader(`${a}/status/500/x.bin`, { retryBaseMs: 5_000, signal: controller.signal });
    const pending = reader.read(0, 10);
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    expect((await sourceErrorOf(pending)).code).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('parseContentRange', () => {
  it.each([
    ['bytes 0-9/100', { kind: 'range', start: 0, end: 9, total: 100 }],
    ['bytes 5-5/*', { kind: 'range', start: 5, end: 5, total: null }],
    ['BYTES 1-2/3', { kind: 'range', start: 1, end: 2, total: 3 }],
    ['bytes */42', { kind: 'unsatisfied', total: 42 }],
    ['bytes 9-0/100', null],
    ['bytes 0-9', null],
    ['items 0-9/100', null],
    ['', null],
    [null, null],
  ])('%s', (header, expected) => {
    expect(parseContentRange(header)).toEqual(expected);
  });
});
