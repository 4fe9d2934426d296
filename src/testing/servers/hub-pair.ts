/**
 * A Hub-shaped pair of HTTPS origins, answering the way huggingface.co and its Xet/LFS bridge answer
 * (docs/format-notes.md#hugging-face-resolve-urls-in-a-browser), for e2e tests that launch Chromium with HUB_HOSTS
 * mapped here (`hostResolverRules`):
 *
 *   hub     https://huggingface.co
 *     /<org>/<name>/resolve/<rev>/<path>   LFS files (.safetensors): 302 to the bridge with a presigned-style
 *                                          query, carrying ETag, X-Linked-ETag, X-Linked-Size, X-Repo-Commit and
 *                                          Accept-Ranges; small files (.json): answered here, with X-Repo-Commit
 *     /api/models/<org>/<name>/revision/<rev>   {"id", "sha"} (what the app asks to pin a branch link)
 *     OPTIONS                              echoes the origin, allows only `authorization` (no Max-Age)
 *   bridge  https://cas-bridge.xethub.hf.co
 *     /xet-bridge-us/<key>?X-Amz-…         the file with Range: 206 + Content-Range + ETag + Accept-Ranges;
 *                                          `Access-Control-Allow-Origin: *`, exposes Content-Range and ETag, and
 *                                          does NOT allow `Range` (or anything a page could add) in a preflight
 *
 * Files come from `root` by path (the org/name only selects behaviour), so any fixture can be "in" a repo. Repo
 * names choose how things go wrong:
 *   gated…      resolve needs `Authorization: Bearer HUB_PAIR_TOKEN` (401 GatedRepo otherwise)
 *   expired…    the first presigned link issued per file is already expired (bridge 403 "Request has expired")
 *   flaky416…   the bridge answers the first request per file with 416 `bytes * /size`
 *   truncated…  the bridge's first answer per file sends half its body, then resets the connection
 *   missing…    404 RepoNotFound
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { selfSignedCert } from './tls-cert';

const HUB_HOST = 'huggingface.co';
export const BRIDGE_HOST = 'cas-bridge.xethub.hf.co';

/** The token the fake Hub accepts for gated repos. */
export const HUB_PAIR_TOKEN = 'hf_pairTestToken0123456789';

/** The real Hub's exposed response headers on huggingface.co (CORS). */
const HUB_EXPOSED =
  'X-Repo-Commit, X-Request-Id, X-Error-Code, X-Error-Message, X-Total-Count, ETag, Link, Accept-Ranges, ' +
  'Content-Range, X-Linked-Size, X-Linked-ETag, X-Xet-Hash';

/** The bridge's CORS reply as observed (datasets#7931): note that `Range` is not an allowed request header. */
const BRIDGE_ALLOWED_HEADERS = 'Content-Range, Content-Type, Content-Disposition, ETag';
const BRIDGE_EXPOSED = 'Accept-Ranges, Content-Range, Content-Type, Content-Disposition, ETag, X-Cache';

/** Presigned links live this long (X-Amz-Expires on the real bridge). */
const PRESIGNED_LIFETIME_S = 3600;

/**
 * How long a truncated answer waits after its half body before the reset. The browser's network process must have
 * taken the half in by then, or the page sees fewer bytes than the log says were sent (50 ms was too short on a
 * loaded CI machine: the resume then rightly started at 0).
 */
const TRUNCATE_RESET_DELAY_MS = 1_000;

export interface PairLogEntry {
  server: 'hub' | 'bridge';
  method: string;
  /** Path and query as received. */
  path: string;
  range: string | null;
  authorization: string | null;
  /** Lowercased request header names, to prove no custom header reached the bridge. */
  headerNames: string[];
  status: number | null;
  bytesSent: number;
}

export interface HubPair {
  hubPort: number;
  bridgePort: number;
  /** Chromium `--host-resolver-rules` value: both hosts to these ports, every other name unresolvable. */
  hostResolverRules: string;
  log: PairLogEntry[];
  /** The commit every branch of `org/name` resolves to. */
  commitOf(org: string, name: string): string;
  close(): Promise<void>;
}

export async function startHubPair(options: { root: string; host?: string }): Promise<HubPair> {
  const root = path.resolve(options.root);
  const host = options.host ?? '127.0.0.1';
  const tls = selfSignedCert([HUB_HOST, BRIDGE_HOST]);
  const log: PairLogEntry[] = [];
  /** Presigned key → file, and per-file "first time" flags for the misbehaving repos. */
  const issued = new Map<string, { file: string; repo: string }>();
  const firsts = new Set<string>();
  let bridgeOrigin = '';

  const firstTime = (key: string): boolean => {
    if (firsts.has(key)) {
      return false;
    }
    firsts.add(key);
    return true;
  };

  const entryFor = (server: 'hub' | 'bridge', req: http.IncomingMessage, res: http.ServerResponse): PairLogEntry => {
    const entry: PairLogEntry = {
      server,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      range: req.headers.range ?? null,
      authorization: req.headers.authorization ?? null,
      headerNames: Object.keys(req.headers),
      status: null,
      bytesSent: 0,
    };
    log.push(entry);
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      entry.bytesSent += chunk instanceof Uint8Array ? chunk.byteLength : 0;
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.on('close', () => {
      entry.status = res.statusCode;
    });
    return entry;
  };

  const hub = https.createServer(tls, (req, res) => {
    entryFor('hub', req, res);
    handleHub(req, res).catch((error: unknown) => fail(res, error));
  });
  const bridge = https.createServer(tls, (req, res) => {
    entryFor('bridge', req, res);
    handleBridge(req, res).catch((error: unknown) => fail(res, error));
  });

  async function handleHub(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    res.setHeader('Access-Control-Allow-Origin', origin ?? '*');
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', HUB_EXPOSED);
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Headers', 'authorization');
      res.setHeader('Access-Control-Allow-Methods', 'GET');
      res.writeHead(204);
      res.end();
      return;
    }
    const url = new URL(req.url ?? '/', `https://${HUB_HOST}`);
    const segments = url.pathname
      .split('/')
      .filter((segment) => segment !== '')
      .map(decodeURIComponent);
    if (segments[0] === 'api' && segments[1] === 'models' && segments[4] === 'revision') {
      const [, , org, name] = segments;
      if (name.startsWith('missing')) {
        return hubError(res, 404, 'RepoNotFound', 'Repository not found');
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: `${org}/${name}`, sha: commitOf(org, name), private: false }));
      return;
    }
    if (segments.length < 5 || segments[2] !== 'resolve') {
      return hubError(res, 404, 'EntryNotFound', 'Entry not found');
    }
    const [org, name, , revision, ...rest] = segments;
    const file = rest.join('/');
    const commit = commitOf(org, name);
    if (name.startsWith('missing')) {
      return hubError(res, 404, 'RepoNotFound', 'Repository not found');
    }
    if (name.startsWith('gated') && req.headers.authorization !== `Bearer ${HUB_PAIR_TOKEN}`) {
      return hubError(res, 401, 'GatedRepo', `Access to model ${org}/${name} is restricted.`);
    }
    if (revision !== 'main' && revision !== commit) {
      return hubError(res, 404, 'RevisionNotFound', 'Invalid rev id');
    }
    const found = await fileInfo(root, file);
    if (found === null) {
      return hubError(res, 404, 'EntryNotFound', `${file} does not exist on "${revision}"`);
    }
    const etag = `"${hashOf(`${org}/${name}/${file}`, 64)}"`;
    res.setHeader('X-Repo-Commit', commit);
    res.setHeader('Accept-Ranges', 'bytes');
    if (!file.endsWith('.safetensors')) {
      // Small (non-LFS) files are answered by the Hub itself.
      res.setHeader('ETag', etag);
      return serveRange(req, res, found, etag);
    }
    const repo = `${org}/${name}`;
    const expired = name.startsWith('expired') && firstTime(`expired:${repo}/${file}`);
    const key = hashOf(`${repo}/${file}/${issued.size}`, 64);
    issued.set(key, { file, repo });
    const signedAt = new Date(Date.now() - (expired ? 2 * PRESIGNED_LIFETIME_S * 1000 : 0));
    const query = new URLSearchParams({
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD',
      'X-Amz-Credential': 'cas/20260601/us-east-1/s3/aws4_request',
      'X-Amz-Date': signedAt.toISOString().replace(/[-:]|\.\d{3}/g, ''),
      'X-Amz-Expires': String(PRESIGNED_LIFETIME_S),
      'X-Amz-Signature': hashOf(key, 64),
      'X-Amz-SignedHeaders': 'host',
      'x-id': 'GetObject',
    });
    res.writeHead(302, {
      Location: `${bridgeOrigin}/xet-bridge-us/${key}?${query}`,
      ETag: etag,
      'X-Linked-ETag': etag,
      'X-Linked-Size': String(found.size),
      'Content-Type': 'text/plain; charset=utf-8',
    });
    res.end(`Found. Redirecting to ${bridgeOrigin}/xet-bridge-us/${key}`);
  }

  async function handleBridge(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', BRIDGE_EXPOSED);
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Headers', BRIDGE_ALLOWED_HEADERS);
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD');
      res.writeHead(200);
      res.end();
      return;
    }
    const url = new URL(req.url ?? '/', `https://${BRIDGE_HOST}`);
    const key = url.pathname.split('/').pop() ?? '';
    const target = issued.get(key);
    if (target === undefined) {
      return bridgeDenied(res, 'Invalid key');
    }
    const signedAt = parseAmzDate(url.searchParams.get('X-Amz-Date') ?? '');
    const lifetime = Number(url.searchParams.get('X-Amz-Expires') ?? '0');
    if (signedAt === null || signedAt + lifetime * 1000 < Date.now()) {
      return bridgeDenied(res, 'Request has expired');
    }
    const found = await fileInfo(root, target.file);
    if (found === null) {
      return bridgeDenied(res, 'NoSuchKey');
    }
    const etag = `"${hashOf(`${target.repo}/${target.file}`, 64)}"`;
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('ETag', etag);
    res.setHeader('X-Cache', 'Miss from cloudfront');
    const [, repoName] = target.repo.split('/');
    if (repoName.startsWith('flaky416') && firstTime(`416:${target.repo}/${target.file}`)) {
      res.writeHead(416, { 'Content-Range': `bytes */${found.size}` });
      res.end();
      return;
    }
    const truncate = repoName.startsWith('truncated') && firstTime(`cut:${target.repo}/${target.file}`);
    return serveRange(req, res, found, etag, truncate);
  }

  function commitOf(org: string, name: string): string {
    return hashOf(`commit:${org}/${name}`, 40);
  }

  await listen(hub, host);
  await listen(bridge, host);
  const hubPort = (hub.address() as AddressInfo).port;
  const bridgePort = (bridge.address() as AddressInfo).port;
  bridgeOrigin = `https://${BRIDGE_HOST}`;
  return {
    hubPort,
    bridgePort,
    hostResolverRules:
      `MAP ${HUB_HOST}:443 ${host}:${hubPort}, MAP ${BRIDGE_HOST}:443 ${host}:${bridgePort}, ` +
      `MAP * ~NOTFOUND, EXCLUDE ${host}`,
    log,
    commitOf,
    close: () =>
      Promise.all(
        [hub, bridge].map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      ).then(() => undefined),
  };
}

function listen(server: https.Server, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
}

/** Single closed ranges only; anything else is answered whole (200), which the app refuses for big files. */
async function serveRange(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  found: { filePath: string; size: number },
  etag: string,
  truncate = false,
): Promise<void> {
  const asked = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  res.setHeader('ETag', etag);
  if (!asked) {
    res.writeHead(200, { 'Content-Length': String(found.size), 'Content-Type': 'application/octet-stream' });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(found.filePath).pipe(res);
    return;
  }
  const start = Number(asked[1]);
  const end = Math.min(Number(asked[2]), found.size - 1);
  if (start >= found.size || end < start) {
    res.writeHead(416, { 'Content-Range': `bytes */${found.size}` });
    res.end();
    return;
  }
  const length = end - start + 1;
  res.writeHead(206, {
    'Content-Range': `bytes ${start}-${end}/${found.size}`,
    'Content-Length': String(length),
    'Content-Type': 'application/octet-stream',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  if (truncate) {
    const half = Math.max(1, Math.floor(length / 2));
    const stream = createReadStream(found.filePath, { start, end: start + half - 1 });
    stream.on('data', (chunk) => res.write(chunk));
    stream.on('end', () => setTimeout(() => res.socket?.destroy(), TRUNCATE_RESET_DELAY_MS));
    return;
  }
  createReadStream(found.filePath, { start, end }).pipe(res);
}

function hubError(res: http.ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'X-Error-Code': code, 'X-Error-Message': message });
  res.end(JSON.stringify({ error: message }));
}

function bridgeDenied(res: http.ServerResponse, message: string): void {
  res.writeHead(403, { 'Content-Type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${message}</Message></Error>`,
  );
}

function fail(res: http.ServerResponse, error: unknown): void {
  if (!res.headersSent) {
    res.writeHead(500, { 'Content-Type': 'text/plain' });
  }
  res.end(String(error));
}

async function fileInfo(root: string, relative: string): Promise<{ filePath: string; size: number } | null> {
  const filePath = path.resolve(root, relative);
  const inside = path.relative(root, filePath);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) {
    return null;
  }
  const info = await stat(filePath).catch(() => null);
  return info?.isFile() ? { filePath, size: info.size } : null;
}

function hashOf(text: string, hexDigits: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, hexDigits);
}

/** `20260601T101500Z` → ms since the epoch. */
function parseAmzDate(text: string): number | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) {
    return null;
  }
  const [, y, mo, d, h, mi, s] = match.map(Number);
  return Date.UTC(y, mo - 1, d, h, mi, s);
}
