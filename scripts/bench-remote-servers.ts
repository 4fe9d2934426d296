/**
 * The remote benchmark's file servers: one HTTP/2 (TLS, node:http2) and one HTTP/1.1 (TLS, node:https), both
 * adding BENCH_LATENCY_MS before every answer (a far server), serving a folder with Range and CORS the way the
 * Hub's CDN does, plus `Timing-Allow-Origin: *` so the page can read the protocol from Resource Timing. Hub-shaped
 * paths (`/<org>/<name>/resolve/<rev>/<path>`) map to `<root>/<path>`, so huggingface.js can be pointed at them.
 * Every request is logged with its start, end and body bytes, for request counts, bytes and round trips.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { selfSignedCert } from '../src/testing/servers/tls-cert';

/** Added to every answer: a server ~50 ms away, as in issue 14. */
export const BENCH_LATENCY_MS = 50;

export interface BenchRequest {
  method: string;
  path: string;
  range: string | null;
  startedAt: number;
  endedAt: number | null;
  bytes: number;
}

export interface BenchServer {
  origin: string;
  protocol: 'h2' | 'http/1.1';
  log: BenchRequest[];
  close(): Promise<void>;
}

type Req = http.IncomingMessage | http2.Http2ServerRequest;
type Res = http.ServerResponse | http2.Http2ServerResponse;

export async function startBenchServer(protocol: 'h2' | 'http/1.1', root: string): Promise<BenchServer> {
  const tls = selfSignedCert(['localhost']);
  const log: BenchRequest[] = [];
  const handler = (req: Req, res: Res): void => {
    const entry: BenchRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      range: (req.headers.range as string | undefined) ?? null,
      startedAt: performance.now(),
      endedAt: null,
      bytes: 0,
    };
    log.push(entry);
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    (res as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) => {
      entry.bytes += chunk instanceof Uint8Array ? chunk.byteLength : 0;
      return write(chunk, ...rest);
    };
    res.on('close', () => {
      entry.endedAt = performance.now();
    });
    setTimeout(() => void answer(req, res, root).catch(() => res.end()), BENCH_LATENCY_MS);
  };
  const server =
    protocol === 'h2'
      ? http2.createSecureServer({ ...tls, allowHTTP1: false }, handler)
      : https.createServer(tls, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://127.0.0.1:${port}`,
    protocol,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) {
          server.closeAllConnections();
        }
        server.close(() => resolve());
        // http2 sessions keep the server open until the client goes; the browser is closed before this.
        setTimeout(resolve, 1_000);
      }),
  };
}

async function answer(req: Req, res: Res, root: string): Promise<void> {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Length, ETag, Accept-Ranges, X-Linked-Size');
  res.setHeader('Timing-Allow-Origin', '*');
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Headers', String(req.headers['access-control-request-headers'] ?? '*'));
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD');
    res.setHeader('Access-Control-Max-Age', '600');
    res.writeHead(204);
    res.end();
    return;
  }
  const url = new URL(req.url ?? '/', 'https://bench.local');
  const segments = url.pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map(decodeURIComponent);
  const relative = segments[2] === 'resolve' ? segments.slice(4).join('/') : segments.slice(1).join('/');
  const filePath = path.resolve(root, relative);
  const info = path.relative(root, filePath).startsWith('..') ? null : await stat(filePath).catch(() => null);
  if (!info?.isFile()) {
    res.writeHead(404, { 'X-Error-Code': 'EntryNotFound' });
    res.end();
    return;
  }
  const size = info.size;
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', `"${size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`);
  const asked = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
  if (!asked || (asked[1] === '' && asked[2] === '')) {
    res.writeHead(200, { 'Content-Length': String(size), 'Content-Type': 'application/octet-stream' });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(filePath).pipe(res as NodeJS.WritableStream);
    return;
  }
  const start = asked[1] === '' ? Math.max(0, size - Number(asked[2])) : Number(asked[1]);
  const end = asked[1] === '' || asked[2] === '' ? size - 1 : Math.min(Number(asked[2]), size - 1);
  if (start >= size || end < start) {
    res.writeHead(416, { 'Content-Range': `bytes */${size}` });
    res.end();
    return;
  }
  res.writeHead(206, {
    'Content-Range': `bytes ${start}-${end}/${size}`,
    'Content-Length': String(end - start + 1),
    'Content-Type': 'application/octet-stream',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(filePath, { start, end }).pipe(res as NodeJS.WritableStream);
}

/**
 * Sequential round trips in a request log: the most requests that ran one after another without overlapping
 * (interval scheduling by earliest end). Parallel requests count once; a request that waited for another counts.
 */
export function sequentialRoundTrips(requests: readonly BenchRequest[]): number {
  const done = requests
    .filter((request) => request.endedAt !== null && request.method !== 'OPTIONS')
    .sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0));
  let count = 0;
  let lastEnd = -Infinity;
  for (const request of done) {
    if (request.startedAt >= lastEnd) {
      count++;
      lastEnd = request.endedAt ?? lastEnd;
    }
  }
  return count;
}
