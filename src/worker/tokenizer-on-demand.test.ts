/**
 * The tokenizer's files, worker end to end against the test servers: a repository's listed ones and the ones tried
 * beside a file URL are not read by the load, only when the Tokenizer tab asks, together with the config.json read
 * on demand or after it; a dropped folder's are read with the other sidecars.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSafetensors } from '../testing/build-safetensors';
import { resultAndKept } from '../testing/kept-load';
import { TINY_LLAMA_CONFIG, tinyLlamaTensors } from '../testing/fixture-manifest';
import {
  chatmlTokenizerConfig,
  jsonBytes,
  LLAMA3_TEMPLATE,
  llama3GenerationConfig,
  llama3TokenizerConfig,
  legacyTokenizerFiles,
} from '../testing/models/tokenizer-files';
import type { RequestLogEntry } from '../testing/servers/range-server';
import { setUpRouteServers } from '../testing/test-server-setup';

const live = setUpRouteServers();

/** The tiny Llama (256 embedding rows) with a config.json for its KV cache. */
const MODEL = buildSafetensors(tinyLlamaTensors(2, 64, 172, 256));
const CONFIG = jsonBytes(TINY_LLAMA_CONFIG);

async function writeRepo(repo: string, files: Record<string, Uint8Array | string>): Promise<void> {
  await mkdir(path.join(live.fixtures.root, 'hub/lens-tok', repo), { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await live.fixtures.write(
      `hub/lens-tok/${repo}/${name}`,
      typeof content === 'string' ? new TextEncoder().encode(content) : content,
    );
  }
}

const open = resultAndKept;

const requestsFor = (repo: string): RequestLogEntry[] =>
  live.servers.log.entries.filter((entry) => entry.path.includes(`/lens-tok/${repo}/`) && entry.method === 'GET');
const tokenizerRequests = (repo: string) =>
  requestsFor(repo).filter((entry) =>
    /(tokenizer_config|generation_config|chat_template|special_tokens_map|added_tokens)\.(json|jinja)$/.test(
      entry.path,
    ),
  );

describe("the tokenizer's files", () => {
  it('of a repository: listed, left for the Tokenizer tab, then read once with the analyses run again', async () => {
    const repo = 'listed';
    await writeRepo(repo, {
      'model.safetensors': MODEL,
      'config.json': CONFIG,
      'tokenizer_config.json': jsonBytes(chatmlTokenizerConfig(true)),
      'generation_config.json': jsonBytes(llama3GenerationConfig(true)),
      'chat_template.jinja': LLAMA3_TEMPLATE,
      'special_tokens_map.json': '{}',
    });
    const { result, kept } = await open({
      kind: 'url',
      url: `${live.servers.originA}/hub/api/models/lens-tok/${repo}/tree/main`,
    });
    expect(result.sidecarsRead).toEqual(['config.json']);
    // In the order they are applied; special_tokens_map.json is listed, and read only if an older save needs it.
    expect(result.tokenizerOnDemand).toEqual([
      'tokenizer_config.json',
      'chat_template.jinja',
      'generation_config.json',
      'special_tokens_map.json',
    ]);
    expect(tokenizerRequests(repo)).toEqual([]);

    const [update, again] = await Promise.all([kept.readSidecars?.('tokenizer'), kept.readSidecars?.('tokenizer')]);
    expect(again).toEqual(update);
    expect(update?.sidecarsRead).toEqual(['tokenizer_config.json', 'chat_template.jinja', 'generation_config.json']);
    expect(update?.sections.tokenizer).toMatchObject({
      tokenizerClass: 'LlamaTokenizer',
      templates: [{ name: 'default', file: 'chat_template.jinja', source: LLAMA3_TEMPLATE }],
      generation: { eosIds: [251, 254] },
    });
    expect(update?.analysisFindings.map((finding) => finding.code)).toContain('tokenizer-beyond-embedding');
    // The config.json read with the load still feeds the memory estimate after the re-run.
    expect(update?.sections.memory?.config).toBe('config.json');
    expect(tokenizerRequests(repo)).toHaveLength(3);
    expect(update?.network?.byPurpose?.sidecars?.requests).toBe(4);
  });

  it('beside a file URL: tried by name when asked, after the config.json read on demand, building on it', async () => {
    const repo = 'beside';
    await writeRepo(repo, {
      'model.safetensors': MODEL,
      'config.json': CONFIG,
      'tokenizer_config.json': jsonBytes(llama3TokenizerConfig()),
      'generation_config.json': jsonBytes(llama3GenerationConfig(false)),
    });
    const { result, kept } = await open({
      kind: 'url',
      url: `${live.servers.originA}/hub/lens-tok/${repo}/resolve/main/model.safetensors`,
    });
    expect(result.sidecarsOnDemand).toEqual(['config.json']);
    expect(result.tokenizerOnDemand).toEqual([
      'tokenizer_config.json',
      'chat_template.jinja',
      'chat_template.json',
      'generation_config.json',
      'special_tokens_map.json',
      'added_tokens.json',
    ]);
    const config = await kept.readSidecars?.('config');
    expect(config?.sections.memory?.config).toBe('config.json');
    expect(config?.sections.tokenizer).toBeUndefined();
    const tokenizer = await kept.readSidecars?.('tokenizer');
    expect(tokenizer?.sidecarsRead).toEqual(['tokenizer_config.json', 'generation_config.json']);
    expect(tokenizer?.sections.memory?.config).toBe('config.json');
    expect(tokenizer?.sections.tokenizer?.generation?.eosIds).toEqual([251]);
    // The two names that are not there cost one request each.
    expect(
      tokenizerRequests(repo)
        .map((entry) => entry.status)
        .sort(),
    ).toEqual([206, 206, 404, 404]);
  });

  it('nothing beside a URL: every name tried once, the section absent, the header-only analyses kept', async () => {
    const repo = 'bare';
    await writeRepo(repo, { 'model.safetensors': MODEL });
    const { result, kept } = await open({
      kind: 'url',
      url: `${live.servers.originA}/hub/lens-tok/${repo}/resolve/main/model.safetensors`,
    });
    const update = await kept.readSidecars?.('tokenizer');
    expect(update?.sidecarsRead).toEqual([]);
    expect(update?.sections.tokenizer).toBeUndefined();
    expect(update?.sections.architecture?.layers).toBe(2);
    expect(result.tokenizerOnDemand).toHaveLength(6);
    expect(tokenizerRequests(repo).map((entry) => entry.status)).toEqual([404, 404, 404, 404, 404, 404]);
  });

  it('an older save beside a URL: special_tokens_map.json and added_tokens.json in a second round', async () => {
    const repo = 'legacy';
    const legacy = legacyTokenizerFiles();
    await writeRepo(repo, {
      'model.safetensors': MODEL,
      ...Object.fromEntries(Object.entries(legacy).map(([name, value]) => [name, jsonBytes(value)])),
    });
    const { kept } = await open({
      kind: 'url',
      url: `${live.servers.originA}/hub/lens-tok/${repo}/resolve/main/model.safetensors`,
    });
    const update = await kept.readSidecars?.('tokenizer');
    expect(update?.sidecarsRead).toEqual(['tokenizer_config.json', 'special_tokens_map.json', 'added_tokens.json']);
    expect(update?.analysisFindings.find((finding) => finding.code === 'tokenizer-beyond-embedding')?.message).toMatch(
      /^added_tokens\.json adds 1 token at ids past the embedding: \[PAD\] \(256\)/,
    );
    const requests = tokenizerRequests(repo).map((entry) => `${entry.path.split('/').pop()} ${entry.status}`);
    expect(requests.slice(0, 4).sort()).toEqual([
      'chat_template.jinja 404',
      'chat_template.json 404',
      'generation_config.json 404',
      'tokenizer_config.json 206',
    ]);
    expect(requests.slice(4).sort()).toEqual(['added_tokens.json 206', 'special_tokens_map.json 206']);
  });

  it('dropped with the model: read with the other sidecars, nothing left for later', async () => {
    const entries = [
      { path: 'm/model.safetensors', blob: new Blob([MODEL as BlobPart]) },
      { path: 'm/config.json', blob: new Blob([CONFIG as BlobPart]) },
      { path: 'm/tokenizer_config.json', blob: new Blob([jsonBytes(llama3TokenizerConfig()) as BlobPart]) },
      { path: 'm/chat_template.jinja', blob: new Blob([LLAMA3_TEMPLATE]) },
      // Too deep: the model's folder or the nearest above it count, not a subfolder.
      { path: 'm/sub/generation_config.json', blob: new Blob([jsonBytes(llama3GenerationConfig(true)) as BlobPart]) },
    ];
    const { result, kept } = await open({ kind: 'files', files: entries });
    expect(result.sidecarsRead).toEqual(['m/config.json', 'm/tokenizer_config.json', 'm/chat_template.jinja']);
    expect(result.tokenizerOnDemand).toBeUndefined();
    expect(await kept.readSidecars?.('tokenizer')).toBeUndefined();
  });
});
