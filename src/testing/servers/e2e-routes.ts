/**
 * Routes the e2e suite adds to the test servers through `extraRoutes` (cli.ts installs them):
 *
 *   /shards/<tag>/<path>       like /range/<path>; the tag only makes one test's requests findable in the log
 *   /slowshards/<tag>/<path>   the same, each answer held back SLOW_SHARD_DELAY_MS so concurrent requests overlap
 *   /hub/api/models/<org>/<name>/tree/<rev>[/<folder>]
 *                              a fake Hugging Face Hub file listing of <root>/hub/<org>/<name>/: a JSON array of
 *                              {type, oid, size, path, lfs?}, recursive, paginated by HUB_PAGE_SIZE entries with a
 *                              `Link: <…&cursor=N>; rel="next"` header, as the real API pages
 *   /swap/…, /drip/…, /gzip206/…   servers that change the file mid-load, drip, or gzip a 206 (source-change-routes.ts)
 *   /hub/<org>/<name>/resolve/<rev>/<path>
 *                              a file of that fake repository, with Range, like the Hub's resolve endpoint
 *
 * The app reaches the fake Hub only because the user (the test) pastes a listing URL on this server
 * (`http://127.0.0.1:<port>/hub/api/models/<org>/<name>/tree/main`): src/io/sources/hub.ts recognises any URL of that
 * shape and uses the part before `/api/` as the Hub's base. No app setting points it here.
 */
import { readdir, stat } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import type { ExtraRoute, RouteContext } from './range-server';
import { sourceChangeRoutes } from './source-change-routes';

/** Each /slowshards answer waits this long before its headers, so a client's parallel requests really overlap. */
const SLOW_SHARD_DELAY_MS = 40;

/** Entries per listing page: small, so a repository of a dozen files already spans several pages. */
export const HUB_PAGE_SIZE = 4;

/** The only revision the fake Hub has. */
const HUB_REVISION = 'main';

export const e2eRoutes: ExtraRoute = (req, res, ctx) => {
  if (sourceChangeRoutes(req, res, ctx)) {
    return true;
  }
  const segments = ctx.url.pathname.split('/').filter((segment) => segment !== '');
  const route = segments[0];
  if (route === 'shards' || route === 'slowshards') {
    if (segments.length < 3) {
      return false;
    }
    const rest = segments.slice(2).join('/');
    if (req.method === 'OPTIONS') {
      preflight(res, ctx);
      return true;
    }
    const serve = () => void ctx.serveFile(req, res, rest);
    if (route === 'slowshards') {
      setTimeout(serve, SLOW_SHARD_DELAY_MS);
    } else {
      serve();
    }
    return true;
  }
  if (route !== 'hub') {
    return false;
  }
  if (req.method === 'OPTIONS') {
    preflight(res, ctx);
    return true;
  }
  if (segments[1] === 'api') {
    void listing(res, ctx, segments.slice(2)).catch((error: unknown) => fail(res, error));
    return true;
  }
  // /hub/<org>/<name>/resolve/<rev>/<path…>
  if (segments.length >= 6 && segments[3] === 'resolve') {
    const [, org, name, , revision, ...file] = segments;
    if (revision !== HUB_REVISION) {
      return notFound(res, ctx, 'RevisionNotFound');
    }
    void ctx.serveFile(req, res, ['hub', org, name, ...file].join('/'));
    return true;
  }
  return notFound(res, ctx, 'EntryNotFound');
};

function preflight(res: http.ServerResponse, ctx: RouteContext): void {
  ctx.applyCors(res);
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, Range, Content-Type');
  res.writeHead(204);
  res.end();
}

function notFound(res: http.ServerResponse, ctx: RouteContext, code: string): true {
  ctx.applyCors(res);
  res.writeHead(404, { 'Content-Type': 'application/json', 'X-Error-Code': code });
  res.end(JSON.stringify({ error: code }));
  return true;
}

function fail(res: http.ServerResponse, error: unknown): void {
  if (!res.headersSent) {
    res.writeHead(500, { 'Content-Type': 'text/plain' });
  }
  res.end(String(error));
}

interface ListedEntry {
  type: 'file' | 'directory';
  oid: string;
  size: number;
  path: string;
  lfs?: { oid: string; size: number; pointerSize: number };
}

/** /hub/api/<models>/<org>/<name>/tree/<rev>[/<folder…>] */
async function listing(res: http.ServerResponse, ctx: RouteContext, segments: string[]): Promise<void> {
  const [type, org, name, tree, revision, ...folder] = segments.map((segment) => decodeURIComponent(segment));
  if (type !== 'models' || tree !== 'tree' || !org || !name) {
    notFound(res, ctx, 'RepoNotFound');
    return;
  }
  const repoRoot = path.join(ctx.root, 'hub', org, name);
  const info = await stat(repoRoot).catch(() => null);
  if (!info?.isDirectory()) {
    notFound(res, ctx, 'RepoNotFound');
    return;
  }
  if (revision !== HUB_REVISION) {
    notFound(res, ctx, 'RevisionNotFound');
    return;
  }
  const start = path.join(repoRoot, ...folder);
  if (!start.startsWith(repoRoot)) {
    notFound(res, ctx, 'EntryNotFound');
    return;
  }
  const recursive = ctx.url.searchParams.get('recursive') === 'true';
  const entries = await walk(repoRoot, start, recursive);
  const cursor = Number(ctx.url.searchParams.get('cursor') ?? '0') || 0;
  const page = entries.slice(cursor, cursor + HUB_PAGE_SIZE);
  ctx.applyCors(res);
  res.setHeader('Access-Control-Expose-Headers', 'Link, X-Error-Code');
  if (cursor + HUB_PAGE_SIZE < entries.length) {
    const next = new URL(ctx.url.href);
    next.searchParams.set('cursor', String(cursor + HUB_PAGE_SIZE));
    res.setHeader('Link', `<${next.href}>; rel="next"`);
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(page));
}

async function walk(repoRoot: string, folder: string, recursive: boolean): Promise<ListedEntry[]> {
  const out: ListedEntry[] = [];
  const children = (await readdir(folder, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const child of children) {
    const full = path.join(folder, child.name);
    const relative = path.relative(repoRoot, full).split(path.sep).join('/');
    if (child.isDirectory()) {
      out.push({ type: 'directory', oid: fakeOid(relative), size: 0, path: relative });
      if (recursive) {
        out.push(...(await walk(repoRoot, full, recursive)));
      }
    } else if (child.isFile()) {
      const { size } = await stat(full);
      const entry: ListedEntry = { type: 'file', oid: fakeOid(relative), size, path: relative };
      if (child.name.endsWith('.safetensors')) {
        // LFS files: the Hub reports the pointer's size in `size` and the object's in `lfs.size`.
        entry.size = 134;
        entry.lfs = { oid: fakeOid(`lfs:${relative}`), size, pointerSize: 134 };
      }
      out.push(entry);
    }
  }
  return out;
}

function fakeOid(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0').repeat(5);
}
