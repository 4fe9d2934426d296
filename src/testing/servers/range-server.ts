/**
 * Test HTTP servers for the URL loader: two `node:http` servers on 127.0.0.1 (two ports, so two origins) that
 * serve files from a fixtures folder and misbehave on purpose, selected by the URL's first path segment:
 *
 *   /range/<file>        Range + CORS, 206 with Content-Range, 416 `bytes * /size` past EOF (the good server)
 *   /norange/<file>      CORS but ignores Range: 200 with the whole file streamed
 *   /nocors/<file>       Range but no CORS headers
 *   /redirect/<file>     302 to the other origin's /range/<file>
 *   /status/<code>/<f>   that status (401, 403, 404, 500…) with CORS headers so the browser can read it
 *   /flaky500/<file>     first GET per path answers 500, then behaves like /range
 *   /slow/<file>         like /range, body sent in SLOW_CHUNK_BYTES chunks every SLOW_INTERVAL_MS
 *   /drop/<file>         first GET per path sends part of the range then destroys the socket; then /range
 *   /stall/<file>        headers and a few bytes, then nothing until the client gives up
 *   /badrange/<file>     206 whose Content-Range names a different range than asked
 *   /longbody/<file>     206 with the right Content-Range but LONG_BODY_EXTRA_BYTES more body than asked
 *   /loop/<n>            302 to /loop/<n+1>, forever
 *   /shards/…, /hub/…    added by e2e-routes.ts through `extraRoutes` (cli.ts): tagged shard reads, a fake Hub
 *   /__log, /__log/clear, /__reset   the request log as JSON (for tests running in another process)
 *
 * Every request (except /__*) is logged with the bytes actually written, so tests can assert that a client
 * stopped a 200 download early or that a token never reached a host.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

/** Body chunk of /slow: big enough to show progress steps, small enough for many steps per file. */
export const SLOW_CHUNK_BYTES = 64 * 1024;

/** Pause between /slow chunks: slow enough to cancel mid-body, fast enough to keep tests short. */
export const SLOW_INTERVAL_MS = 50;

/** Bytes /stall sends before going silent, so a client's "bytes arrived, then nothing" path is exercised. */
export const STALL_SENT_BYTES = 1024;

/**
 * How long an idle keep-alive connection stays open. Node's 5 s default races a client that reuses the connection
 * just as the server closes it (ECONNRESET on a busy machine); no test waits this long between requests.
 */
const IDLE_KEEP_ALIVE_MS = 120_000;

/**
 * Pause between /drop's partial body and the reset: long enough for a client to read what arrived. A fetch body
 * that errors discards the chunks its reader has not taken yet, and on a loaded two-core CI host a worker that is
 * still starting up can leave them untaken for well over 100 ms.
 */
const DROP_DELAY_MS = 1_000;

/**
 * Added before every /far/ answer: a far server. Requests the app sends together then overlap in the log, so a
 * test can count sequential round trips without depending on how fast loopback answers. Two requests sent in one
 * tick reach the server up to tens of ms apart on a loaded CI host (the second may need a new connection), so
 * the latency is well above that spread.
 */
const FAR_LATENCY_MS = 250;

/** Extra bytes /longbody appends (filler 0xEE) after the asked range. */
export const LONG_BODY_EXTRA_BYTES = 64 * 1024;

/** Filler byte for /longbody's surplus: not a plausible file byte run, so a client that keeps it is caught. */
const LONG_BODY_FILLER = 0xee;

/** CORS response headers a Range reader needs to read (Content-Length is safelisted, listed for clarity). */
const EXPOSED_HEADERS = 'Content-Range, Content-Length, Accept-Ranges, X-Error-Code, X-Error-Message';

/** Request headers the preflight allows: Authorization (tokens) and Range forms that are not safelisted. */
const ALLOWED_REQUEST_HEADERS = 'Authorization, Range, Content-Type';

export type OriginName = 'A' | 'B';

export interface RequestLogEntry {
  id: number;
  origin: OriginName;
  method: string;
  /** Path and query as received. */
  path: string;
  range: string | null;
  hasAuthorization: boolean;
  /** The raw Authorization value, so tests can assert a token never reached a non-Hub host. */
  authorization: string | null;
  status: number | null;
  /** Body bytes handed to the socket (counted on write). */
  bytesSent: number;
  /** The response closed before it finished (client disconnected, or the route destroyed the socket). */
  abortedEarly: boolean;
  /** The response is over (finished or aborted). */
  closed: boolean;
  startedAt: number;
  /** When the response closed (ms since the epoch), so tests can compute how many requests overlapped. */
  closedAt: number | null;
}

export class RequestLog {
  readonly entries: RequestLogEntry[] = [];
  private nextId = 1;

  clear(): void {
    this.entries.length = 0;
  }

  forOrigin(origin: OriginName): RequestLogEntry[] {
    return this.entries.filter((entry) => entry.origin === origin);
  }

  /** Resolves with the first entry matching `predicate` (polling; the log is tiny). */
  async waitFor(predicate: (entry: RequestLogEntry) => boolean, timeoutMs = 5_000): Promise<RequestLogEntry> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.entries.find(predicate);
      if (found) {
        return found;
      }
      if (Date.now() > deadline) {
        throw new Error(`No request log entry matched within ${timeoutMs} ms`);
      }
      await delay(10);
    }
  }

  /** Internal: creates the entry for a request. */
  add(origin: OriginName, req: http.IncomingMessage): RequestLogEntry {
    const authorization = req.headers.authorization ?? null;
    const entry: RequestLogEntry = {
      id: this.nextId++,
      origin,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      range: req.headers.range ?? null,
      hasAuthorization: authorization !== null,
      authorization,
      status: null,
      bytesSent: 0,
      abortedEarly: false,
      closed: false,
      startedAt: Date.now(),
      closedAt: null,
    };
    this.entries.push(entry);
    return entry;
  }
}

export interface RouteContext {
  origin: OriginName;
  originA: string;
  originB: string;
  /** Absolute fixtures folder. */
  root: string;
  log: RequestLog;
  /** This request's log entry (bytes written through `res` are counted automatically). */
  entry: RequestLogEntry;
  url: URL;
  /** Adds the permissive CORS headers the good routes send. */
  applyCors(res: http.ServerResponse): void;
  /** Serves `relativePath` under root like /range does (Range, 206/416, optional CORS). */
  serveFile(req: http.IncomingMessage, res: http.ServerResponse, relativePath: string, cors?: boolean): Promise<void>;
}

/** Returns true when it handled the request; false lets the built-in routes answer. Runs first. */
export type ExtraRoute = (req: http.IncomingMessage, res: http.ServerResponse, ctx: RouteContext) => boolean;

export interface TestServerOptions {
  root: string;
  host?: string;
  /** Fixed ports (Playwright webServer); 0 or absent picks free ones. */
  portA?: number;
  portB?: number;
  extraRoutes?: ExtraRoute;
}

export interface TestServers {
  originA: string;
  originB: string;
  log: RequestLog;
  /** Forgets which paths already failed once (/flaky500, /drop), so their first-time fault happens again. */
  resetFaults(): void;
  close(): Promise<void>;
}

type ByteRange = { kind: 'none' } | { kind: 'range'; start: number; end: number } | { kind: 'unsatisfiable' };

export async function startTestServers(options: TestServerOptions): Promise<TestServers> {
  const root = path.resolve(options.root);
  const host = options.host ?? '127.0.0.1';
  const log = new RequestLog();
  // Keys are "<route>:<path>": first-time faults are per path, shared by both origins.
  const faultsSeen = new Set<string>();
  const origins: Record<OriginName, string> = { A: '', B: '' };

  const makeServer = (origin: OriginName): http.Server => {
    const server = http.createServer((req, res) => {
      handle(origin, req, res).catch((error: unknown) => {
        console.error(`[test-servers] ${req.method} ${req.url} failed:`, error);
        if (!res.headersSent) {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end('test server error');
        } else {
          res.destroy();
        }
      });
    });
    server.keepAliveTimeout = IDLE_KEEP_ALIVE_MS;
    return server;
  };

  async function handle(origin: OriginName, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origins[origin]);
    if (url.pathname.startsWith('/__')) {
      handleControl(url, res, { log, origins, faultsSeen });
      return;
    }
    const entry = log.add(origin, req);
    track(res, entry);
    const ctx: RouteContext = {
      origin,
      originA: origins.A,
      originB: origins.B,
      root,
      log,
      entry,
      url,
      applyCors,
      serveFile: (request, response, relativePath, cors = true) =>
        serveFile(root, request, response, relativePath, { cors }),
    };
    if (options.extraRoutes?.(req, res, ctx)) {
      return;
    }

    const segments = url.pathname.split('/').filter((segment) => segment !== '');
    const route = segments[0] ?? '';
    const rest = segments.slice(1).join('/');
    const corsRoute = route !== 'nocors';
    if (req.method === 'OPTIONS') {
      // Preflight (sent for Authorization or non-safelisted Range): allowed everywhere except /nocors.
      if (corsRoute) {
        applyCors(res);
        res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
        res.setHeader('Access-Control-Allow-Headers', ALLOWED_REQUEST_HEADERS);
      }
      res.writeHead(204);
      res.end();
      return;
    }
    const firstTime = (): boolean => {
      // Only GETs count: HEAD probes and preflights must not use up the one-time fault.
      const key = `${route}:${rest}`;
      if (req.method !== 'GET' || faultsSeen.has(key)) {
        return false;
      }
      faultsSeen.add(key);
      return true;
    };

    switch (route) {
      case 'range':
        return serveFile(root, req, res, rest, { cors: true });
      case 'nocors':
        return serveFile(root, req, res, rest, { cors: false });
      case 'norange':
        return serveFile(root, req, res, rest, { cors: true, ignoreRange: true });
      case 'slow':
        return serveFile(root, req, res, rest, { cors: true, slow: true });
      case 'far':
        await delay(FAR_LATENCY_MS);
        return serveFile(root, req, res, rest, { cors: true });
      case 'redirect': {
        applyCors(res);
        const target = origin === 'A' ? origins.B : origins.A;
        res.writeHead(302, { Location: `${target}/range/${rest}${url.search}` });
        res.end();
        return;
      }
      case 'status': {
        const code = Number(segments[1]);
        if (!Number.isInteger(code) || code < 400 || code > 599) {
          return notFound(res, `bad status in ${url.pathname}`);
        }
        applyCors(res);
        if (code === 404) {
          res.setHeader('X-Error-Code', 'EntryNotFound');
        }
        if (code === 401) {
          res.setHeader('WWW-Authenticate', 'Bearer');
        }
        res.writeHead(code, { 'Content-Type': 'text/plain' });
        res.end(`status ${code}`);
        return;
      }
      case 'flaky500':
        if (firstTime()) {
          applyCors(res);
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end('flaky: first request fails');
          return;
        }
        return serveFile(root, req, res, rest, { cors: true });
      case 'drop':
        return serveFile(root, req, res, rest, { cors: true, drop: firstTime() });
      case 'stall':
        return serveFile(root, req, res, rest, { cors: true, stall: true });
      case 'badrange':
        return serveFile(root, req, res, rest, { cors: true, badRange: true });
      case 'longbody':
        return serveFile(root, req, res, rest, { cors: true, longBody: true });
      case 'loop': {
        const n = Number(segments[1] ?? '0');
        applyCors(res);
        res.writeHead(302, { Location: `/loop/${Number.isFinite(n) ? n + 1 : 1}` });
        res.end();
        return;
      }
      default:
        return notFound(res, `unknown route ${url.pathname}`);
    }
  }

  const servers: Record<OriginName, http.Server> = { A: makeServer('A'), B: makeServer('B') };
  for (const name of ['A', 'B'] as const) {
    const port = name === 'A' ? options.portA : options.portB;
    await new Promise<void>((resolve, reject) => {
      servers[name].once('error', reject);
      servers[name].listen(port ?? 0, host, () => resolve());
    });
    const address = servers[name].address() as AddressInfo;
    origins[name] = `http://${host}:${address.port}`;
  }

  return {
    originA: origins.A,
    originB: origins.B,
    log,
    resetFaults: () => faultsSeen.clear(),
    close: async () => {
      await Promise.all(
        Object.values(servers).map(
          (server) =>
            new Promise<void>((resolve) => {
              // Stalled and slow responses would keep close() waiting forever.
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}

/** The control paths: the request log (`/__log`, `/__log/clear`) and `/__reset` of the first-time faults. */
function handleControl(
  url: URL,
  res: http.ServerResponse,
  state: { log: RequestLog; origins: Record<OriginName, string>; faultsSeen: Set<string> },
): void {
  const { log, origins, faultsSeen } = state;
  applyCors(res);
  if (url.pathname === '/__log') {
    const origin = url.searchParams.get('origin');
    const entries = origin === 'A' || origin === 'B' ? log.forOrigin(origin) : log.entries;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify({ originA: origins.A, originB: origins.B, entries }));
    return;
  }
  if (url.pathname === '/__log/clear' || url.pathname === '/__reset') {
    log.clear();
    if (url.pathname === '/__reset') {
      faultsSeen.clear();
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"ok":true}');
    return;
  }
  notFound(res, `unknown control path ${url.pathname}`);
}

/** How a route serves a fixture: which CORS headers, whether it honours Range, and the fault it injects. */
interface Behaviour {
  cors: boolean;
  ignoreRange?: boolean;
  slow?: boolean;
  drop?: boolean;
  stall?: boolean;
  badRange?: boolean;
  longBody?: boolean;
}

async function serveFile(
  root: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  relativePath: string,
  behaviour: Behaviour,
): Promise<void> {
  if (behaviour.cors) {
    applyCors(res);
  }
  const file = await resolveFile(root, relativePath);
  if (file === null) {
    return notFound(res, `no such fixture: ${relativePath}`);
  }
  const { filePath, size } = file;
  const head = req.method === 'HEAD';
  const range = behaviour.ignoreRange ? ({ kind: 'none' } as const) : parseRange(req.headers.range, size);
  res.setHeader('Accept-Ranges', behaviour.ignoreRange ? 'none' : 'bytes');

  if (range.kind === 'unsatisfiable') {
    res.writeHead(416, { 'Content-Range': `bytes */${size}` });
    res.end();
    return;
  }
  if (range.kind === 'none') {
    res.writeHead(200, { 'Content-Length': String(size), 'Content-Type': 'application/octet-stream' });
    if (head || size === 0) {
      res.end();
      return;
    }
    await streamRange(res, filePath, 0, size - 1);
    return;
  }

  const { start, end } = range;
  const length = end - start + 1;
  if (behaviour.badRange) {
    // Claims (and sends) the range one byte later than asked.
    const shiftedStart = Math.min(start + 1, size - 1);
    const shiftedEnd = Math.min(end + 1, size - 1);
    res.writeHead(206, {
      'Content-Range': `bytes ${shiftedStart}-${shiftedEnd}/${size}`,
      'Content-Length': String(shiftedEnd - shiftedStart + 1),
    });
    if (head) {
      res.end();
    } else {
      await streamRange(res, filePath, shiftedStart, shiftedEnd);
    }
    return;
  }
  const headers: http.OutgoingHttpHeaders = {
    'Content-Range': `bytes ${start}-${end}/${size}`,
    'Content-Type': 'application/octet-stream',
  };
  // /longbody sends the true body length, so the surplus is valid HTTP (a client must cut it, not the parser).
  headers['Content-Length'] = String(behaviour.longBody ? length + LONG_BODY_EXTRA_BYTES : length);
  res.writeHead(206, headers);
  if (head) {
    res.end();
    return;
  }
  if (behaviour.drop) {
    const bytes = await readBytes(filePath, start, Math.floor(length / 2));
    // Destroy only after the partial bytes are flushed and the client has had time to read them, so it sees
    // "some bytes, then a reset" (a stream that errors at once discards chunks nobody read yet).
    res.write(bytes, () => setTimeout(() => res.socket?.destroy(), DROP_DELAY_MS));
    return;
  }
  if (behaviour.stall) {
    res.write(await readBytes(filePath, start, Math.min(STALL_SENT_BYTES, length)));
    // Nothing more, ever: the response stays open until the client disconnects or the server closes.
    return;
  }
  if (behaviour.slow) {
    return streamSlowly(res, filePath, start, end);
  }
  if (behaviour.longBody) {
    // One write for the asked bytes and the surplus, so a client cannot stop "between" them by luck: it must
    // cut inside a chunk. Tests ask for small ranges, so buffering the range is fine.
    const body = Buffer.alloc(length + LONG_BODY_EXTRA_BYTES, LONG_BODY_FILLER);
    (await readBytes(filePath, start, length)).copy(body);
    res.end(body);
    return;
  }
  await streamRange(res, filePath, start, end);
}

function applyCors(res: http.ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
}

function notFound(res: http.ServerResponse, message: string): void {
  res.writeHead(404, { 'Content-Type': 'text/plain' });
  res.end(message);
}

/** Counts body bytes written and records status/close state on the log entry. */
function track(res: http.ServerResponse, entry: RequestLogEntry): void {
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => http.ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    entry.bytesSent += byteLength(chunk);
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((...args: unknown[]) => {
    if (args.length > 0 && typeof args[0] !== 'function') {
      entry.bytesSent += byteLength(args[0]);
    }
    return end(...args);
  }) as typeof res.end;
  res.on('close', () => {
    entry.status = res.statusCode;
    entry.abortedEarly = !res.writableFinished;
    entry.closed = true;
    entry.closedAt = Date.now();
  });
}

function byteLength(chunk: unknown): number {
  if (typeof chunk === 'string') {
    return Buffer.byteLength(chunk);
  }
  if (chunk instanceof Uint8Array) {
    return chunk.byteLength;
  }
  return 0;
}

/** Resolves a request path inside root; null for traversal attempts, missing files and folders. */
async function resolveFile(root: string, relativePath: string): Promise<{ filePath: string; size: number } | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(relativePath);
  } catch {
    return null;
  }
  const filePath = path.resolve(root, decoded);
  const relative = path.relative(root, filePath);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    return null;
  }
  try {
    const info = await stat(filePath);
    return info.isFile() ? { filePath, size: info.size } : null;
  } catch {
    return null;
  }
}

/** Single ranges only (`a-b`, `a-`, `-n`); multi-range and malformed headers are ignored (200), as RFC 9110 allows. */
function parseRange(header: string | undefined, size: number): ByteRange {
  if (header === undefined) {
    return { kind: 'none' };
  }
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) {
    return { kind: 'none' };
  }
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) {
      return { kind: 'unsatisfiable' };
    }
    return { kind: 'range', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) {
    return { kind: 'unsatisfiable' };
  }
  return { kind: 'range', start, end };
}

/** Streams bytes start..end (inclusive) from the file. */
async function streamRange(res: http.ServerResponse, filePath: string, start: number, end: number): Promise<void> {
  try {
    // Backpressure-aware: a client that stops reading stops the file reads too (the 5 GB /norange case).
    await pipeline(createReadStream(filePath, { start, end }), res);
  } catch {
    // The client went away mid-body: that is what several routes test for.
  }
}

async function streamSlowly(res: http.ServerResponse, filePath: string, start: number, end: number): Promise<void> {
  const handle = await open(filePath, 'r');
  try {
    let position = start;
    while (position <= end && !res.destroyed) {
      const length = Math.min(SLOW_CHUNK_BYTES, end - position + 1);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, position);
      res.write(buffer);
      position += length;
      if (position <= end) {
        await delay(SLOW_INTERVAL_MS);
      }
    }
    if (!res.destroyed) {
      res.end();
    }
  } finally {
    await handle.close();
  }
}

async function readBytes(filePath: string, start: number, length: number): Promise<Buffer> {
  const handle = await open(filePath, 'r');
  try {
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, start);
    return buffer;
  } finally {
    await handle.close();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
