/**
 * "Compare values" across formats with both sides opened by URL from the HTTP test servers: the tiny Llama pair
 * (fixtures/values/tiny-llama-*) gives the local case's figures, its reads are counted under the `values` purpose,
 * and a config.json read only after the diff (a URL's sidecars are read on demand) still gives the q/k head counts
 * a GGUF without them needs. Runs the worker's own steps: the compare handler keeps the diff, `valuePairsOf` lines
 * the pairs up from the kept loads when "Compare values" runs, values-compare.ts reads and measures them.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPARE_RULES } from '../core/compare/align';
import type { ValueComparison, ValuesComparisonResult } from '../core/values/compare-values';
import type { LoadResult, SourceSpec } from '../core/result';
import { ggufWithoutKeys } from '../testing/build-gguf';
import type { FixtureDir } from '../testing/fixture-dir';
import { startTestServers, type TestServers } from '../testing/servers/range-server';
import { setUpTestServers } from '../testing/test-server-setup';
import { present } from '../testing/values-fixtures';
import { handleCompareRequest, valuePairsOf } from './compare-handler';
import { loadSource, type KeptLoad } from './load-source';
import type { WorkerResponse } from './protocol';
import { compareTensorValues } from './values-compare';

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'values');
const HF = 'tiny-llama-hf.safetensors';
const GGUF = 'tiny-llama-Q8_0.gguf';

interface Pair {
  headCount: number;
  headCountKv: number;
  tensors: Array<{ hf: string; maxAbs: number; relL2: number; cosine: number; equal: boolean }>;
}

const pair = JSON.parse(readFileSync(join(DIR, 'tiny-llama-pair.json'), 'utf8')) as Pair;
const fixtureBytes = (name: string) => new Uint8Array(readFileSync(join(DIR, name)));

let fixtures: FixtureDir;
let servers: TestServers;

setUpTestServers(async (dir) => {
  fixtures = dir;
  servers = await startTestServers({ root: fixtures.root });
  return servers;
});

async function writeFolder(folder: string, files: Record<string, Uint8Array>): Promise<void> {
  await mkdir(join(fixtures.root, folder), { recursive: true });
  for (const [name, bytes] of Object.entries(files)) {
    await fixtures.write(`${folder}/${name}`, bytes);
  }
}

/** The worker's kept loads by load id, as parser.worker.ts holds them. */
const kept = new Map<number, KeptLoad>();
let nextId = 1;

async function open(source: SourceSpec): Promise<{ loadId: number; load: KeptLoad; result: LoadResult }> {
  const loadId = nextId++;
  const messages: WorkerResponse[] = [];
  await loadSource(
    {
      id: loadId,
      signal: new AbortController().signal,
      post: (message) => messages.push(message),
      remember: (load) => kept.set(loadId, load),
    },
    source,
    {},
  );
  const result = messages.find((message) => message.type === 'result');
  if (result?.type !== 'result') {
    throw new Error(`load failed: ${JSON.stringify(messages.find((message) => message.type === 'error'))}`);
  }
  return { loadId, load: present(kept.get(loadId), 'kept load'), result: result.result };
}

const openUrl = (folder: string, name: string) =>
  open({ kind: 'url', url: `${servers.originA}/range/${folder}/${name}` });
const openFile = (name: string) => open({ kind: 'file', file: new File([fixtureBytes(name) as BlobPart], name) });

/** The worker's `compare` request over two kept loads; the compare id it keeps the diff under. */
function diff(loadA: number, loadB: number): number {
  const id = nextId++;
  const replies: WorkerResponse[] = [];
  handleCompareRequest(
    { type: 'compare', id, loadA, loadB, rules: [...DEFAULT_COMPARE_RULES] },
    (loadId) => kept.get(loadId),
    (message) => replies.push(message),
  );
  expect(replies.map((reply) => reply.type)).toEqual(['compare-result']);
  return id;
}

/** What pairs "Compare values" would line up for the kept comparison now. */
const pairsNow = (compareId: number) =>
  present(
    valuePairsOf(compareId, (loadId) => kept.get(loadId)),
    'pairs',
  );

/** "Compare values" as the worker runs it for a `compare-values` request. */
async function compareValues(compareId: number, a: KeptLoad, b: KeptLoad): Promise<ValuesComparisonResult> {
  const job = { signal: new AbortController().signal, progress: () => {} };
  return compareTensorValues(a, b, pairsNow(compareId), job);
}

/** The figures a comparison gives per tensor, in a fixed order. */
function figures(tensors: readonly ValueComparison[]) {
  return [...tensors]
    .sort((x, y) => x.tensor.localeCompare(y.tensor))
    .map(({ tensor, basis, identical, maxAbs, relL2, cosine, elements }) => ({
      tensor,
      basis,
      identical,
      maxAbs,
      relL2,
      cosine,
      elements,
    }));
}

function relativelyClose(actual: number | null, wanted: number, tolerance = 1e-6): void {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual ?? NaN) - wanted)).toBeLessThanOrEqual(tolerance * Math.max(Math.abs(wanted), 1e-30));
}

/** The figures numpy computed for every tensor of the pair (tiny-llama-pair.json). */
function expectPairFigures(result: ValuesComparisonResult): void {
  expect(result.tensors.map((entry) => entry.tensor).sort()).toEqual(pair.tensors.map((entry) => entry.hf).sort());
  for (const want of pair.tensors) {
    const got = present(
      result.tensors.find((entry) => entry.tensor === want.hf),
      want.hf,
    );
    expect(got.maxAbs).toBe(want.maxAbs);
    relativelyClose(got.relL2, want.relL2);
    relativelyClose(got.cosine, want.cosine);
    expect(got.identical).toBe(want.equal);
  }
}

/** GETs the server answered for `path` since entry `from` of its log: their count and body bytes. */
function served(path: string, from: number): { requests: number; bytes: number } {
  const entries = servers.log.entries.slice(from).filter((entry) => entry.method === 'GET' && entry.path === path);
  return { requests: entries.length, bytes: entries.reduce((sum, entry) => sum + entry.bytesSent, 0) };
}

const Q_K = [0, 1].flatMap((layer) =>
  ['k_proj', 'q_proj'].map((proj) => `model.layers.${layer}.self_attn.${proj}.weight`),
);

describe('Compare values across formats, both sides by URL', () => {
  it('the safetensors and its GGUF by URL: the local figures, read under the values purpose', async () => {
    await writeFolder('pair-by-url', { [HF]: fixtureBytes(HF), [GGUF]: fixtureBytes(GGUF) });
    const local = await Promise.all([openFile(HF), openFile(GGUF)]);
    const localResult = await compareValues(diff(local[0].loadId, local[1].loadId), local[0].load, local[1].load);

    const [hf, gguf] = [await openUrl('pair-by-url', HF), await openUrl('pair-by-url', GGUF)];
    expect(hf.load.data?.remote).toBe(true);
    expect(gguf.load.data?.remote).toBe(true);
    const compareId = diff(hf.loadId, gguf.loadId);
    const before = servers.log.entries.length;
    const remoteResult = await compareValues(compareId, hf.load, gguf.load);

    expect(remoteResult.done).toBe(true);
    expect(remoteResult.skipped).toEqual(localResult.skipped);
    expect(remoteResult.skipped).toEqual([]);
    expect(figures(remoteResult.tensors)).toEqual(figures(localResult.tensors));
    expectPairFigures(remoteResult);

    // Every request "Compare values" sent is on the server's log and in the side's figures under `values`.
    for (const [side, name] of [
      [hf, HF],
      [gguf, GGUF],
    ] as const) {
      const sent = served(`/range/pair-by-url/${name}`, before);
      expect(sent.requests).toBeGreaterThan(0);
      const network = present(side.load.data?.network?.(), `${name} network`);
      expect(network.byPurpose?.values).toMatchObject({ requests: sent.requests, bytesFetched: sent.bytes });
    }
    expect(served('/range/pair-by-url/config.json', 0).requests).toBe(0);
  });

  it('a config.json read after the diff gives the head counts a GGUF without them lacks', async () => {
    const config = {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      num_attention_heads: pair.headCount,
      num_key_value_heads: pair.headCountKv,
    };
    const headless = ggufWithoutKeys(fixtureBytes(GGUF), [
      'llama.attention.head_count',
      'llama.attention.head_count_kv',
    ]);
    await writeFolder('late-config', {
      [HF]: fixtureBytes(HF),
      'config.json': new TextEncoder().encode(JSON.stringify(config)),
      [GGUF]: headless,
    });
    const [hf, gguf] = [await openUrl('late-config', HF), await openUrl('late-config', GGUF)];
    expect(gguf.load.gguf).toEqual({ architecture: 'llama', headCount: null, headCountKv: null });
    expect(hf.result.sidecarsOnDemand).toEqual(['config.json']);
    expect(hf.load.hfHeads).toBeUndefined();
    const compareId = diff(hf.loadId, gguf.loadId);

    // Before the config is read nothing gives the head count: q and k are skipped, saying so.
    const blind = pairsNow(compareId);
    expect(blind.skipped.map((entry) => entry.tensor).sort()).toEqual(Q_K);
    expect(blind.skipped[0].reason).toMatch(/neither the GGUF metadata.*nor a config\.json/);

    const update = await hf.load.readSidecars?.();
    expect(update?.sidecarsRead).toEqual(['config.json']);
    expect(served('/range/late-config/config.json', 0).requests).toBe(1);

    const result = await compareValues(compareId, hf.load, gguf.load);
    expect(result.skipped).toEqual([]);
    expectPairFigures(result);
    const q = present(result.tensors.find((entry) => entry.tensor === 'model.layers.0.self_attn.q_proj.weight'));
    expect(q.note).toMatch(/4 heads of 16 rows, from the config\.json/);
    const k = present(result.tensors.find((entry) => entry.tensor === 'model.layers.1.self_attn.k_proj.weight'));
    expect(k.note).toMatch(/2 heads of 16 rows, from the config\.json/);
  });
});
