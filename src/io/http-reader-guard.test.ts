/**
 * The reader proves every answer of one load comes from the same file version, tells a crawling server from a
 * dead one, names a compressed 206 for what it is, and asks for a fresh redirect once when a presigned link is
 * refused. Real node:http servers on 127.0.0.1 (src/testing/servers), Node's fetch.
 */
import { describe, expect, it } from 'vitest';
import { startTestServers, type TestServers } from '../testing/servers/range-server';
import { resetSourceChangeRoutes, sourceChangeRoutes } from '../testing/servers/source-change-routes';
import { createHttpReader, type ReaderActivity } from './http-reader';
import { patternBytes, SMALL_FILE_BYTES, type FixtureDir } from '../testing/fixture-dir';
import { sourceErrorOf, setUpTestServers } from '../testing/test-server-setup';

let fixtures: FixtureDir;
let servers: TestServers;
let a: string;
let b: string;
const hits = new Map<string, number>();

setUpTestServers(
  async (dir) => {
    fixtures = dir;
    // A second version of small.bin: same size, other bytes.
    await fixtures.write('small-v2.bin', patternBytes(7, SMALL_FILE_BYTES));
    servers = await startTestServers({
      root: fixtures.root,
      extraRoutes: (req, res, ctx) => {
        if (sourceChangeRoutes(req, res, ctx)) {
          return true;
        }
        const route = ctx.url.pathname.split('/')[1];
        const count = (hits.get(ctx.url.pathname) ?? 0) + 1;
        hits.set(ctx.url.pathname, count);
        if (route === 'x-total') {
          // The size changes between answers while no ETag is sent: only Content-Range's total tells.
          const asked = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
          const start = Number(asked?.[1] ?? 0);
          const end = Math.min(Number(asked?.[2] ?? 0), SMALL_FILE_BYTES - 1);
          ctx.applyCors(res);
          res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${SMALL_FILE_BYTES + (count > 1 ? 10 : 0)}` });
          res.end(patternBytes(start, end - start + 1));
          return true;
        }
        if (route === 'x-presigned') {
          // Redirects to the other origin; the first presigned link is refused as expired (403), later ones work.
          ctx.applyCors(res);
          const target = count === 1 ? `${ctx.originB}/status/403/small.bin` : `${ctx.originB}/range/small.bin`;
          res.writeHead(302, { Location: `${target}?n=${count}` });
          res.end();
          return true;
        }
        if (route === 'x-presigned-dead') {
          ctx.applyCors(res);
          res.writeHead(302, { Location: `${ctx.originB}/status/403/small.bin?n=${count}` });
          res.end();
          return true;
        }
        return false;
      },
    });
    a = servers.originA;
    b = servers.originB;
    return servers;
  },
  () => {
    hits.clear();
    resetSourceChangeRoutes();
  },
);

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('createHttpReader: one load reads one version of the file', () => {
  it('refuses a second answer with another ETag, quoting both', async () => {
    const reader = createHttpReader(`${a}/swap/once/small.bin?other=small-v2.bin`, { firstReadBytes: 1000 });
    expect(await reader.read(0, 1000)).toEqual(patternBytes(0, 1000));
    expect(reader.version).toMatchObject({ etag: '"A"', total: SMALL_FILE_BYTES });
    const error = await sourceErrorOf(reader.read(1000, 1000));
    expect(error.code).toBe('source-changed');
    expect(error.message).toContain('ETag “"A"”, then “"B"”');
  });

  it('refuses a changed Content-Range total when the server sends no validators', async () => {
    const reader = createHttpReader(`${a}/x-total/small.bin`);
    await reader.read(0, 100);
    const error = await sourceErrorOf(reader.read(100, 100));
    expect(error.code).toBe('source-changed');
    expect(error.message).toContain(`size ${SMALL_FILE_BYTES} bytes, then ${SMALL_FILE_BYTES + 10} bytes`);
  });

  it('accepts answers that keep naming the same version', async () => {
    const reader = createHttpReader(`${a}/swap/once/small.bin`);
    await reader.read(0, 100);
    // Request 2 onwards is version B for ever: a reader created after the change reads B consistently.
    const later = createHttpReader(`${a}/swap/once/small.bin`);
    expect(await later.read(0, 100)).toEqual(patternBytes(0, 100));
    expect(await later.read(100, 100)).toEqual(patternBytes(100, 100));
    expect(later.version?.etag).toBe('"B"');
  });

  it('sends no If-Range cross-origin (it would force a preflight), and If-Range with the ETag same-origin', async () => {
    const cross = createHttpReader(`${a}/swap/always/small.bin?t=cross`, { pageOrigin: 'https://app.example' });
    await cross.read(0, 100);
    await sourceErrorOf(cross.read(100, 100));
    const sameOrigin = createHttpReader(`${a}/swap/once/small.bin?t=same`, { pageOrigin: a });
    await sameOrigin.read(0, 100);
    const error = await sourceErrorOf(sameOrigin.read(100, 100));
    expect(error.code).toBe('source-changed');
    await waitUntil(() => servers.log.entries.every((entry) => entry.closed));
    const log = servers.log.entries.filter((entry) => entry.method === 'GET');
    expect(log.map((entry) => entry.path)).toEqual([
      '/swap/always/small.bin?t=cross',
      '/swap/always/small.bin?t=cross',
      '/swap/once/small.bin?t=same',
      '/swap/once/small.bin?t=same',
    ]);
    // The route drops the Range when If-Range is stale: the whole file comes back with a 200.
    expect(log.map((entry) => entry.status)).toEqual([206, 206, 206, 200]);
    expect(log.some((entry) => entry.method === 'OPTIONS')).toBe(false);
  });
});

describe('createHttpReader: a dripping server', () => {
  it('reports bytes as they arrive and a stall notice with bytes and seconds, cleared at the end', async () => {
    const events: ReaderActivity[] = [];
    const reader = createHttpReader(`${a}/drip/small.bin`, {
      stallNoticeMs: 1_500,
      onActivity: (activity) => events.push(activity),
    });
    const controller = new AbortController();
    const read = reader.read(0, 4, { signal: controller.signal });
    const done = await read;
    expect(done).toEqual(patternBytes(0, 4));
    const stalls = events.filter((event) => event.stall !== null);
    expect(stalls.length).toBeGreaterThan(0);
    const last = stalls[stalls.length - 1].stall ?? { bytes: -1, elapsedMs: -1 };
    expect(last.bytes).toBeGreaterThanOrEqual(1);
    expect(last.bytes).toBeLessThan(4);
    expect(last.elapsedMs).toBeGreaterThanOrEqual(1_500);
    expect(events[events.length - 1].stall).toBeNull();
    expect(events.map((event) => event.bytesFetched)).toContain(2);
  }, 15_000);
});

describe('createHttpReader: compressed and refused answers', () => {
  it('names a gzip-encoded 206 as compression, not CORS', async () => {
    const error = await sourceErrorOf(createHttpReader(`${a}/gzip206/small.bin`).read(0, 100));
    expect(error.code).toBe('compressed-response');
    expect(error.message).toContain('Content-Encoding: gzip');
    expect(error.message).toContain('not a CORS problem');
  });

  it('asks the front door for a fresh redirect once when the presigned link is refused (403)', async () => {
    const reader = createHttpReader(`${a}/x-presigned/small.bin`, { retryBaseMs: 5 });
    expect(await reader.read(0, 100)).toEqual(patternBytes(0, 100));
    expect(reader.finalUrl).toBe(`${b}/range/small.bin?n=2`);
  });

  it('gives up after one fresh redirect is refused too', async () => {
    const error = await sourceErrorOf(createHttpReader(`${a}/x-presigned-dead/small.bin`).read(0, 100));
    expect(error.code).toBe('http-403');
    expect(error.message).toContain('even after asking for a fresh one');
    expect(servers.log.entries.filter((entry) => entry.origin === 'A').length).toBe(2);
  });
});
