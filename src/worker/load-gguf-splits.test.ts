/**
 * A split GGUF through the whole worker load: several local files (a folder drop) group into one model with the
 * missing split listed in its place, and a URL to one split fetches its siblings by name over Range from the test
 * server. Values are read from the split that holds the tensor.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tensorName } from '../core/model';
import type { LoadResult, SourceSpec } from '../core/result';
import type { FixtureDir } from '../testing/fixture-dir';
import { e2eRoutes } from '../testing/servers/e2e-routes';
import { startTestServers, type TestServers } from '../testing/servers/range-server';
import { setUpTestServers } from '../testing/test-server-setup';
import { loadSource, type KeptLoad } from './load-source';
import type { WorkerResponse } from './protocol';

const DIR = fileURLToPath(new URL('../../fixtures/gguf/', import.meta.url));
const FIRST = 'tiny-llama-split-00001-of-00002.gguf';
const SECOND = 'tiny-llama-split-00002-of-00002.gguf';
const fixtureBytes = (file: string) => new Uint8Array(readFileSync(`${DIR}${file}`));

let fixtures: FixtureDir;
let servers: TestServers;

setUpTestServers(async (dir) => {
  fixtures = dir;
  mkdirSync(path.join(fixtures.root, 'splits'));
  mkdirSync(path.join(fixtures.root, 'lonely'));
  for (const file of [FIRST, SECOND]) {
    await fixtures.write(`splits/${file}`, fixtureBytes(file));
  }
  await fixtures.write(`lonely/${FIRST}`, fixtureBytes(FIRST));
  servers = await startTestServers({ root: fixtures.root, extraRoutes: e2eRoutes });
  return servers;
});

async function run(source: SourceSpec): Promise<{ result: LoadResult; kept: KeptLoad | null }> {
  const messages: WorkerResponse[] = [];
  let kept: KeptLoad | null = null;
  const context = {
    id: 1,
    signal: new AbortController().signal,
    post: (message: WorkerResponse) => messages.push(message),
    remember: (load: KeptLoad) => {
      kept = load;
    },
  };
  await loadSource(context, source, {});
  const result = messages.find((message) => message.type === 'result');
  if (result?.type !== 'result') {
    throw new Error(JSON.stringify(messages.find((message) => message.type === 'error')));
  }
  return { result: result.result, kept };
}

function parsedOf(result: LoadResult) {
  if (result.outcome.kind !== 'parsed' || !result.shards) {
    throw new Error('not a parsed shard set');
  }
  return { header: result.outcome.header, shards: result.shards };
}

const local = (files: string[]): SourceSpec => ({
  kind: 'files',
  files: files.map((file) => ({ path: `m/${file}`, blob: new Blob([fixtureBytes(file)]) })),
});

describe('split GGUF loads', () => {
  it('opens dropped splits as one model whose rows keep their file and data start', async () => {
    const { result, kept } = await run(local([SECOND, FIRST, 'tiny-llama-Q4_K_M.gguf']));
    const { header, shards } = parsedOf(result);
    expect(header.format).toBe('gguf');
    expect(header.tensors.count).toBe(22);
    expect(header.findings).toEqual([]);
    expect(header.gguf?.architecture).toBe('llama');
    expect(shards.report.shards.map((shard) => [shard.file, shard.tensors, shard.dataStart])).toEqual([
      [FIRST, 12, 8224],
      [SECOND, 10, 704],
    ]);
    // The single GGUF beside the splits is another choice, keyed apart.
    expect(result.choices?.items.map((item) => item.key)).toEqual([
      'm/tiny-llama-Q4_K_M.gguf',
      'm/tiny-llama-split-*.gguf',
    ]);
    expect(result.choices?.selected).toBe('m/tiny-llama-split-*.gguf');
    // Each row's bytes are located in its own split, from that split's data start.
    const last = header.tensors.count - 1;
    expect(tensorName(header.tensors, last)).toBe('output.weight');
    expect(kept?.data?.locate(last)?.dataStart).toBe(704);
    expect(kept?.data?.locate(0)?.dataStart).toBe(8224);
  });

  it('lists a split that was not dropped as missing, and llama.cpp refuses the set', async () => {
    const { result } = await run(local([FIRST, 'tiny-llama-Q4_K_M.gguf']));
    const { header, shards } = parsedOf(result);
    expect(shards.report.shards.map((shard) => [shard.file, shard.present])).toEqual([
      [FIRST, true],
      [SECOND, false],
    ]);
    expect(header.findings.map((finding) => finding.code)).toEqual(['gguf-split-missing']);
    expect(header.findings[0].message).toContain('not among the dropped files');
  });

  it('fetches the siblings of a split URL by name, keeping the given URL for its own file', async () => {
    const url = `${servers.originA}/range/splits/${SECOND}?t=split-url`;
    const { result } = await run({ kind: 'url', url });
    const { header, shards } = parsedOf(result);
    expect(header.tensors.count).toBe(22);
    expect(header.findings).toEqual([]);
    expect(header.gguf?.name).toBe('Tiny Llama (split)');
    expect(result.source).toMatchObject({ kind: 'url', name: 'tiny-llama-split (2 shards)' });
    expect(shards.report.shards.every((shard) => shard.present)).toBe(true);
    const paths = servers.log.entries.filter((entry) => entry.path.includes('/splits/')).map((entry) => entry.path);
    expect(paths.some((path) => path.endsWith(`${SECOND}?t=split-url`))).toBe(true);
    expect(paths.some((path) => path.endsWith(FIRST))).toBe(true);
    expect(servers.log.entries.every((entry) => entry.status === 206)).toBe(true);
  });

  it('says which sibling of a split URL the server does not have', async () => {
    const { result } = await run({ kind: 'url', url: `${servers.originA}/range/lonely/${FIRST}` });
    const { header } = parsedOf(result);
    expect(header.findings.map((finding) => finding.code)).toEqual(['gguf-split-missing']);
    expect(header.findings[0].message).toMatch(/"tiny-llama-split-00002-of-00002\.gguf" \(.*404/);
  });
});

describe('several pasted URLs', () => {
  it('open as one split GGUF when they are its files, even run together by a single-line box', async () => {
    const base = `${servers.originA}/range/splits/`;
    for (const url of [`${base}${FIRST}\n${base}${SECOND}`, `${base}${FIRST}${base}${SECOND}`]) {
      const { result } = await run({ kind: 'url', url });
      expect(parsedOf(result).header.tensors.count).toBe(22);
    }
  });

  it('are refused with what to do when they are not one split set', async () => {
    const messages: WorkerResponse[] = [];
    const context = {
      id: 1,
      signal: new AbortController().signal,
      post: (m: WorkerResponse) => messages.push(m),
      remember: () => {},
    };
    await loadSource(
      context,
      { kind: 'url', url: `${servers.originA}/range/splits/${FIRST} ${servers.originA}/x.gguf` },
      {},
    );
    const error = messages.find((message) => message.type === 'error');
    expect(error?.type === 'error' && error.error.message).toMatch(/only as the files of one split GGUF/);
  });
});
