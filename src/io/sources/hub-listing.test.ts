/** The Hub listing client against a fake fetch (edge cases) and against the e2e fake Hub (pagination for real). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eRoutes, HUB_PAGE_SIZE } from '../../testing/servers/e2e-routes';
import { startTestServers, type TestServers } from '../../testing/servers/range-server';
import { HF_HUB_BASE, parseHubApiTreeUrl, repoDisplay, resolveUrl, treeUrl, type HubRepo } from './hub';
import { MAX_REPO_FILES } from '../../core/limits';
import { listRepoFiles, nextLink } from './hub-listing';
import { createFixtureDir, type FixtureDir } from '../../testing/fixture-dir';

const REPO: HubRepo = { base: HF_HUB_BASE, type: 'model', id: 'org/name', revision: 'main' };

function json(body: unknown, init: ResponseInit = {}): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' }, ...init });
}

interface Call {
  url: string;
  headers: Record<string, string>;
}

function fakeFetch(answer: (url: string, call: number) => Response | Promise<Response>): {
  fetchImpl: typeof fetch;
  calls: Call[];
} {
  const calls: Call[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    calls.push({ url, headers: { ...(init?.headers as Record<string, string>) } });
    return answer(url, calls.length);
  }) as typeof fetch;
  return { fetchImpl, calls };
}

const noSleep = async () => undefined;

describe('parseHubApiTreeUrl', () => {
  it('recognises a Hub listing URL and keeps everything before /api/ as the base', () => {
    expect(parseHubApiTreeUrl('https://huggingface.co/api/models/org/name/tree/main')).toEqual(REPO);
    expect(parseHubApiTreeUrl('http://127.0.0.1:4601/hub/api/models/lens-e2e/tiny/tree/main?recursive=true')).toEqual({
      base: 'http://127.0.0.1:4601/hub',
      type: 'model',
      id: 'lens-e2e/tiny',
      revision: 'main',
    });
  });

  it('reads a folder, an encoded revision, other repo types and legacy ids', () => {
    expect(parseHubApiTreeUrl('https://huggingface.co/api/models/org/name/tree/refs%2Fpr%2F3/text_encoder')).toEqual({
      ...REPO,
      revision: 'refs/pr/3',
      path: 'text_encoder',
    });
    expect(parseHubApiTreeUrl('https://huggingface.co/api/datasets/org/data/tree/v1')).toMatchObject({
      type: 'dataset',
      id: 'org/data',
      revision: 'v1',
    });
    expect(parseHubApiTreeUrl('https://huggingface.co/api/models/gpt2/tree/main')).toMatchObject({ id: 'gpt2' });
  });

  it.each([
    'https://huggingface.co/org/name/tree/main',
    'https://huggingface.co/api/models/org/name',
    'https://huggingface.co/api/models/org/name/tree/',
    'https://huggingface.co/api/models/org/na me/tree/main',
    'https://huggingface.co/api/models/org/name/tree/main/%2e%2e/%2e%2e/%2e%2e',
    'https://huggingface.co/api/models/org/name/tree/%2E%2E',
    'https://huggingface.co/api/things/org/name/tree/main',
    'ftp://huggingface.co/api/models/org/name/tree/main',
    'https://user:pass@example.com/api/models/org/name/tree/main',
    'not a url',
  ])('refuses %s', (url) => {
    expect(parseHubApiTreeUrl(url)).toBeNull();
  });
});

describe('URLs', () => {
  it('builds the listing and resolve URLs the Hub answers', () => {
    expect(treeUrl(REPO)).toBe('https://huggingface.co/api/models/org/name/tree/main?recursive=true&expand=false');
    expect(treeUrl({ ...REPO, revision: 'refs/pr/1', path: 'a b/c' })).toBe(
      'https://huggingface.co/api/models/org/name/tree/refs%2Fpr%2F1/a%20b/c?recursive=true&expand=false',
    );
    expect(resolveUrl(REPO, 'transformer/x #1.safetensors')).toBe(
      'https://huggingface.co/org/name/resolve/main/transformer/x%20%231.safetensors',
    );
    expect(resolveUrl({ ...REPO, type: 'dataset' }, 'a.safetensors')).toBe(
      'https://huggingface.co/datasets/org/name/resolve/main/a.safetensors',
    );
  });

  it('names a repository one way: folder, then a revision other than main, a commit shortened', () => {
    expect(repoDisplay({ ...REPO, revision: 'v2', path: 'unet' })).toBe('org/name/unet @ v2');
    expect(repoDisplay({ ...REPO, revision: '0123456789abcdef0123456789abcdef01234567' })).toBe('org/name @ 0123456');
    expect(repoDisplay({ ...REPO, type: 'dataset' })).toBe('datasets/org/name');
  });

  it('reads rel="next" from a Link header', () => {
    const page = 'https://huggingface.co/api/models/org/name/tree/main?recursive=true';
    expect(nextLink('<https://huggingface.co/api/x?cursor=abc>; rel="next"', page)).toBe(
      'https://huggingface.co/api/x?cursor=abc',
    );
    expect(nextLink('<https://a/prev>; rel="prev", </api/next?c=1>; rel=next', page)).toBe(
      'https://huggingface.co/api/next?c=1',
    );
    expect(nextLink('<https://a/prev>; rel="prev"', page)).toBeNull();
    expect(nextLink(null, page)).toBeNull();
  });
});

describe('listRepoFiles with a fake fetch', () => {
  it('follows pagination and keeps files with their LFS sizes', async () => {
    const { fetchImpl, calls } = fakeFetch((url) =>
      url.includes('cursor=2')
        ? json([{ type: 'file', path: 'b/model.safetensors', size: 134, lfs: { size: 5_000_000_000 } }])
        : json(
            [
              { type: 'directory', path: 'b', size: 0 },
              { type: 'file', path: 'config.json', size: 700 },
            ],
            { headers: { Link: `<${url}&cursor=2>; rel="next"` } },
          ),
    );
    const listing = await listRepoFiles(REPO, { fetchImpl });
    expect(listing.files).toEqual([
      { path: 'config.json', size: 700 },
      { path: 'b/model.safetensors', size: 5_000_000_000 },
    ]);
    expect(listing.requests).toBe(2);
    expect(listing.bytesFetched).toBeGreaterThan(0);
    expect(calls.map((call) => call.url)).toEqual([treeUrl(REPO), `${treeUrl(REPO)}&cursor=2`]);
  });

  it('sends the token to huggingface.co only', async () => {
    const hub = fakeFetch(() => json([]));
    await listRepoFiles(REPO, { fetchImpl: hub.fetchImpl, token: 'hf_x' });
    expect(hub.calls[0].headers.Authorization).toBe('Bearer hf_x');
    const other = fakeFetch(() => json([]));
    await listRepoFiles({ ...REPO, base: 'http://127.0.0.1:9/hub' }, { fetchImpl: other.fetchImpl, token: 'hf_x' });
    expect(other.calls[0].headers.Authorization).toBeUndefined();
  });

  it('never follows a next page to another host', async () => {
    const { fetchImpl, calls } = fakeFetch(() =>
      json([], { headers: { Link: '<https://evil.example/x>; rel="next"' } }),
    );
    await expect(listRepoFiles(REPO, { fetchImpl, token: 'hf_x' })).rejects.toMatchObject({ code: 'http-other' });
    expect(calls).toHaveLength(1);
  });

  it('skips paths that could leave the repository', async () => {
    const { fetchImpl } = fakeFetch(() =>
      json([
        { type: 'file', path: '../escape.safetensors', size: 1 },
        { type: 'file', path: '/abs.safetensors', size: 1 },
        { type: 'file', path: 'ok.safetensors', size: 1 },
        { type: 'file', size: 1 },
        'junk',
      ]),
    );
    const listing = await listRepoFiles(REPO, { fetchImpl });
    expect(listing.files.map((file) => file.path)).toEqual(['ok.safetensors']);
    expect(listing.unsafePaths).toBe(2);
  });

  it('stops at MAX_REPO_FILES', async () => {
    const page = Array.from({ length: 1000 }, (_, i) => ({ type: 'file', path: `f${i}.json`, size: 1 }));
    let served = 0;
    const { fetchImpl } = fakeFetch((url) => {
      served++;
      return json(page, { headers: { Link: `<${url.split('&cursor')[0]}&cursor=${served}>; rel="next"` } });
    });
    const listing = await listRepoFiles(REPO, { fetchImpl });
    expect(listing.files).toHaveLength(MAX_REPO_FILES);
    expect(listing.truncated).toBe(true);
  });

  it.each([
    [401, 'http-401', /private, gated or does not exist/],
    [403, 'http-403', /denied/],
    [404, 'http-404', /no model repository org\/name/],
    [418, 'http-other', /HTTP 418/],
  ])('explains HTTP %i', async (status, code, message) => {
    const { fetchImpl } = fakeFetch(() => new Response('{}', { status }));
    const failure = listRepoFiles(REPO, { fetchImpl, sleep: noSleep });
    await expect(failure).rejects.toMatchObject({ code, status });
    await expect(failure).rejects.toThrow(message);
  });

  it('retries 5xx and network errors, then gives up with a clear error', async () => {
    const flaky = fakeFetch((_url, call) => (call === 1 ? new Response('', { status: 503 }) : json([])));
    await expect(listRepoFiles(REPO, { fetchImpl: flaky.fetchImpl, sleep: noSleep })).resolves.toMatchObject({
      files: [],
    });
    expect(flaky.calls).toHaveLength(2);
    const down = fakeFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    await expect(listRepoFiles(REPO, { fetchImpl: down.fetchImpl, sleep: noSleep })).rejects.toMatchObject({
      code: 'network',
    });
    expect(down.calls).toHaveLength(3);
  });

  it('refuses answers that are not a file list', async () => {
    await expect(listRepoFiles(REPO, { fetchImpl: fakeFetch(() => json({ error: 'x' })).fetchImpl })).rejects.toThrow(
      /not a file list|other than a file list/,
    );
    await expect(listRepoFiles(REPO, { fetchImpl: fakeFetch(() => new Response('<html>')).fetchImpl })).rejects.toThrow(
      /not JSON/,
    );
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      listRepoFiles(REPO, { fetchImpl: fakeFetch(() => json([])).fetchImpl, signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'aborted' });
  });
});

describe('listRepoFiles against the e2e fake Hub', () => {
  let fixtures: FixtureDir;
  let servers: TestServers;
  const files = [
    'README.md',
    'transformer/config.json',
    'transformer/diffusion_pytorch_model-00001-of-00002.safetensors',
    'transformer/diffusion_pytorch_model-00002-of-00002.safetensors',
    'transformer/diffusion_pytorch_model.safetensors.index.json',
    'vae/diffusion_pytorch_model.safetensors',
  ];

  beforeAll(async () => {
    fixtures = await createFixtureDir();
    const { mkdir } = await import('node:fs/promises');
    const path = await import('node:path');
    for (const file of files) {
      await mkdir(path.dirname(path.join(fixtures.root, 'hub/org/repo', file)), { recursive: true });
      await fixtures.write(`hub/org/repo/${file}`, new Uint8Array(file.endsWith('.safetensors') ? 64 : 8));
    }
    servers = await startTestServers({ root: fixtures.root, extraRoutes: e2eRoutes });
  });

  afterAll(async () => {
    await servers?.close();
    await fixtures?.remove();
  });

  it('lists every file across pages, with LFS sizes, and files resolve with Range', async () => {
    const repo = parseHubApiTreeUrl(`${servers.originA}/hub/api/models/org/repo/tree/main`);
    expect(repo).not.toBeNull();
    if (!repo) {
      return;
    }
    const listing = await listRepoFiles(repo);
    expect(listing.files.map((file) => file.path).sort()).toEqual([...files].sort());
    expect(listing.files.find((file) => file.path.endsWith('vae/diffusion_pytorch_model.safetensors'))?.size).toBe(64);
    // Directories count towards pages too: 2 folders + 6 files.
    expect(listing.requests).toBe(Math.ceil(8 / HUB_PAGE_SIZE));
    const response = await fetch(resolveUrl(repo, 'vae/diffusion_pytorch_model.safetensors'), {
      headers: { Range: 'bytes=0-7' },
    });
    expect(response.status).toBe(206);
    expect((await response.arrayBuffer()).byteLength).toBe(8);
  });

  it('lists one folder, and answers 404 for unknown repositories and revisions', async () => {
    const base = `${servers.originA}/hub`;
    const folder = await listRepoFiles({ base, type: 'model', id: 'org/repo', revision: 'main', path: 'vae' });
    expect(folder.files.map((file) => file.path)).toEqual(['vae/diffusion_pytorch_model.safetensors']);
    await expect(listRepoFiles({ base, type: 'model', id: 'org/none', revision: 'main' })).rejects.toMatchObject({
      code: 'http-404',
    });
    await expect(listRepoFiles({ base, type: 'model', id: 'org/repo', revision: 'v9' })).rejects.toMatchObject({
      code: 'http-404',
    });
  });
});
