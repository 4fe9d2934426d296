/**
 * "Compare values" across formats with both sides opened by URL from the HTTP test servers: the tiny Llama pair
 * (fixtures/values/tiny-llama-*) gives the local case's figures, its reads are counted under the `values` purpose,
 * and a config.json gives the q/k head counts a GGUF without them needs: read after the diff (a URL's sidecars are
 * read on demand), or by the worker itself when "Compare values" needs it, whichever side the safetensors is. Runs the
 * worker's own steps: the compare handler keeps the diff, values-compare.ts's `compareValuesReply` answers the
 * `compare-values` request (lining the pairs up from the kept loads, reading and measuring them) with both sides'
 * network figures.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ValueComparison, ValuesComparisonResult } from '../core/values/compare-values';
import type { SourceSpec } from '../core/result';
import { ggufWithoutKeys } from '../testing/build-gguf';
import type { FixtureDir } from '../testing/fixture-dir';
import { startTestServers, type OriginName, type TestServers } from '../testing/servers/range-server';
import { setUpTestServers } from '../testing/test-server-setup';
import { present } from '../testing/values-fixtures';
import { WorkerCompare } from '../testing/worker-compare';
import { valuePairsOf } from './compare-handler';

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

/** The worker's kept loads by load id, its diffs and its "Compare values", as parser.worker.ts runs them. */
const worker = new WorkerCompare();
const kept = worker.kept;
const open = (source: SourceSpec) => worker.open(source);

const openUrl = (folder: string, name: string, origin: OriginName = 'A') =>
  open({ kind: 'url', url: `${origin === 'A' ? servers.originA : servers.originB}/range/${folder}/${name}` });
const openFile = (name: string) => open({ kind: 'file', file: new File([fixtureBytes(name) as BlobPart], name) });

/** The worker's `compare` request over two kept loads; the compare id it keeps the diff under. */
const diff = (loadA: number, loadB: number) => worker.diff(loadA, loadB);

/** What pairs "Compare values" would line up for the kept comparison now. */
const pairsNow = (compareId: number) =>
  present(
    valuePairsOf(compareId, (loadId) => kept.get(loadId)),
    'pairs',
  );

/** The worker's reply to a `compare-values` request for the kept comparison of loads A and B. */
const compareValuesReplyOf = (compareId: number, loadA: number, loadB: number) => worker.reply(compareId, loadA, loadB);

/** "Compare values" as the worker runs it for a `compare-values` request: its result, which must be there. */
const compareValues = (compareId: number, loadA: number, loadB: number) =>
  worker.compareValues(compareId, loadA, loadB);

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

/** GETs the servers answered for `path` (or any path) since entry `from` of the log: their count and body bytes. */
function served(path: string | null, from: number, origin?: OriginName): { requests: number; bytes: number } {
  const entries = servers.log.entries
    .slice(from)
    .filter(
      (entry) =>
        entry.method === 'GET' && (path === null || entry.path === path) && (!origin || entry.origin === origin),
    );
  return { requests: entries.length, bytes: entries.reduce((sum, entry) => sum + entry.bytesSent, 0) };
}

const Q_K = [0, 1].flatMap((layer) =>
  ['k_proj', 'q_proj'].map((proj) => `model.layers.${layer}.self_attn.${proj}.weight`),
);

describe('Compare values across formats, both sides by URL', () => {
  it('the safetensors and its GGUF by URL: the local figures, read under the values purpose', async () => {
    await writeFolder('pair-by-url', { [HF]: fixtureBytes(HF), [GGUF]: fixtureBytes(GGUF) });
    const local = await Promise.all([openFile(HF), openFile(GGUF)]);
    const localResult = await compareValues(diff(local[0].loadId, local[1].loadId), local[0].loadId, local[1].loadId);

    const [hf, gguf] = [await openUrl('pair-by-url', HF), await openUrl('pair-by-url', GGUF)];
    expect(hf.load.data?.remote).toBe(true);
    expect(gguf.load.data?.remote).toBe(true);
    const compareId = diff(hf.loadId, gguf.loadId);
    const before = servers.log.entries.length;
    const remoteResult = await compareValues(compareId, hf.loadId, gguf.loadId);

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

    const update = await hf.load.readSidecars?.('config');
    expect(update?.sidecarsRead).toEqual(['config.json']);
    expect(served('/range/late-config/config.json', 0).requests).toBe(1);

    const result = await compareValues(compareId, hf.loadId, gguf.loadId);
    expect(result.skipped).toEqual([]);
    expectPairFigures(result);
    const q = present(result.tensors.find((entry) => entry.tensor === 'model.layers.0.self_attn.q_proj.weight'));
    expect(q.note).toMatch(/4 heads of 16 rows, from the config\.json/);
    const k = present(result.tensors.find((entry) => entry.tensor === 'model.layers.1.self_attn.k_proj.weight'));
    expect(k.note).toMatch(/2 heads of 16 rows, from the config\.json/);
  });
});

/** A config.json giving the tiny Llama's head counts, as a Hugging Face repository has beside its weights. */
function tinyLlamaConfig(): Uint8Array {
  const config = {
    model_type: 'llama',
    architectures: ['LlamaForCausalLM'],
    num_attention_heads: pair.headCount,
    num_key_value_heads: pair.headCountKv,
  };
  return new TextEncoder().encode(JSON.stringify(config));
}

/** The tiny Llama GGUF without the head counts llama.cpp writes: only a config.json can then give them. */
const headlessGguf = () =>
  ggufWithoutKeys(fixtureBytes(GGUF), ['llama.attention.head_count', 'llama.attention.head_count_kv']);

/** The q and k notes say the head counts came from the config.json. */
function expectHeadsFromConfig(result: ValuesComparisonResult): void {
  const q = present(result.tensors.find((entry) => entry.tensor === 'model.layers.0.self_attn.q_proj.weight'));
  expect(q.note).toMatch(/4 heads of 16 rows, from the config\.json/);
  const k = present(result.tensors.find((entry) => entry.tensor === 'model.layers.1.self_attn.k_proj.weight'));
  expect(k.note).toMatch(/2 heads of 16 rows, from the config\.json/);
}

describe('Compare values reads the config.json of the Hugging Face side itself, whichever side it is', () => {
  it.each([
    { order: 'GGUF as A, safetensors as B', ggufFirst: true },
    { order: 'safetensors as A, GGUF as B', ggufFirst: false },
  ])('$order: one config.json request, q and k compared, each side its own figures', async ({ ggufFirst }) => {
    const folder = `unread-config-${ggufFirst ? 'gguf-first' : 'hf-first'}`;
    await writeFolder(folder, { [HF]: fixtureBytes(HF), 'config.json': tinyLlamaConfig(), [GGUF]: headlessGguf() });
    // The reference: the same order, local, with a GGUF that has its head counts.
    const local = ggufFirst ? [await openFile(GGUF), await openFile(HF)] : [await openFile(HF), await openFile(GGUF)];
    const localResult = await compareValues(diff(local[0].loadId, local[1].loadId), local[0].loadId, local[1].loadId);

    // Side A from one origin, side B from the other: each server's log is one side's requests.
    const [nameA, nameB] = ggufFirst ? [GGUF, HF] : [HF, GGUF];
    const a = await openUrl(folder, nameA, 'A');
    const b = await openUrl(folder, nameB, 'B');
    const [hf, hfOrigin] = ggufFirst ? [b, 'B' as const] : [a, 'A' as const];
    expect(hf.result.sidecarsOnDemand).toEqual(['config.json']);
    expect(hf.load.hfHeads).toBeUndefined();
    const compareId = diff(a.loadId, b.loadId);
    expect(pairsNow(compareId).headCountsWanted).toBe(ggufFirst ? 'b' : 'a');
    const configPath = `/range/${folder}/config.json`;
    expect(served(configPath, 0).requests).toBe(0);

    const before = servers.log.entries.length;
    const reply = await compareValuesReplyOf(compareId, a.loadId, b.loadId);
    expect(reply.error).toBeNull();
    const result = present(reply.result, 'result');
    expect(result.skipped).toEqual([]);
    expect(figures(result.tensors)).toEqual(figures(localResult.tensors));
    expect(result.tensors.map((entry) => entry.tensor)).toEqual(expect.arrayContaining(Q_K));
    expectHeadsFromConfig(result);

    // One request for the config.json, sent by the Hugging Face side and counted in its figures under `sidecars`.
    expect(served(configPath, 0)).toMatchObject({ requests: 1 });
    expect(served(configPath, 0, hfOrigin).requests).toBe(1);
    const hfNetwork = present((ggufFirst ? reply.reads.b : reply.reads.a)?.network, 'the safetensors side figures');
    expect(hfNetwork.byPurpose?.sidecars).toMatchObject({ requests: 1, bytesFetched: served(configPath, 0).bytes });

    // Each side's figures: its values reads are its server's requests for its file during Compare values, and
    // its totals are everything its server answered (the load, the config.json, the values).
    for (const [origin, name, reads] of [
      ['A', nameA, reply.reads.a],
      ['B', nameB, reply.reads.b],
    ] as const) {
      const values = served(`/range/${folder}/${name}`, before, origin);
      expect(values.requests).toBeGreaterThan(0);
      const network = reads?.network;
      expect(network?.byPurpose?.values).toMatchObject({ requests: values.requests, bytesFetched: values.bytes });
      expect(reads?.valuesBytes).toBe(values.bytes);
      const all = served(null, 0, origin);
      expect(network).toMatchObject({ requests: all.requests, bytesFetched: all.bytes });
    }

    // Again: the config.json is read once per load. The page asking for it later (the Memory tab) gets that read
    // with the load's figures as they are now.
    const again = present((await compareValuesReplyOf(compareId, a.loadId, b.loadId)).result, 'second result');
    expect(again.skipped).toEqual([]);
    const asked = await hf.load.readSidecars?.('config');
    expect(asked?.sidecarsRead).toEqual(['config.json']);
    expect(asked?.network).toEqual(hf.load.data?.network?.());
    expect(asked?.network?.byPurpose?.values?.requests).toBeGreaterThan(hfNetwork.byPurpose?.values?.requests ?? 0);
    expect(served(configPath, 0).requests).toBe(1);
  });

  it('a GGUF with its head counts: no config.json is asked for', async () => {
    await writeFolder('heads-in-gguf', {
      [HF]: fixtureBytes(HF),
      'config.json': tinyLlamaConfig(),
      [GGUF]: fixtureBytes(GGUF),
    });
    const gguf = await openUrl('heads-in-gguf', GGUF, 'A');
    const hf = await openUrl('heads-in-gguf', HF, 'B');
    const result = await compareValues(diff(gguf.loadId, hf.loadId), gguf.loadId, hf.loadId);
    expect(result.skipped).toEqual([]);
    expect(result.tensors.find((entry) => entry.tensor === Q_K[0])?.note).toMatch(/from the GGUF metadata/);
    expect(served('/range/heads-in-gguf/config.json', 0).requests).toBe(0);
  });

  it('a local folder as B: the config.json read with the load gives the head counts, nothing more is read', async () => {
    const gguf = await openFile(GGUF);
    const headless = await open({ kind: 'file', file: new File([headlessGguf() as BlobPart], GGUF) });
    expect(headless.load.gguf).toMatchObject({ headCount: null, headCountKv: null });
    const folder = await open({
      kind: 'files',
      files: [
        { path: `tiny/${HF}`, blob: new Blob([fixtureBytes(HF) as BlobPart]) },
        { path: 'tiny/config.json', blob: new Blob([tinyLlamaConfig() as BlobPart]) },
      ],
    });
    expect(folder.result.sidecarsRead).toEqual(['tiny/config.json']);
    expect(folder.load.readSidecars).toBeUndefined();
    const reference = await compareValues(diff(gguf.loadId, folder.loadId), gguf.loadId, folder.loadId);
    const result = await compareValues(diff(headless.loadId, folder.loadId), headless.loadId, folder.loadId);
    expect(result.skipped).toEqual([]);
    expect(figures(result.tensors)).toEqual(figures(reference.tensors));
    expectHeadsFromConfig(result);
    expect(servers.log.entries).toEqual([]);
  });

  it('no config.json beside the safetensors: one 404, and q and k are skipped, saying why', async () => {
    await writeFolder('no-config', { [HF]: fixtureBytes(HF), [GGUF]: headlessGguf() });
    const gguf = await openUrl('no-config', GGUF, 'A');
    const hf = await openUrl('no-config', HF, 'B');
    const compareId = diff(gguf.loadId, hf.loadId);
    const result = await compareValues(compareId, gguf.loadId, hf.loadId);
    expect(result.skipped.map((entry) => entry.tensor).sort()).toEqual(Q_K);
    expect(result.skipped[0].reason).toMatch(/neither the GGUF metadata.*nor a config\.json/);
    expect(result.tensors).toHaveLength(pair.tensors.length - Q_K.length);
    await compareValues(compareId, gguf.loadId, hf.loadId);
    const asked = servers.log.entries.filter((entry) => entry.path === '/range/no-config/config.json');
    expect(asked.map((entry) => entry.status)).toEqual([404]);
  });
});
