/**
 * Remote analysis reads beyond the budget, worker end to end against the test servers (real HTTP and Range): the
 * analyses say "sampled N of M" when the reads were bounded, and kohya's declared alpha is confirmed by a sample
 * instead of read from every tensor (issue 14).
 */
import { describe, expect, it } from 'vitest';
import type { QuantizationSection, LoraSection } from '../core/analysis/report-sections';
import type { DataReadsSection } from '../core/analysis/data-reads';
import type { LoadResult, SourceSpec } from '../core/result';
import { HTTP1_CONNECTIONS_PER_HOST, HTTP1_MAX_SPANS, REMOTE_MAX_FILE_BYTES } from '../core/limits';
import { ALPHA_CONFIRM_SAMPLE } from '../core/analysis/lora';
import { buildHeaderBytes, layoutTensors } from '../testing/build-safetensors';
import { buildShardedModel } from '../testing/build-sharded';
import { tinyLlamaTensors } from '../testing/fixture-manifest';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { NetworkFigures } from '../core/result';
import type { ModelFixture } from '../testing/models/header-from-specs';
import {
  COMFY_SAMPLED_LAYERS,
  comfyManyConfigsFixture,
  KOHYA_SPREAD_MODULES,
  kohyaSpreadFixture,
} from '../testing/remote-sampling-fixtures';
import type { RequestLogEntry } from '../testing/servers/range-server';
import { setUpRouteServers } from '../testing/test-server-setup';
import { reportOf, type ReportMessage } from '../testing/load-messages';
import { loadSource } from './load-source';
import type { WorkerResponse } from './protocol';

const live = setUpRouteServers();

/** Writes the fixture sparse, with its small tensors' bytes in place; returns the data region's offset. */
async function writeFixture(fixture: ModelFixture): Promise<number> {
  const { head, dataLength } = buildHeaderBytes(fixture.specs, { metadata: fixture.metadata });
  const bytes = new Uint8Array(head.length + dataLength);
  bytes.set(head);
  for (const entry of layoutTensors(fixture.specs).entries) {
    const data = fixture.tensorData?.[entry.name];
    if (data) {
      bytes.set(data, head.length + entry.data_offsets[0]);
    }
  }
  await live.fixtures.write(fixture.fileName, bytes);
  return head.length;
}

interface Loaded {
  result: LoadResult;
  analyses: ReportMessage;
  log: RequestLogEntry[];
}

async function load(file: string, route = 'range'): Promise<Loaded> {
  const tag = `t=${file.replace(/\W/g, '-')}-${Math.random().toString(36).slice(2)}`;
  const messages: WorkerResponse[] = [];
  const source: SourceSpec = { kind: 'url', url: `${live.servers.originA}/${route}/${file}?${tag}` };
  await loadSource(
    { id: 1, signal: new AbortController().signal, post: (message) => messages.push(message), remember: () => {} },
    source,
    {},
  );
  const result = messages.find((message) => message.type === 'result');
  const analyses = reportOf(messages);
  const error = messages.find((message) => message.type === 'error');
  if (result?.type !== 'result' || analyses === null) {
    throw new Error(`load failed: ${JSON.stringify(error)}`);
  }
  // Shard URLs are resolved from the index URL without its query: match the folder or file instead.
  const match = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : tag;
  const log = live.servers.log.entries.filter((entry) => entry.path.includes(match) && entry.method === 'GET');
  return { result: result.result, analyses, log };
}

describe('remote analysis reads over the budget', () => {
  it('a ComfyUI file with 266 configs 256 KiB apart: a bounded sample, worded as one', async () => {
    const fixture = comfyManyConfigsFixture();
    await writeFixture(fixture);
    const { result, analyses, log } = await load(fixture.fileName);
    const quantization = analyses.sections.quantization as QuantizationSection;
    // Every config is its own span (256 KiB apart). The test server speaks HTTP/1.1, where a browser opens six
    // connections per host: HTTP1_MAX_SPANS are read, in parallel, two rounds on six connections.
    expect(HTTP1_MAX_SPANS).toBe(2 * HTTP1_CONNECTIONS_PER_HOST);
    expect(quantization.configSample).toEqual({
      read: HTTP1_MAX_SPANS,
      of: COMFY_SAMPLED_LAYERS,
      noun: 'config',
      sampled: true,
    });
    expect(quantization.evidence[0]).toContain(`sampled ${HTTP1_MAX_SPANS} of ${COMFY_SAMPLED_LAYERS} configs`);
    expect(quantization.needsConfig?.[0]).toMatch(/^sampled 12 of 266 configs \(the remote read budget/);
    expect(quantization.confidence).toBe('medium');
    const dataReads = analyses.sections.dataReads as DataReadsSection;
    expect(dataReads).toMatchObject({ tensors: HTTP1_MAX_SPANS, sampled: true });
    // All sent at once: one round trip of the app's own count (the meter), whatever the connections make of it.
    expect(analyses.network?.byPurpose?.analysis).toMatchObject({ requests: HTTP1_MAX_SPANS, roundTrips: 1 });
    // The server saw the header request(s) and one bounded request per sampled config, nothing more.
    const headerRequests = log.length - HTTP1_MAX_SPANS;
    expect(headerRequests).toBeGreaterThanOrEqual(1);
    expect(headerRequests).toBeLessThanOrEqual(2);
    const dataReadBytes = log.slice(headerRequests).reduce((sum, entry) => sum + entry.bytesSent, 0);
    expect(dataReadBytes).toBeLessThanOrEqual(REMOTE_MAX_FILE_BYTES);
    expect(result.outcome.kind).toBe('parsed');
  });

  it('a kohya LoRA with ss_network_alpha: alpha from the metadata, 8 alphas read to confirm it', async () => {
    const fixture = kohyaSpreadFixture(true);
    await writeFixture(fixture);
    const { analyses, log } = await load(fixture.fileName);
    const lora = analyses.sections.lora as LoraSection;
    expect(lora).toMatchObject({
      alpha: 32,
      alphaSource: 'metadata',
      rank: 64,
      scale: 0.5,
      alphaSample: { read: ALPHA_CONFIRM_SAMPLE, of: KOHYA_SPREAD_MODULES, sampled: true },
    });
    expect(analyses.analysisFindings.map((finding) => finding.code)).not.toContain('lora-alpha-mismatch');
    const alphaRequests = log.filter((entry) => /^bytes=\d+-\d+$/.test(entry.range ?? '')).length;
    // One or two header requests, then one per confirming alpha.
    expect(alphaRequests - ALPHA_CONFIRM_SAMPLE).toBeLessThanOrEqual(2);
  });

  it('the same LoRA without ss_network_alpha reads the alphas to discover it, within the span budget', async () => {
    const fixture = kohyaSpreadFixture(false);
    await writeFixture(fixture);
    const { analyses, log } = await load(fixture.fileName);
    const lora = analyses.sections.lora as LoraSection;
    expect(lora).toMatchObject({
      alpha: 32,
      alphaSource: 'tensors',
      alphaSample: { read: HTTP1_MAX_SPANS, of: KOHYA_SPREAD_MODULES, sampled: true },
    });
    expect(lora.evidence).toContain(`alpha 32 from the .alpha scalar tensors (sampled 12 of 40 alphas)`);
    expect(log.length - HTTP1_MAX_SPANS).toBeLessThanOrEqual(2);
  });
});

/** Requests and bytes of every purpose, summed. */
function sums(network: NetworkFigures | null): { requests: number; bytesFetched: number } {
  const purposes = Object.values(network?.byPurpose ?? {});
  return {
    requests: purposes.reduce((sum, figures) => sum + figures.requests, 0),
    bytesFetched: purposes.reduce((sum, figures) => sum + figures.bytesFetched, 0),
  };
}

describe('which reads were for what', () => {
  it('a remote shard set: index, headers and their sums equal the server log', async () => {
    const folder = `purposes-${Math.random().toString(36).slice(2)}`;
    const built = buildShardedModel({ shards: 6 });
    await mkdir(path.join(live.fixtures.root, folder), { recursive: true });
    for (const file of built.files) {
      // Sparse: the shards' data regions are gigabytes of zeros that are never read.
      const name = `${folder}/${file.name}`;
      await live.fixtures.sparse(name, file.head.length + file.dataLength);
      const handle = await open(path.join(live.fixtures.root, name), 'r+');
      await handle.write(file.head, 0, file.head.length, 0);
      await handle.close();
    }
    await live.fixtures.write(`${folder}/model.safetensors.index.json`, new TextEncoder().encode(built.indexJson));
    const { analyses, log } = await load(`${folder}/model.safetensors.index.json`);
    const network = analyses.network;
    expect(network?.requests).toBe(log.length);
    expect(network?.bytesFetched).toBe(log.reduce((sum, entry) => sum + entry.bytesSent, 0));
    expect(sums(network)).toEqual({ requests: network?.requests, bytesFetched: network?.bytesFetched });
    const indexEntries = log.filter((entry) => entry.path.includes('.index.json'));
    expect(network?.byPurpose?.index).toMatchObject({
      requests: indexEntries.length,
      bytesFetched: indexEntries.reduce((sum, entry) => sum + entry.bytesSent, 0),
    });
    expect(network?.byPurpose?.header?.requests).toBe(log.length - indexEntries.length);
    // Shards start while the index streams in, the first alone, then the rest in parallel: a few round trips, not
    // one per shard.
    expect(network?.roundTrips).toBeGreaterThanOrEqual(2);
    expect(network?.roundTrips).toBeLessThan(6);
  });

  it('a first shard holding only the embeddings does not size the other first reads: one request per shard', async () => {
    const folder = `first-small-${Math.random().toString(36).slice(2)}`;
    // Shard 1: the embeddings alone (a header of ~200 bytes); the others 16 tensors each (~1 KB more than the
    // smallest sized first read), as a model split by bytes lays them out.
    const shards = [[{ name: 'model.embed_tokens.weight', dtype: 'BF16' as const, shape: [32000, 4096] }]];
    for (let layer = 0; layer < 12; layer++) {
      shards.push(
        Array.from({ length: 16 }, (_, expert) => ({
          name: `model.layers.${layer}.mlp.experts.${expert}.down_proj.weight_with_a_long_descriptive_suffix.${'x'.repeat(200)}`,
          dtype: 'BF16' as const,
          shape: [4096, 1024],
        })),
      );
    }
    const weightMap: Record<string, string> = {};
    await mkdir(path.join(live.fixtures.root, folder), { recursive: true });
    const heads: number[] = [];
    for (const [k, specs] of shards.entries()) {
      const file = `model-${String(k + 1).padStart(5, '0')}-of-${String(shards.length).padStart(5, '0')}.safetensors`;
      const { head } = buildHeaderBytes(specs, { metadata: { format: 'pt' } });
      heads.push(head.length);
      await live.fixtures.write(`${folder}/${file}`, head);
      for (const spec of specs) {
        weightMap[spec.name] = file;
      }
    }
    expect(heads[0]).toBeLessThan(512);
    expect(Math.min(...heads.slice(1))).toBeGreaterThan(5 * 1024);
    const indexJson = JSON.stringify({ metadata: {}, weight_map: weightMap });
    await live.fixtures.write(`${folder}/model.safetensors.index.json`, new TextEncoder().encode(indexJson));
    const { result, log } = await load(`${folder}/model.safetensors.index.json`);
    expect(result.shards?.report.shards.filter((shard) => shard.present)).toHaveLength(shards.length);
    // The index, then one read per shard: none needed a second read for the rest of its header.
    expect(log).toHaveLength(1 + shards.length);
  });

  it('analysis reads are their own line', async () => {
    const fixture = kohyaSpreadFixture(true, 12);
    fixture.fileName = 'kohya-12-purposes.safetensors';
    await writeFixture(fixture);
    const { analyses, log } = await load(fixture.fileName);
    const byPurpose = analyses.network?.byPurpose;
    expect(byPurpose?.analysis?.requests).toBe(ALPHA_CONFIRM_SAMPLE);
    expect(byPurpose?.analysis?.roundTrips).toBe(1);
    expect((byPurpose?.header?.requests ?? 0) + ALPHA_CONFIRM_SAMPLE).toBe(log.length);
    expect(analyses.network?.bytesFetched).toBe(log.reduce((sum, entry) => sum + entry.bytesSent, 0));
  });

  it('a file swapped mid-load: both attempts counted, the first as the restart line', async () => {
    const medium = buildHeaderBytes(tinyLlamaTensors(200, 4096, 11008, 32000), { metadata: { format: 'pt' } });
    const bytes = new Uint8Array(medium.head.length + 1024);
    bytes.set(medium.head);
    await live.fixtures.write('swap-medium.safetensors', bytes);
    const { result, analyses, log } = await load('swap-medium.safetensors', 'swap/once');
    expect(result.outcome.kind).toBe('parsed');
    // A (prefix), B (rest: mismatch), then B, B after the restart from byte 0.
    expect(log).toHaveLength(4);
    const network = analyses.network;
    expect(network?.requests).toBe(4);
    expect(network?.byPurpose?.restart?.requests).toBe(2);
    expect(network?.byPurpose?.header?.requests).toBe(2);
    expect(sums(network)).toEqual({ requests: 4, bytesFetched: network?.bytesFetched });
    // The mismatching answer is cancelled once its validators are read: the client keeps at most what was sent.
    expect(network?.bytesFetched).toBeLessThanOrEqual(log.reduce((sum, entry) => sum + entry.bytesSent, 0));
    expect(network?.byPurpose?.header?.bytesFetched).toBe(log[2].bytesSent + log[3].bytesSent);
    expect(network?.roundTrips).toBe(4);
  });
});
