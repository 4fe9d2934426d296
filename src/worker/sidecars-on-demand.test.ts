/**
 * The config.json beside a file or index URL, on the Hub or off it (a PEFT adapter's adapter_config.json), worker end to end against
 * the test servers: the load sends only the header (or index and shard) reads, and the config is read once, when
 * the page asks, with the analyses that read it run again (issues 14 and 15).
 */
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LoadResult, SidecarsUpdate } from '../core/result';
import { buildSafetensors } from '../testing/build-safetensors';
import { buildShardedModel } from '../testing/build-sharded';
import { resultAndKept } from '../testing/kept-load';
import { TINY_LLAMA_CONFIG, tinyLlamaTensors } from '../testing/fixture-manifest';
import { peftGpt2Fixture } from '../testing/models/lora';
import {
  TINY_NATIVE_KV_BYTES_PER_TOKEN,
  TINY_NATIVE_PARAMS,
  tinyMistralNativeTensors,
} from '../testing/models/mistral-native';
import type { RequestLogEntry } from '../testing/servers/range-server';
import { setUpRouteServers } from '../testing/test-server-setup';
import type { KeptLoad } from './load-source';

const live = setUpRouteServers();

interface Opened {
  result: LoadResult;
  kept: KeptLoad;
  /** The GETs the server saw for this repository so far. */
  log: () => RequestLogEntry[];
}

async function openHub(repo: string, file: string): Promise<Opened> {
  return openUrl(`${live.servers.originA}/hub/lens-unit/${repo}/resolve/main/${file}`, `/lens-unit/${repo}/`);
}

/** Opens `url` as the URL box does; `folder` picks this test's requests out of the server log. */
async function openUrl(url: string, folder: string): Promise<Opened> {
  const { result, kept } = await resultAndKept({ kind: 'url', url });
  return {
    result,
    kept,
    log: () => live.servers.log.entries.filter((entry) => entry.path.includes(folder) && entry.method === 'GET'),
  };
}

/** Writes `files` into the fake Hub's folder for `repo`. */
async function writeRepo(repo: string, files: Record<string, Uint8Array>): Promise<void> {
  await mkdir(path.join(live.fixtures.root, 'hub/lens-unit', repo), { recursive: true });
  for (const [name, bytes] of Object.entries(files)) {
    await live.fixtures.write(`hub/lens-unit/${repo}/${name}`, bytes);
  }
}

const TINY_MODEL = buildSafetensors(tinyLlamaTensors(2, 64, 172, 256));
const TINY_CONFIG_BYTES = new TextEncoder().encode(JSON.stringify(TINY_LLAMA_CONFIG));

const configReads = (log: RequestLogEntry[]) => log.filter((entry) => entry.path.endsWith('/config.json'));

describe('config.json beside a Hub URL, read on demand', () => {
  it('a file: the load reads the header only; the config is read once and feeds memory and architecture', async () => {
    const repo = 'file-with-config';
    await writeRepo(repo, { 'model.safetensors': TINY_MODEL, 'config.json': TINY_CONFIG_BYTES });
    const { result, kept, log } = await openHub(repo, 'model.safetensors');
    expect(result.sidecarsOnDemand).toEqual(['config.json']);
    expect(configReads(log())).toEqual([]);
    const requestsOfLoad = log().length;

    // Two asks (the Memory tab, then the report) share one read.
    const [update, again] = await Promise.all([kept.readSidecars?.('config'), kept.readSidecars?.('config')]);
    expect(again).toEqual(update);
    const { sidecarsRead, sections, network } = update as SidecarsUpdate;
    expect(sidecarsRead).toEqual(['config.json']);
    expect(sections.memory).toMatchObject({ config: 'config.json', kvBytesPerToken: 2 * 2 * 16 * 2 });
    expect(sections.moduleTree).toBeDefined();
    expect(configReads(log())).toHaveLength(1);
    expect(log()).toHaveLength(requestsOfLoad + 1);
    expect(network?.requests).toBe(requestsOfLoad + 1);
    expect(network?.byPurpose?.sidecars?.requests).toBe(1);
  });

  it('a file with no config.json beside it: one 404, and the header-only analyses stand', async () => {
    const repo = 'file-without-config';
    await writeRepo(repo, { 'model.safetensors': TINY_MODEL });
    const { kept, log } = await openHub(repo, 'model.safetensors');
    const update = await kept.readSidecars?.('config');
    expect(update?.sidecarsRead).toEqual([]);
    expect(update?.sections.memory?.config).toBe('inferred');
    expect(configReads(log()).map((entry) => entry.status)).toEqual([404]);
  });

  it('a PEFT adapter: adapter_config.json beside it gives the LoRA analysis its alpha, on demand', async () => {
    const repo = 'peft-adapter';
    const fixture = peftGpt2Fixture(2);
    // Alpha 32 over rank 8: the scale the config gives (4) differs from the fixture's own alpha, so it shows.
    const adapterConfig = { ...(fixture.sidecars?.adapterConfig as object), lora_alpha: 32 };
    await writeRepo(repo, {
      'adapter_model.safetensors': buildSafetensors(fixture.specs, { metadata: fixture.metadata }),
      'adapter_config.json': new TextEncoder().encode(JSON.stringify(adapterConfig)),
    });
    const { result, kept, log } = await openHub(repo, 'adapter_model.safetensors');
    expect(result.sidecarsOnDemand).toEqual(['adapter_config.json']);
    expect(log().filter((entry) => entry.path.endsWith('.json'))).toEqual([]);
    const update = await kept.readSidecars?.('config');
    expect(update?.sidecarsRead).toEqual(['adapter_config.json']);
    expect(update?.sections.lora).toMatchObject({ rank: 8, alpha: 32, alphaSource: 'adapter_config.json', scale: 4 });
    expect(log().filter((entry) => entry.path.endsWith('/adapter_config.json'))).toHaveLength(1);
    expect(configReads(log())).toEqual([]);
  });

  it("Mistral's consolidated.safetensors: params.json beside it, not config.json, read as its config", async () => {
    const repo = 'mistral-native';
    await writeRepo(repo, {
      'consolidated.safetensors': buildSafetensors(tinyMistralNativeTensors()),
      'params.json': new TextEncoder().encode(JSON.stringify(TINY_NATIVE_PARAMS)),
      'config.json': TINY_CONFIG_BYTES,
    });
    const { result, kept, log } = await openHub(repo, 'consolidated.safetensors');
    expect(result.sidecarsOnDemand).toEqual(['params.json']);
    const update = await kept.readSidecars?.('config');
    expect(update?.sidecarsRead).toEqual(['params.json']);
    expect(update?.sections.memory).toMatchObject({
      config: 'params.json',
      kvBytesPerToken: TINY_NATIVE_KV_BYTES_PER_TOKEN,
    });
    expect(update?.sections.memory?.evidence[0]).toMatch(/^params\.json .* read with config\.json’s names/);
    expect(update?.sections.architecture).toMatchObject({ headDim: 32, headDimSource: 'params.json' });
    expect(log().filter((entry) => entry.path.endsWith('/params.json'))).toHaveLength(1);
    expect(configReads(log())).toEqual([]);
  });

  it('consolidated.safetensors with only a config.json beside it: params.json missing, config.json read instead', async () => {
    const repo = 'native-config-only';
    await writeRepo(repo, {
      'consolidated.safetensors': buildSafetensors(tinyMistralNativeTensors()),
      'config.json': new TextEncoder().encode(
        JSON.stringify({
          ...TINY_LLAMA_CONFIG,
          hidden_size: 128,
          num_attention_heads: 4,
          num_key_value_heads: 2,
          head_dim: 32,
        }),
      ),
    });
    const { kept, log } = await openHub(repo, 'consolidated.safetensors');
    const update = await kept.readSidecars?.('config');
    expect(update?.sidecarsRead).toEqual(['config.json']);
    expect(update?.sections.memory).toMatchObject({
      config: 'config.json',
      kvBytesPerToken: TINY_NATIVE_KV_BYTES_PER_TOKEN,
    });
    expect(
      log()
        .filter((entry) => entry.path.endsWith('/params.json'))
        .map((entry) => entry.status),
    ).toEqual([404]);
    expect(update?.network?.byPurpose?.sidecars?.requests).toBe(2);
  });

  it('a params.json that is not a model config: read, then left out like a missing config', async () => {
    const repo = 'native-odd-params';
    await writeRepo(repo, {
      'consolidated.safetensors': buildSafetensors(tinyMistralNativeTensors()),
      'params.json': new TextEncoder().encode(JSON.stringify({ learning_rate: 3e-4, epochs: 3 })),
    });
    const { kept } = await openHub(repo, 'consolidated.safetensors');
    const update = await kept.readSidecars?.('config');
    expect(update?.sidecarsRead).toEqual([]);
    expect(update?.sections.memory?.config).toBe('inferred');
  });

  it('a shard index: the load sends the index and one read per shard, nothing else', async () => {
    const repo = 'sharded-with-config';
    const built = buildShardedModel({ shards: 5 });
    await mkdir(path.join(live.fixtures.root, 'hub/lens-unit', repo), { recursive: true });
    for (const file of built.files) {
      const name = `hub/lens-unit/${repo}/${file.name}`;
      await live.fixtures.sparse(name, file.head.length + file.dataLength);
      const handle = await open(path.join(live.fixtures.root, name), 'r+');
      await handle.write(file.head, 0, file.head.length, 0);
      await handle.close();
    }
    await live.fixtures.write(
      `hub/lens-unit/${repo}/model.safetensors.index.json`,
      new TextEncoder().encode(built.indexJson),
    );
    await live.fixtures.write(
      `hub/lens-unit/${repo}/config.json`,
      new TextEncoder().encode(JSON.stringify(TINY_LLAMA_CONFIG)),
    );
    const { result, kept, log } = await openHub(repo, 'model.safetensors.index.json');
    expect(result.shards?.report.shards).toHaveLength(5);
    expect(log()).toHaveLength(1 + 5);
    expect(result.sidecarsOnDemand).toEqual(['config.json']);
    const update = await kept.readSidecars?.('config');
    expect(update?.sidecarsRead).toEqual(['config.json']);
    expect(configReads(log())).toHaveLength(1);
  });
});

describe('config.json beside a URL off the Hub, read on demand', () => {
  beforeAll(async () => {
    for (const folder of ['with-config', 'without-config', 'odd']) {
      await mkdir(path.join(live.fixtures.root, 'offhub', folder), { recursive: true });
    }
  });

  it('same origin, same folder, one request when asked; the query stays with the model file', async () => {
    await live.fixtures.write('offhub/with-config/model.safetensors', TINY_MODEL);
    await live.fixtures.write('offhub/with-config/config.json', TINY_CONFIG_BYTES);
    const { result, kept, log } = await openUrl(
      `${live.servers.originA}/range/offhub/with-config/model.safetensors?download=1`,
      '/offhub/with-config/',
    );
    expect(result.sidecarsOnDemand).toEqual(['config.json']);
    expect(configReads(log())).toEqual([]);
    const requestsOfLoad = log().length;
    const update = await kept.readSidecars?.('config');
    expect(update?.sidecarsRead).toEqual(['config.json']);
    expect(update?.sections.memory).toMatchObject({ config: 'config.json', kvBytesPerToken: 2 * 2 * 16 * 2 });
    expect(update?.sections.memory?.maxContext).toBe(2048);
    const reads = configReads(log());
    expect(reads).toHaveLength(1);
    expect(reads[0].path).toBe('/range/offhub/with-config/config.json');
    expect(log()).toHaveLength(requestsOfLoad + 1);
    expect(update?.network?.byPurpose?.sidecars?.requests).toBe(1);
  });

  it('no config.json there: one 404, counted, and the header-only figures stand', async () => {
    await live.fixtures.write('offhub/without-config/model.safetensors', TINY_MODEL);
    const { kept, log } = await openUrl(
      `${live.servers.originA}/range/offhub/without-config/model.safetensors`,
      '/offhub/without-config/',
    );
    const update = await kept.readSidecars?.('config');
    expect(update?.sidecarsRead).toEqual([]);
    expect(update?.sections.memory?.config).toBe('inferred');
    expect(configReads(log()).map((entry) => entry.status)).toEqual([404]);
    expect(update?.network?.byPurpose?.sidecars?.requests).toBe(1);
  });

  it('a URL that names no model file reads no sidecar at all', async () => {
    await live.fixtures.write('offhub/odd/weights', TINY_MODEL);
    const { result, kept } = await openUrl(`${live.servers.originA}/range/offhub/odd/weights`, '/offhub/odd/');
    expect(result.sidecarsOnDemand).toBeUndefined();
    expect(kept.readSidecars).toBeUndefined();
  });
});
