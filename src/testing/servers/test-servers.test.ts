/** Smoke test of the e2e test servers: every route behaves as documented, checked with Node's fetch. */
import { describe, expect, it } from 'vitest';
import {
  LONG_BODY_EXTRA_BYTES,
  SLOW_CHUNK_BYTES,
  SLOW_INTERVAL_MS,
  STALL_SENT_BYTES,
  startTestServers,
  type TestServers,
} from './range-server';
import { HUGE_FILE_BYTES, patternBytes, SMALL_FILE_BYTES, type FixtureDir } from '../fixture-dir';
import { setUpTestServers } from '../test-server-setup';

let fixtures: FixtureDir;
let servers: TestServers;
let a: string;
let b: string;

setUpTestServers(async (dir) => {
  fixtures = dir;
  await fixtures.sparse('huge.bin', HUGE_FILE_BYTES);
  servers = await startTestServers({
    root: fixtures.root,
    extraRoutes: (req, res, ctx) => {
      if (ctx.url.pathname === '/hfapi/models/org/name') {
        ctx.applyCors(res);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ id: 'org/name' }));
        return true;
      }
      return false;
    },
  });
  a = servers.originA;
  b = servers.originB;
  return servers;
});

async function body(response: Response): Promise<Uint8Array> {
  return new Uint8Array(await response.arrayBuffer());
}

const range = (start: number, end: number): RequestInit => ({ headers: { Range: `bytes=${start}-${end}` } });

describe('test servers', () => {
  it('listens on two 127.0.0.1 origins', () => {
    expect(a).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(b).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(a).not.toBe(b);
  });

  it('/range serves 206 with Content-Range and CORS, 200 without Range, 416 past EOF', async () => {
    const partial = await fetch(`${a}/range/small.bin`, range(10, 19));
    expect(partial.status).toBe(206);
    expect(partial.headers.get('content-range')).toBe(`bytes 10-19/${SMALL_FILE_BYTES}`);
    expect(partial.headers.get('access-control-allow-origin')).toBe('*');
    expect(partial.headers.get('access-control-expose-headers')).toContain('Content-Range');
    expect(await body(partial)).toEqual(patternBytes(10, 10));

    const whole = await fetch(`${a}/range/tiny.bin`);
    expect(whole.status).toBe(200);
    expect(await body(whole)).toEqual(patternBytes(0, 16));

    const clamped = await fetch(`${a}/range/tiny.bin`, range(8, 1000));
    expect(clamped.headers.get('content-range')).toBe('bytes 8-15/16');
    expect(await body(clamped)).toEqual(patternBytes(8, 8));

    const past = await fetch(`${a}/range/tiny.bin`, range(16, 100));
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe('bytes */16');

    const missing = await fetch(`${a}/range/nope.bin`);
    expect(missing.status).toBe(404);
    const traversal = await fetch(`${a}/range/..%2F..%2Fetc%2Fpasswd`);
    expect(traversal.status).toBe(404);
  });

  it('answers preflights with Authorization allowed, except on /nocors', async () => {
    const preflight = await fetch(`${a}/range/small.bin`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    const blocked = await fetch(`${a}/nocors/small.bin`, { method: 'OPTIONS' });
    expect(blocked.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('/nocors serves ranges without CORS headers', async () => {
    const response = await fetch(`${a}/nocors/small.bin`, range(0, 9));
    expect(response.status).toBe(206);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(await body(response)).toEqual(patternBytes(0, 10));
  });

  it('/norange ignores Range on a small file', async () => {
    const response = await fetch(`${a}/norange/small.bin`, range(0, 9));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(SMALL_FILE_BYTES));
    expect((await body(response)).length).toBe(SMALL_FILE_BYTES);
  });

  it('/norange streams a 5 GiB sparse file and counts only what it wrote before the client left', async () => {
    const controller = new AbortController();
    const response = await fetch(`${a}/norange/huge.bin`, { ...range(0, 9), signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(HUGE_FILE_BYTES));
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    const entry = await servers.log.waitFor((e) => e.path === '/norange/huge.bin' && e.closed);
    expect(entry.abortedEarly).toBe(true);
    expect(entry.bytesSent).toBeGreaterThan(0);
    // Backpressure: kernel and stream buffers hold a few MB at most, nowhere near 5 GiB.
    expect(entry.bytesSent).toBeLessThan(64 * 1024 * 1024);
  });

  it('/redirect sends a 302 to the other origin, which logs the request', async () => {
    const manual = await fetch(`${a}/redirect/small.bin`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe(`${b}/range/small.bin`);
    const followed = await fetch(`${a}/redirect/small.bin`, range(5, 9));
    expect(followed.status).toBe(206);
    expect(followed.url).toBe(`${b}/range/small.bin`);
    expect(await body(followed)).toEqual(patternBytes(5, 5));
    expect(servers.log.forOrigin('B').some((e) => e.path === '/range/small.bin')).toBe(true);
  });

  it('/status/<code> answers that status with CORS headers', async () => {
    for (const code of [401, 403, 404, 500]) {
      const response = await fetch(`${a}/status/${code}/small.bin`);
      expect(response.status).toBe(code);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      await response.arrayBuffer();
    }
    const notFound = await fetch(`${a}/status/404/small.bin`);
    expect(notFound.headers.get('x-error-code')).toBe('EntryNotFound');
  });

  it('/flaky500 fails the first GET per path, then serves', async () => {
    const first = await fetch(`${a}/flaky500/small.bin`, range(0, 9));
    expect(first.status).toBe(500);
    await first.arrayBuffer();
    const second = await fetch(`${b}/flaky500/small.bin`, range(0, 9));
    expect(second.status).toBe(206);
    expect(await body(second)).toEqual(patternBytes(0, 10));
    servers.resetFaults();
    const again = await fetch(`${a}/flaky500/small.bin`, range(0, 9));
    expect(again.status).toBe(500);
    await again.arrayBuffer();
  });

  it('/slow sends the body in timed chunks', async () => {
    const started = Date.now();
    const response = await fetch(`${a}/slow/small.bin`, range(0, 3 * SLOW_CHUNK_BYTES - 1));
    expect(await body(response)).toEqual(patternBytes(0, 3 * SLOW_CHUNK_BYTES));
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * SLOW_INTERVAL_MS - 5);
  });

  it('/drop cuts the first response mid-body, then serves normally', async () => {
    const first = await fetch(`${a}/drop/small.bin`, range(0, 99_999));
    expect(first.status).toBe(206);
    await expect(first.arrayBuffer()).rejects.toThrow();
    const entry = await servers.log.waitFor((e) => e.path === '/drop/small.bin' && e.closed);
    expect(entry.abortedEarly).toBe(true);
    expect(entry.bytesSent).toBe(50_000);
    const second = await fetch(`${a}/drop/small.bin`, range(0, 99_999));
    expect(await body(second)).toEqual(patternBytes(0, 100_000));
  });

  it('/stall sends a few bytes, then nothing', async () => {
    const controller = new AbortController();
    const response = await fetch(`${a}/stall/small.bin`, { ...range(0, 99_999), signal: controller.signal });
    const reader = response.body?.getReader();
    let received = 0;
    const deadline = Date.now() + 300;
    const reading = (async () => {
      for (;;) {
        const next = await reader?.read();
        if (!next || next.done) {
          return;
        }
        received += next.value.length;
      }
    })();
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(received).toBe(STALL_SENT_BYTES);
    controller.abort();
    await expect(reading).rejects.toThrow();
  });

  it('/badrange names a different range than asked', async () => {
    const response = await fetch(`${a}/badrange/small.bin`, range(100, 199));
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes 101-200/${SMALL_FILE_BYTES}`);
    expect(await body(response)).toEqual(patternBytes(101, 100));
  });

  it('/longbody sends more than the asked range under a correct Content-Range', async () => {
    const response = await fetch(`${a}/longbody/small.bin`, range(100, 199));
    expect(response.headers.get('content-range')).toBe(`bytes 100-199/${SMALL_FILE_BYTES}`);
    const bytes = await body(response);
    expect(bytes.length).toBe(100 + LONG_BODY_EXTRA_BYTES);
    expect(bytes.subarray(0, 100)).toEqual(patternBytes(100, 100));
  });

  it('/loop redirects forever; Node fetch gives up after 20', async () => {
    const manual = await fetch(`${a}/loop/7`, { redirect: 'manual' });
    expect(manual.headers.get('location')).toBe('/loop/8');
    const error = await fetch(`${a}/loop/0`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error as Error & { cause?: Error }).cause?.message)).toMatch(/redirect count exceeded/);
  });

  it('extraRoutes answer before the built-in routes; unknown routes are 404', async () => {
    const fallback = await fetch(`${a}/hfapi/models/other`);
    expect(fallback.status).toBe(404);
    await fallback.arrayBuffer();
    const registered = await fetch(`${a}/hfapi/models/org/name`);
    expect(await registered.json()).toEqual({ id: 'org/name' });
  });

  it('logs method, range, authorization value, status and bytes; /__log serves it as JSON', async () => {
    await (
      await fetch(`${a}/range/small.bin`, { headers: { Range: 'bytes=0-99', Authorization: 'Bearer t0k' } })
    ).arrayBuffer();
    await (await fetch(`${b}/range/tiny.bin`)).arrayBuffer();
    await servers.log.waitFor((e) => e.origin === 'B' && e.closed);
    const [first] = servers.log.forOrigin('A');
    expect(first).toMatchObject({
      method: 'GET',
      path: '/range/small.bin',
      range: 'bytes=0-99',
      hasAuthorization: true,
      authorization: 'Bearer t0k',
      status: 206,
      bytesSent: 100,
      abortedEarly: false,
    });
    const remote = (await (await fetch(`${b}/__log?origin=B`)).json()) as { entries: Array<{ path: string }> };
    expect(remote.entries.map((e) => e.path)).toEqual(['/range/tiny.bin']);
    await (await fetch(`${a}/__log/clear`)).arrayBuffer();
    expect(servers.log.entries).toHaveLength(0);
  });
});
