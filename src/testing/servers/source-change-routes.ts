/**
 * Misbehaving servers for the "same bytes for the whole load" checks (issue 16's remote points), installed by
 * e2e-routes.ts and reused by src/io/http-reader-guard.test.ts:
 *
 *   /swap/once/<file>[?other=<file2>]    first GET answers ETag "A" (and <file>); every later GET ETag "B" (and
 *                                        <file2>, default <file>): a file replaced once, mid-load
 *   /swap/always/<file>[?other=<file2>]  alternates A, B, A, B…: a file that keeps changing (or two CDN edges)
 *   /drip/<file>                         206 headers at once, then one byte every DRIP_INTERVAL_MS
 *   /gzip206/<file>                      206 with `Content-Encoding: gzip` (the range, gzipped); HEAD says gzip too
 *
 * Counters are per path and query, so a test that tags its URL (`?t=<tag>`) gets a fresh sequence.
 */
import type http from 'node:http';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { ExtraRoute, RouteContext } from './range-server';

/** Pause between /drip bytes: the 1 byte per second of issue 16's dripping server. */
const DRIP_INTERVAL_MS = 1_000;

/** Last-Modified of each version, so a client comparing either validator sees the change. */
const VERSION_DATES = { A: 'Mon, 01 Jun 2026 10:00:00 GMT', B: 'Tue, 02 Jun 2026 11:00:00 GMT' } as const;

const seen = new Map<string, number>();

/** Forgets the per-URL request counters (unit tests call it between tests). */
export function resetSourceChangeRoutes(): void {
  seen.clear();
}

export const sourceChangeRoutes: ExtraRoute = (req, res, ctx) => {
  const segments = ctx.url.pathname.split('/').filter((segment) => segment !== '');
  const route = segments[0];
  if (route !== 'swap' && route !== 'drip' && route !== 'gzip206') {
    return false;
  }
  ctx.applyCors(res);
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Range, If-Range');
    res.writeHead(204);
    res.end();
    return true;
  }
  const run = async (): Promise<void> => {
    if (route === 'swap') {
      const mode = segments[1];
      const file = segments.slice(2).join('/');
      const key = `${ctx.url.pathname}${ctx.url.search}`;
      const count = req.method === 'GET' ? (seen.get(key) ?? 0) + 1 : (seen.get(key) ?? 1);
      seen.set(key, count);
      const version = mode === 'always' ? (count % 2 === 1 ? 'A' : 'B') : count === 1 ? 'A' : 'B';
      const served = version === 'A' ? file : (ctx.url.searchParams.get('other') ?? file);
      res.setHeader('ETag', `"${version}"`);
      res.setHeader('Last-Modified', VERSION_DATES[version]);
      res.setHeader('Access-Control-Expose-Headers', 'Content-Range, ETag');
      const ifRange = req.headers['if-range'];
      if (ifRange !== undefined && ifRange !== `"${version}"`) {
        // RFC 9110: a stale If-Range validator gets the whole (new) file, not the range.
        delete req.headers.range;
      }
      // cors=false: keep the exposure set above (serveFile's default list has no ETag).
      await ctx.serveFile(req, res, served, false);
      return;
    }
    const file = segments.slice(1).join('/');
    const found = await fileInfo(ctx, file);
    if (found === null) {
      res.writeHead(404);
      res.end();
      return;
    }
    const asked = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const start = asked ? Number(asked[1]) : 0;
    const end = asked ? Math.min(Number(asked[2]), found.size - 1) : found.size - 1;
    const bytes = await readRange(found.filePath, start, end - start + 1);
    if (route === 'gzip206') {
      // `*` exposes every header to the page (non-credentialed requests), as many CORS-enabled hosts configure.
      res.setHeader('Access-Control-Expose-Headers', '*');
      const body = gzipSync(bytes);
      res.writeHead(req.method === 'HEAD' ? 200 : 206, {
        'Content-Encoding': 'gzip',
        'Content-Type': 'application/octet-stream',
        ...(req.method === 'HEAD' ? {} : { 'Content-Range': `bytes ${start}-${end}/${found.size}` }),
        'Content-Length': String(body.length),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    res.writeHead(206, {
      'Content-Range': `bytes ${start}-${end}/${found.size}`,
      'Content-Length': String(bytes.length),
      'Content-Type': 'application/octet-stream',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    drip(res, bytes);
  };
  run().catch((error: unknown) => {
    if (!res.headersSent) {
      res.writeHead(500);
    }
    res.end(String(error));
  });
  return true;
};

function drip(res: http.ServerResponse, bytes: Buffer): void {
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed || at >= bytes.length) {
      clearInterval(timer);
      if (!res.destroyed) {
        res.end();
      }
      return;
    }
    res.write(bytes.subarray(at, at + 1));
    at++;
  }, DRIP_INTERVAL_MS);
  res.on('close', () => clearInterval(timer));
}

async function fileInfo(ctx: RouteContext, relative: string): Promise<{ filePath: string; size: number } | null> {
  const filePath = path.resolve(ctx.root, decodeURIComponent(relative));
  if (path.relative(ctx.root, filePath).startsWith('..')) {
    return null;
  }
  const info = await stat(filePath).catch(() => null);
  return info?.isFile() ? { filePath, size: info.size } : null;
}

async function readRange(filePath: string, start: number, length: number): Promise<Buffer> {
  const handle = await open(filePath, 'r');
  try {
    const buffer = Buffer.alloc(Math.max(0, length));
    await handle.read(buffer, 0, buffer.length, start);
    return buffer;
  } finally {
    await handle.close();
  }
}
