/**
 * Issue #7, tokens: drives the real parser worker module through its message protocol, with `fetch` replaced by a
 * recording fake, and checks that a Hugging Face token goes only to https huggingface.co / hf.co, and never into
 * anything the worker posts back (progress, results, errors, reports are built from those) or logs.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildSafetensors } from '../testing/build-safetensors';
import { tinyLlamaTensors } from '../testing/fixture-manifest';
import type { WorkerRequest, WorkerResponse } from './protocol';

const TOKEN = 'hf_TESTtokenNEVERleak0123456789';
const FILE = buildSafetensors(tinyLlamaTensors(1), { metadata: { format: 'pt' } });

interface SeenRequest {
  url: string;
  method: string;
  authorization: string | null;
}

const posted: WorkerResponse[] = [];
const seen: SeenRequest[] = [];
let respond: (url: string, init: RequestInit | undefined) => Response = rangeResponse;
let scope: {
  postMessage: (message: WorkerResponse) => void;
  onmessage: ((event: { data: WorkerRequest }) => void) | null;
};
const consoleCalls: unknown[][] = [];
let nextId = 1;

function rangeResponse(url: string, init: RequestInit | undefined): Response {
  if (!new URL(url).pathname.endsWith('.safetensors')) {
    return new Response('not found', { status: 404 });
  }
  const range = /bytes=(\d+)-(\d+)/.exec(new Headers(init?.headers).get('range') ?? '');
  if (!range) {
    return new Response(FILE.slice(), { status: 200, headers: { 'Content-Length': String(FILE.length) } });
  }
  const start = Number(range[1]);
  const end = Math.min(Number(range[2]), FILE.length - 1);
  return new Response(FILE.slice(start, end + 1), {
    status: 206,
    headers: { 'Content-Range': `bytes ${start}-${end}/${FILE.length}`, 'Content-Length': String(end - start + 1) },
  });
}

beforeAll(async () => {
  scope = { postMessage: (message) => posted.push(message), onmessage: null };
  vi.stubGlobal('self', scope);
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    seen.push({ url, method: init?.method ?? 'GET', authorization: new Headers(init?.headers).get('authorization') });
    return respond(url, init);
  });
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      consoleCalls.push(args);
    });
  }
  await import('./parser.worker');
});

afterAll(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

beforeEach(() => {
  posted.length = 0;
  seen.length = 0;
  respond = rangeResponse;
});

afterEach(() => {
  // Whatever a test did: a request that carried the token went to https huggingface.co or hf.co, default port.
  for (const request of seen.filter((candidate) => candidate.authorization !== null)) {
    const url = new URL(request.url);
    expect(url.protocol).toBe('https:');
    expect(['huggingface.co', 'hf.co']).toContain(url.hostname);
    expect(url.port).toBe('');
  }
});

/** Opens a URL with the token and waits for the load to settle (error, or result plus analyses). */
async function load(url: string): Promise<WorkerResponse[]> {
  const id = nextId++;
  scope.onmessage?.({ data: { type: 'open', id, source: { kind: 'url', url, token: TOKEN }, options: {} } });
  const settled = () =>
    posted.some(
      (message) =>
        'id' in message &&
        message.id === id &&
        (message.type === 'error' ||
          message.type === 'analyses' ||
          (message.type === 'result' && !message.result.analysisPending)),
    );
  await vi.waitFor(() => expect(settled()).toBe(true), { timeout: 10_000 });
  return posted.filter((message) => 'id' in message && message.id === id);
}

function leaks(value: unknown): boolean {
  return JSON.stringify(value, (_key, v: unknown) => (ArrayBuffer.isView(v) ? undefined : v)).includes(TOKEN);
}

describe('the worker with a Hugging Face token', () => {
  it('sends it to https://huggingface.co and posts nothing that contains it', async () => {
    const messages = await load('https://huggingface.co/org/model/resolve/main/model.safetensors');
    expect(messages.some((message) => message.type === 'result')).toBe(true);
    const hub = seen.filter((request) => new URL(request.url).hostname === 'huggingface.co');
    expect(hub.length).toBeGreaterThan(0);
    expect(hub.every((request) => request.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(leaks(messages)).toBe(false);
  });

  it('upgrades an http:// Hub link to https before sending it; nothing travels in plain text', async () => {
    await load('http://huggingface.co/org/model/resolve/main/model.safetensors');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((request) => request.url.startsWith('https://huggingface.co/'))).toBe(true);
  });

  it.each([
    'https://example.com/model.safetensors',
    'https://huggingface.co.evil.example/org/model/resolve/main/model.safetensors',
    'https://evil.example/huggingface.co/model.safetensors',
    'https://cdn-lfs.hf.co/repos/ab/cd/model.safetensors',
    'https://huggingface.co:8443/org/model/resolve/main/model.safetensors',
  ])('never sends it to %s', async (url) => {
    const messages = await load(url);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((request) => request.authorization === null)).toBe(true);
    expect(leaks(messages)).toBe(false);
  });

  it.each([401, 403, 404, 500])('keeps it out of the HTTP %i error the user sees', async (status) => {
    respond = () => new Response('denied', { status, headers: { 'X-Error-Code': 'GatedRepo' } });
    const messages = await load('https://huggingface.co/org/gated/resolve/main/model.safetensors');
    const error = messages.find((message) => message.type === 'error');
    expect(error).toBeDefined();
    expect(leaks(messages)).toBe(false);
  });

  it('keeps it out of a network failure', async () => {
    respond = () => {
      throw new TypeError('Failed to fetch');
    };
    const messages = await load('https://hf.co/org/model/resolve/main/model.safetensors');
    expect(messages.find((message) => message.type === 'error')).toBeDefined();
    expect(leaks(messages)).toBe(false);
  });

  it('never logged anything containing it', () => {
    expect(leaks(consoleCalls.map((args) => args.map(String)))).toBe(false);
  });
});
