import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildGguf, GGML, str, u32 } from '../../../testing/build-gguf';
import { loadedLocally } from '../../../testing/parse-helpers';
import { estimateGgufMemory } from './gguf-memory';
import { analyzeMemory } from './memory';
import { ggufMemoryBasis } from './gguf-section';

const FIXTURES = new URL('../../../../fixtures/gguf/', import.meta.url);
const FILE = fileURLToPath(new URL('tiny-llama-Q4_K_M.gguf', FIXTURES));

interface GgufPyTensor {
  name: string;
  type: string;
  ne: number[];
  bytes: number;
}

/** gguf-py's GGUFReader view of the fixture: the independent source of every byte figure below. */
const reference = JSON.parse(readFileSync(new URL('tiny-llama-Q4_K_M.gguf-py.json', FIXTURES), 'utf8')) as {
  tensors: GgufPyTensor[];
};

async function parsed(bytes: Uint8Array = new Uint8Array(readFileSync(FILE))) {
  return loadedLocally(bytes);
}

describe('GGUF memory section', () => {
  it('reads the metadata back as typed values and the tensors as gguf-py lists them', async () => {
    const { header } = await parsed();
    const basis = ggufMemoryBasis(header);
    expect(basis).not.toBeNull();
    expect(basis?.metadata.get('llama.block_count')).toBe(2);
    expect(basis?.metadata.get('llama.attention.head_count_kv')).toBe(1);
    expect(basis?.metadata.get('general.architecture')).toBe('llama');
    expect(basis?.metadata.get('general.scale_f64')).toBe(0.125);
    expect(basis?.metadata.get('general.tags')).toEqual(['test', 'tiny']);
    // Beyond 2^53 a UINT64 cannot be a JS number; it is left out rather than rounded.
    expect(basis?.metadata.has('general.checksum_u64')).toBe(false);
    expect(basis?.partialArrays).toContain('tokenizer.ggml.tokens');
    expect(basis?.tensors.map((t) => [t.name, t.ggmlType, t.shape, t.bytes])).toEqual(
      reference.tensors.map((t) => [t.name, t.type, [...t.ne].reverse(), t.bytes]),
    );
  });

  it('gives exact weight bytes, the f16 KV cache of llama.cpp and the report contexts', async () => {
    const { header, names } = await parsed();
    const section = analyzeMemory({ header, names, fileName: 'tiny.gguf', sidecars: {}, tensorBytes: new Map() });
    expect(section?.config).toBe('gguf');
    expect(section?.weightsBytes).toBe(reference.tensors.reduce((total, t) => total + t.bytes, 0));
    expect(section?.maxContext).toBe(2048);
    expect(section?.maxContextSource).toBe('llama.context_length');
    // 256 wide / 4 heads = 64 per head, 1 KV head: K and V are 64 f16 values each per token per layer, 2 layers.
    const perToken = 2 * (64 + 64) * 2;
    expect(section?.kvBytesPerToken).toBe(perToken);
    expect(section?.contexts.map((c) => [c.tokens, c.kvBytes])).toEqual([
      [4096, 4096 * perToken],
      [8192, 8192 * perToken],
      [32768, 32768 * perToken],
      [2048, 2048 * perToken],
    ]);
    expect(section?.moe).toBeUndefined();
    expect(JSON.parse(JSON.stringify(section))).toEqual(section);
  });

  it('splits weights and cache between VRAM and RAM layer by layer', async () => {
    const { header } = await parsed();
    const basis = ggufMemoryBasis(header);
    if (!basis) {
      throw new Error('no basis');
    }
    const layerBytes = (i: number) =>
      reference.tensors.filter((t) => t.name.startsWith(`blk.${i}.`)).reduce((total, t) => total + t.bytes, 0);
    const oneLayer = estimateGgufMemory(basis.metadata, basis.tensors, {
      cacheTypeK: 'q8_0',
      cacheTypeV: 'f16',
      gpuLayers: 1,
      contextTokens: 1000,
    });
    // 1000 tokens pad to 1024 cells; K in q8_0 is 2 blocks of 34 B per row, V in f16 128 B.
    const kvPerLayer = 1024 * (2 * 34 + 64 * 2);
    expect(oneLayer?.vram.weightsBytes).toBe(layerBytes(1));
    expect(oneLayer?.vram.kvBytes).toBe(kvPerLayer);
    expect(oneLayer?.ram.kvBytes).toBe(kvPerLayer);
    expect((oneLayer?.vram.weightsBytes ?? 0) + (oneLayer?.ram.weightsBytes ?? 0)).toBe(
      reference.tensors.reduce((total, t) => total + t.bytes, 0),
    );
  });

  it('counts MoE active parameters from the stacked experts and reads a per-layer KV head array', async () => {
    const experts = 4;
    const used = 2;
    const u32s = (values: number[]) => ({
      type: 'array' as const,
      elementType: 4,
      items: values.map((value) => u32(value)),
    });
    const bytes = buildGguf({
      kvs: [
        ['general.architecture', str('qwen3moe')],
        ['qwen3moe.block_count', u32(2)],
        ['qwen3moe.context_length', u32(1024)],
        ['qwen3moe.embedding_length', u32(64)],
        ['qwen3moe.attention.head_count', u32(4)],
        ['qwen3moe.attention.head_count_kv', u32s([2, 1])],
        ['qwen3moe.expert_count', u32(experts)],
        ['qwen3moe.expert_used_count', u32(used)],
      ],
      tensors: [
        { name: 'token_embd.weight', ne: [64, 32], type: GGML.F32 },
        ...[0, 1].flatMap((i) => [
          { name: `blk.${i}.attn_q.weight`, ne: [64, 64], type: GGML.F32 },
          { name: `blk.${i}.ffn_gate_exps.weight`, ne: [64, 32, experts], type: GGML.F32 },
          { name: `blk.${i}.ffn_down_exps.weight`, ne: [32, 64, experts], type: GGML.F32 },
        ]),
      ],
    });
    const { header, names } = await parsed(bytes);
    const section = analyzeMemory({ header, names, fileName: 'moe.gguf', sidecars: {}, tensorBytes: new Map() });
    const routed = 2 * 2 * 64 * 32 * experts;
    const total = 64 * 32 + 2 * 64 * 64 + routed;
    expect(section?.moe).toMatchObject({ experts, topK: used, routedParams: routed, totalParams: total });
    expect(section?.activeParams).toBe(total - routed + (routed * used) / experts);
    // Head dim 64 / 4 = 16; layer 0 caches 2 KV heads, layer 1 one: (2 + 1) × (16 + 16) f16 values per token.
    expect(section?.kvBytesPerToken).toBe((2 + 1) * (16 + 16) * 2);
  });
});

describe('per-layer arrays', () => {
  /** One KV-head count per block, past the 8 items shown: two layers without attention, two with 4 KV heads. */
  const KV_HEADS = [8, 8, 0, 8, 4, 8, 8, 0, 8, 8, 4, 8];
  const file = buildGguf({
    kvs: [
      ['general.architecture', str('llama')],
      ['llama.block_count', u32(KV_HEADS.length)],
      ['llama.embedding_length', u32(1024)],
      ['llama.attention.head_count', u32(16)],
      ['llama.attention.head_count_kv', { type: 'array', elementType: 4, items: KV_HEADS.map(u32) }],
    ],
    tensors: [{ name: 'token_embd.weight', ne: [1024, 32], type: GGML.F16 }],
  });

  it('keeps every layer of a per-layer array and sizes each layer by its own KV heads', async () => {
    const { header } = await parsed(file);
    const basis = ggufMemoryBasis(header);
    expect(basis?.partialArrays).toEqual([]);
    expect(basis?.metadata.get('llama.attention.head_count_kv')).toEqual(KV_HEADS);
    // The GGUF tab still shows the first items only.
    const shown = header.gguf?.kvs.find((kv) => kv.key === 'llama.attention.head_count_kv');
    expect(shown?.value).toBe('[8, 8, 0, 8, 4, 8, 8, 0, …]');
    expect(shown?.count).toBe(KV_HEADS.length);
    if (!basis) {
      throw new Error('no memory basis');
    }
    const estimate = estimateGgufMemory(basis.metadata, basis.tensors, {
      contextTokens: 4096,
      cacheTypeK: 'f16',
      cacheTypeV: 'f16',
      gpuLayers: KV_HEADS.length + 1,
    });
    // head dim 1024 / 16 = 64; K and V, 2 bytes each, 4096 cells, summed over each layer's own KV heads.
    const heads = KV_HEADS.reduce((sum, h) => sum + h, 0);
    expect(estimate?.kvBytes).toBe(heads * 64 * 2 * 2 * 4096);
    expect(estimate?.layers.map((layer) => layer.kvBytes)).toEqual(KV_HEADS.map((h) => h * 64 * 2 * 2 * 4096));
  });
});
