/**
 * llama.cpp's per-architecture memory rules (gguf-kv-archs.ts), on published model shapes worked by hand, and on two
 * fixtures gguf-py wrote with the keys convert_hf_to_gguf.py writes: an embedding model llama.cpp gives no KV cache,
 * and a Gemma 3n layout whose last layers read earlier layers' caches.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ggufTensor, metadataOf } from '../../../testing/gguf-models';
import { loadedLocally } from '../../../testing/parse-helpers';
import { ggufKvPlan } from './gguf-kv';
import { estimateGgufMemory, type GgufMemoryInputs } from './gguf-memory';
import { analyzeMemory } from './memory';

const f16: GgufMemoryInputs = { cacheTypeK: 'f16', cacheTypeV: 'f16', gpuLayers: 99 };
const FIXTURES = new URL('../../../../fixtures/gguf/', import.meta.url);

function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) {
    throw new Error('expected a result');
  }
  return value;
}
const planOf = (...args: Parameters<typeof ggufKvPlan>) => must(ggufKvPlan(...args));
const run = (...args: Parameters<typeof estimateGgufMemory>) => must(estimateGgufMemory(...args));

async function memoryOfFixture(file: string) {
  const { header, names } = await loadedLocally(new Uint8Array(readFileSync(new URL(file, FIXTURES))));
  return must(analyzeMemory({ header, names, fileName: file, sidecars: {}, tensorBytes: new Map() }));
}

describe('architectures llama.cpp gives no memory', () => {
  // nomic-embed-text-v1.5: 12 layers, 768 wide, 12 heads, 2,048 positions.
  const nomic = metadataOf({
    'general.architecture': 'nomic-bert',
    'nomic-bert.block_count': 12,
    'nomic-bert.context_length': 2048,
    'nomic-bert.embedding_length': 768,
    'nomic-bert.attention.head_count': 12,
    'nomic-bert.attention.causal': false,
  });

  it('nomic-embed-text: no KV cache at any context, an embedding per token instead of logits', () => {
    const plan = planOf(nomic);
    expect(plan.noMemory).toMatch(/encoder/);
    expect(plan.kvModel).toMatchObject({ attention: 'none', groups: [], state: null });
    const estimate = run(nomic, [], { ...f16, contextTokens: 2048 });
    expect(estimate.kvBytes).toBe(0);
    expect(estimate.stateBytes).toBe(0);
    expect(estimate.noKvCache).toMatch(/encoder/);
    expect(estimate.compute.map((line) => [line.label, line.bytes])).toEqual([
      ['attention scores KQ', 2048 * 512 * 12 * 4],
      ['embeddings', 768 * 512 * 4],
    ]);
    // No output layer over the vocabulary: token_embd is not loaded a second time on the GPU.
    const embedding = ggufTensor('token_embd.weight', 'F16', [30528, 768]);
    const withEmbedding = run(nomic, [embedding], { ...f16, contextTokens: 2048 });
    expect(withEmbedding.outputLayer.tiedEmbeddingBytes).toBe(0);
    expect(withEmbedding.vram.weightsBytes).toBe(0);
  });

  it('a diffusion LM (LLaDA) keeps no cache but still outputs logits', () => {
    const llada = metadataOf({
      'general.architecture': 'llada',
      'llada.block_count': 32,
      'llada.context_length': 4096,
      'llada.embedding_length': 4096,
      'llada.attention.head_count': 32,
      'llada.attention.head_count_kv': 32,
    });
    const estimate = run(llada, [], { ...f16, contextTokens: 4096 });
    expect(estimate.kvBytes).toBe(0);
    expect(estimate.noKvCache).toMatch(/diffusion/);
    expect(estimate.compute.map((line) => line.label)).not.toContain('embeddings');
  });

  it('a decoder keeps its cache: the rule is by architecture, not by the causal flag alone', () => {
    const llama = new Map(nomic);
    llama.set('general.architecture', 'llama');
    for (const [key, value] of nomic) {
      if (key.startsWith('nomic-bert.')) {
        llama.delete(key);
        llama.set(key.replace('nomic-bert.', 'llama.'), value);
      }
    }
    const estimate = run(llama, [], { ...f16, contextTokens: 2048 });
    // 12 layers × 12 heads × (64 + 64) × 2 B × 2,048 cells.
    expect(estimate.kvBytes).toBe(12 * 12 * 128 * 2 * 2048);
    expect(estimate.noKvCache).toBeNull();
  });

  it('the fixture (gguf-py, nomic-bert): the section lists no context past the 512 positions, no KV', async () => {
    const section = await memoryOfFixture('tiny-nomic-bert-F16.gguf');
    expect(section.kvBytesPerToken).toBe(0);
    expect(section.contexts.map((context) => [context.tokens, context.kvBytes])).toEqual([[512, 0]]);
    expect(section.kv?.notes.join(' ')).toMatch(/no KV cache for nomic-bert/);
    expect(section.evidence.join(' ')).not.toMatch(/f16 cache by default/);
  });
});

describe('layers that read an earlier layer’s cache', () => {
  // Gemma 3n E2B: 30 layers, 2 KV heads of 256, a 512-token window on 4 of every 5 layers, the last 10 sharing.
  const gemma3nE2b = (extra: Record<string, number | boolean[]> = {}) =>
    metadataOf({
      'general.architecture': 'gemma3n',
      'gemma3n.block_count': 30,
      'gemma3n.context_length': 32768,
      'gemma3n.embedding_length': 2048,
      'gemma3n.attention.head_count': 8,
      'gemma3n.attention.head_count_kv': 2,
      'gemma3n.attention.key_length': 256,
      'gemma3n.attention.value_length': 256,
      'gemma3n.attention.sliding_window': 512,
      'gemma3n.attention.shared_kv_layers': 10,
      'gemma3n.attention.sliding_window_pattern': Array.from({ length: 30 }, (_, i) => i % 5 !== 4),
      ...extra,
    });

  it('Gemma 3n E2B: only layers 0–19 keep a cache (4 full, 16 sliding); 20–29 read theirs', () => {
    const plan = planOf(gemma3nE2b());
    expect(plan.layers.filter((l) => l.attention === 'full').map((l) => l.index)).toEqual([4, 9, 14, 19]);
    expect(plan.layers.filter((l) => l.attention === 'sliding')).toHaveLength(16);
    expect(plan.layers.slice(20).every((l) => l.attention === null && l.kElements === 0)).toBe(true);
    // 2 × (256 + 256) × 2 B = 2,048 B per token and layer; sliding cells pad(512 + 512, 32) = 1,024.
    const estimate = run(gemma3nE2b(), [], { ...f16, contextTokens: 32768 });
    expect(estimate.kvBytes).toBe(4 * 32768 * 2048 + 16 * 1024 * 2048);
    expect(plan.notes.join(' ')).toMatch(/Layers 20–29 read the KV cache of earlier layers/);
  });

  it('Gemma 3n: llama.cpp hard-codes 20 layers with a cache, whatever shared_kv_layers says', () => {
    const plan = planOf(gemma3nE2b({ 'gemma3n.attention.shared_kv_layers': 5 }));
    expect(plan.layers.filter((l) => l.attention !== null)).toHaveLength(20);
  });

  it('Gemma 4: the last shared_kv_layers read earlier caches; sliding layers take key_length_swa', () => {
    // A layout with convert_hf_to_gguf.py's Gemma 4 keys: full layers of head 512, sliding of head 256.
    const gemma4 = metadataOf({
      'general.architecture': 'gemma4',
      'gemma4.block_count': 12,
      'gemma4.context_length': 131072,
      'gemma4.embedding_length': 1536,
      'gemma4.attention.head_count': 8,
      'gemma4.attention.head_count_kv': 1,
      'gemma4.attention.key_length': 512,
      'gemma4.attention.value_length': 512,
      'gemma4.attention.key_length_swa': 256,
      'gemma4.attention.value_length_swa': 256,
      'gemma4.attention.sliding_window': 512,
      'gemma4.attention.shared_kv_layers': 4,
      'gemma4.attention.sliding_window_pattern': Array.from({ length: 12 }, (_, i) => i % 4 !== 3),
    });
    const plan = planOf(gemma4);
    expect(plan.layers.map((l) => [l.attention, l.kElements + l.vElements])).toEqual([
      ...[0, 1, 2].map(() => ['sliding', 512]),
      ['full', 1024],
      ...[4, 5, 6].map(() => ['sliding', 512]),
      ['full', 1024],
      ...[8, 9, 10, 11].map(() => [null, 0]),
    ]);
    expect(plan.kvModel.groups.map((g) => g.formula)).toEqual([
      '1 KV heads × (key_length_swa 256 + value_length_swa 256) = 512; capped at 512 tokens',
      '1 KV heads × (key_length 512 + value_length 512) = 1\u2009024',
    ]);
  });

  it('the fixture (gguf-py, Gemma 3n layout): 20 layers cached, the note in the section', async () => {
    const section = await memoryOfFixture('tiny-gemma3n-layout-F16.gguf');
    expect(section.kv?.groups.map((g) => [g.label, g.layers])).toEqual([
      ['sliding window (512 tokens)', 16],
      ['full attention', 4],
    ]);
    // 2 KV heads × (8 + 8) × 2 B per token and cached layer.
    expect(section.kvBytesPerToken).toBe(20 * 64);
  });
});

describe('recurrent state llama.cpp keeps per sequence', () => {
  it('RWKV-7 World 2.9B: token shift 2 × 2560 and WKV 2560 × 64 per layer, F32; no KV cache', () => {
    const rwkv = metadataOf({
      'general.architecture': 'rwkv7',
      'rwkv7.block_count': 32,
      'rwkv7.context_length': 1048576,
      'rwkv7.embedding_length': 2560,
      'rwkv7.wkv.head_size': 64,
    });
    const plan = planOf(rwkv);
    expect(plan.layers.every((l) => l.attention === null && l.recurrent)).toBe(true);
    expect(plan.kvModel.state?.bytesPerSequence).toBe(32 * (2 * 2560 + 2560 * 64) * 4);
    const estimate = run(rwkv, [], { ...f16, contextTokens: 8192, sequences: 2 });
    expect(estimate.kvBytes).toBe(0);
    expect(estimate.stateBytes).toBe(2 * 32 * (2 * 2560 + 2560 * 64) * 4);
  });

  it('RWKV6-Qwen2: recurrent only, its attention head counts size no cache', () => {
    const plan = planOf(
      metadataOf({
        'general.architecture': 'rwkv6qwen2',
        'rwkv6qwen2.block_count': 28,
        'rwkv6qwen2.embedding_length': 3584,
        'rwkv6qwen2.attention.head_count': 28,
        'rwkv6qwen2.attention.head_count_kv': 4,
        'rwkv6qwen2.wkv.head_size': 128,
        'rwkv6qwen2.token_shift_count': 1,
      }),
    );
    expect(plan.kvModel.groups).toEqual([]);
    expect(plan.kvModel.state?.bytesPerSequence).toBe(28 * (1 * 3584 + 3584 * 128) * 4);
  });

  it('LFM2-1.2B: 6 attention layers where head_count_kv is non-zero, a short-convolution state elsewhere', () => {
    const kvHeads = [0, 0, 8, 0, 0, 8, 0, 0, 8, 0, 8, 0, 8, 0, 8, 0];
    const lfm2 = metadataOf({
      'general.architecture': 'lfm2',
      'lfm2.block_count': 16,
      'lfm2.context_length': 128000,
      'lfm2.embedding_length': 2048,
      'lfm2.attention.head_count': 32,
      'lfm2.attention.head_count_kv': kvHeads,
      'lfm2.shortconv.l_cache': 3,
    });
    const plan = planOf(lfm2);
    expect(plan.layers.filter((l) => l.attention === 'full').map((l) => l.index)).toEqual([2, 5, 8, 10, 12, 14]);
    // 10 conv layers × 2048 × (3 − 1) × 4 B.
    expect(plan.kvModel.state?.bytesPerSequence).toBe(10 * 2048 * 2 * 4);
    // 6 layers × 8 heads × (64 + 64) × 2 B per token.
    expect(run(lfm2, [], { ...f16, contextTokens: 4096 }).kvBytes).toBe(6 * 8 * 128 * 2 * 4096);
    // With a window set, llama.cpp slides every attention layer.
    const windowed = new Map(lfm2);
    windowed.set('lfm2.attention.sliding_window', 4096);
    expect(planOf(windowed).layers.filter((l) => l.attention === 'sliding')).toHaveLength(6);
  });
});

describe('sliding-window patterns llama.cpp hard-codes', () => {
  it.each([
    ['olmo2', 4, 4096, [3, 7]],
    ['afmoe', 4, 4096, [3, 7]],
    ['plamo3', 8, 2048, [7]],
  ])('%s with a window and no pattern key: the last layer of every %i is full', (arch, _n, window, full) => {
    const plan = planOf(
      metadataOf({
        'general.architecture': arch,
        [`${arch}.block_count`]: 8,
        [`${arch}.embedding_length`]: 1024,
        [`${arch}.attention.head_count`]: 8,
        [`${arch}.attention.head_count_kv`]: 2,
        [`${arch}.attention.sliding_window`]: window,
      }),
    );
    expect(plan.layers.filter((l) => l.attention === 'full').map((l) => l.index)).toEqual(full);
    expect(plan.window).toBe(window);
  });

  it('exaone-moe without a window key: llama.cpp’s 128 tokens', () => {
    const plan = planOf(
      metadataOf({
        'general.architecture': 'exaone-moe',
        'exaone-moe.block_count': 8,
        'exaone-moe.embedding_length': 1024,
        'exaone-moe.attention.head_count': 8,
        'exaone-moe.attention.head_count_kv': 2,
      }),
    );
    expect(plan.window).toBe(128);
    expect(plan.layers.filter((l) => l.attention === 'sliding')).toHaveLength(6);
  });
});

describe('encoder-decoders', () => {
  it('T5: llama.cpp sizes the decoder self-attention cache by block_count, and says so when the decoder differs', () => {
    // t5-efficient layouts can give the decoder fewer layers than the encoder.
    const t5 = metadataOf({
      'general.architecture': 't5',
      't5.block_count': 12,
      't5.decoder_block_count': 6,
      't5.context_length': 512,
      't5.embedding_length': 768,
      't5.attention.head_count': 12,
      't5.attention.head_count_kv': 12,
      't5.attention.key_length': 64,
      't5.attention.value_length': 64,
    });
    const plan = planOf(t5);
    expect(plan.layers.filter((l) => l.attention === 'full')).toHaveLength(12);
    expect(plan.notes.join(' ')).toMatch(/decoder has 6 layers \(decoder_block_count\) and the encoder 12/);
    const same = new Map(t5);
    same.set('t5.decoder_block_count', 12);
    expect(planOf(same).notes.join(' ')).not.toMatch(/decoder_block_count/);
  });
});
