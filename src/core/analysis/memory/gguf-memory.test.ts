/**
 * llama.cpp's memory for published GGUF models. Every expectation is worked by hand in the test from the model's
 * published shapes: K/V bytes per token and layer = KV heads × (key_length + value_length) × cache bytes, MLA K
 * only, sliding layers capped at pad(window + ubatch), recurrent state (conv + SSM) × 4 B per sequence.
 */
import { describe, expect, it } from 'vitest';
import { llama31_8bQ4KM, metadataOf, qwen3_30bA3b } from '../../../testing/gguf-models';
import { ggufKvPlan } from './gguf-kv';
import {
  cacheRowBytes,
  cpuMoeLayersToFit,
  estimateGgufMemory,
  ggufCacheBytesAt,
  ggufMoe,
  type GgufMemoryInputs,
} from './gguf-memory';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
function must<T>(value: T | null): T {
  if (value === null) {
    throw new Error('expected a result');
  }
  return value;
}
const run = (...args: Parameters<typeof estimateGgufMemory>) => must(estimateGgufMemory(...args));
const planOf = (...args: Parameters<typeof ggufKvPlan>) => must(ggufKvPlan(...args));
const moeOf = (...args: Parameters<typeof ggufMoe>) => must(ggufMoe(...args));

const f16: GgufMemoryInputs = { cacheTypeK: 'f16', cacheTypeV: 'f16', gpuLayers: 99 };

// Llama-3.1-8B Q4_K_M, by hand: Q4_K = 144 B per 256 weights, Q6_K = 210 B per 256, F32 4 B.
const Q4K = (n: number) => (n / 256) * 144;
const Q6K = (n: number) => (n / 256) * 210;
const TOKEN_EMBD = Q4K(128256 * 4096); // 295,501,824 B: 281.8 MiB
const OUTPUT = Q6K(128256 * 4096); // 430,940,160 B: 411.0 MiB
const LAYER_Q4 = Q4K(4096 * 4096) * 2 + Q4K(1024 * 4096) * 2 + Q4K(14336 * 4096) * 3 + 2 * 4096 * 4;
const LAYER_Q6 = LAYER_Q4 - Q4K(1024 * 4096) + Q6K(1024 * 4096) - Q4K(4096 * 14336) + Q6K(4096 * 14336);

describe('GGUF weights and the GPU-layer split (llama.cpp convention)', () => {
  const { metadata, tensors } = llama31_8bQ4KM();

  it('Llama-3.1-8B Q4_K_M: exact weight bytes, 16 layers with Q6_K attn_v/ffn_down', () => {
    const estimate = run(metadata, tensors, { ...f16, contextTokens: 8192 });
    // 4,912,898,048 B of Llama-3-8B Q4_K_M tensor data plus rope_freqs F32 [64] of Llama 3.1.
    expect(estimate.weightsBytes).toBe(4_912_898_048 + 256);
    expect(estimate.weightsBytes).toBe(TOKEN_EMBD + OUTPUT + 16 * LAYER_Q4 + 16 * LAYER_Q6 + 4096 * 4 + 256);
    expect(estimate.inputLayer).toEqual({ bytes: TOKEN_EMBD, tensors: 1 });
    expect(estimate.outputLayer).toMatchObject({ bytes: OUTPUT + 4096 * 4 + 256, tensors: 3, onGpu: true });
    expect(estimate.layers.filter((layer) => layer.weightsBytes === LAYER_Q6).map((l) => l.index)).toEqual([
      0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31,
    ]);
  });

  it('full offload (-ngl 99): every layer and the output on the GPU, token_embd in RAM', () => {
    const estimate = run(metadata, tensors, { ...f16, contextTokens: 8192 });
    expect(estimate.vram.weightsBytes).toBe(estimate.weightsBytes - TOKEN_EMBD);
    expect(estimate.ram.weightsBytes).toBe(TOKEN_EMBD);
    // KV f16: 32 layers × 8 KV heads × (128 + 128) × 2 B = 131,072 B per token → 1 GiB at 8192.
    expect(estimate.kvBytes).toBe(GiB);
    expect(estimate.vram.kvBytes).toBe(GiB);
    // Without flash attention: KQ 8192 × 512 × 32 heads × 4 B = 512 MiB; logits 128,256 × 512 × 4 B.
    expect(estimate.compute.map((line) => line.bytes)).toEqual([512 * MiB, 128256 * 512 * 4]);
    expect(estimate.vram.totalBytes).toBe(estimate.weightsBytes - TOKEN_EMBD + GiB + 512 * MiB + 128256 * 2048);
    // 4.30 GiB of layers and output + 1 GiB KV + 0.5 GiB KQ + 0.24 GiB logits; gguf-parser-go's ≈ 6.3 GiB also bills
    // the host output buffer (the same logits, in pinned RAM here) to the GPU.
    expect(estimate.vram.totalBytes / GiB).toBeCloseTo(6.04, 2);
    expect(estimate.ram.totalBytes).toBe(TOKEN_EMBD + 128256 * 2048);
  });

  it('-ngl 32 keeps the output layer in RAM; -ngl 16 offloads layers 16–31 with their cache', () => {
    const all = run(metadata, tensors, { ...f16, contextTokens: 8192, gpuLayers: 32 });
    expect(all.outputLayer.onGpu).toBe(false);
    expect(all.vram.weightsBytes).toBe(16 * LAYER_Q4 + 16 * LAYER_Q6);
    expect(all.ram.weightsBytes).toBe(TOKEN_EMBD + OUTPUT + 4096 * 4 + 256);
    const half = run(metadata, tensors, { ...f16, contextTokens: 8192, gpuLayers: 16 });
    expect(half.layers.filter((layer) => layer.onGpu).map((layer) => layer.index)).toEqual(
      Array.from({ length: 16 }, (_, i) => 16 + i),
    );
    // Layers 16–31: 8 with Q6_K attn_v/ffn_down (18, 21, 24, 27, 28, 29, 30, 31) and 8 without.
    expect(half.vram.weightsBytes).toBe(8 * LAYER_Q6 + 8 * LAYER_Q4);
    expect(half.vram.kvBytes).toBe(GiB / 2);
    expect(half.ram.kvBytes).toBe(GiB / 2);
    const none = run(metadata, tensors, { ...f16, contextTokens: 8192, gpuLayers: 0 });
    expect(none.vram.totalBytes).toBe(0);
    expect(none.ram.weightsBytes).toBe(none.weightsBytes);
  });

  it('cache types: q8_0 34 B per 32, q4_0 18 B per 32; a quantized V needs flash attention', () => {
    expect(cacheRowBytes('q8_0', 1024)).toBe(32 * 34);
    expect(cacheRowBytes('iq4_nl', 1024)).toBe(32 * 18);
    expect(cacheRowBytes('q5_1', 1024)).toBe(32 * 24);
    expect(cacheRowBytes('q4_0', 100)).toBeNull();
    const q8 = run(metadata, tensors, {
      cacheTypeK: 'q8_0',
      cacheTypeV: 'q8_0',
      gpuLayers: 99,
      contextTokens: 8192,
      flashAttention: true,
    });
    expect(q8.kvBytes).toBe(544 * MiB);
    expect(q8.problems).toEqual([]);
    // With flash attention the score scratch is F16 cells × ubatch.
    expect(q8.compute[0].bytes).toBe(8192 * 512 * 2);
    const noFa = run(metadata, tensors, { ...f16, cacheTypeV: 'q4_0', contextTokens: 8192 });
    expect(noFa.kvBytes).toBe(32 * 8192 * (1024 * 2 + (1024 / 32) * 18));
    expect(noFa.problems[0]).toMatch(/quantized V cache \(q4_0\) needs flash attention/);
  });

  it('the context defaults to context_length and is padded like llama.cpp (32, or 256 with flash attention)', () => {
    const max = run(metadata, tensors, f16);
    expect(max.contextTokens).toBe(131072);
    expect(max.kvBytes).toBe(16 * GiB);
    const odd = run(metadata, tensors, { ...f16, contextTokens: 1000 });
    expect(odd.kvCells).toBe(1024);
    const oddFa = run(metadata, tensors, { ...f16, contextTokens: 1000, flashAttention: true });
    expect(oddFa.kvCells).toBe(1024);
    expect(run(metadata, tensors, { ...f16, contextTokens: 1100, flashAttention: true }).kvCells).toBe(1280);
  });

  it('the cache as a function of the context, for the Hub listing: the same whatever the quant', () => {
    const at = ggufCacheBytesAt(metadata, { cacheTypeK: 'f16', cacheTypeV: 'f16' });
    expect(at(8192)).toBe(GiB);
    expect(at(0)).toBe(16 * GiB);
    const q8 = ggufCacheBytesAt(metadata, { cacheTypeK: 'q8_0', cacheTypeV: 'q8_0', flashAttention: true });
    expect(q8(8192)).toBe(544 * MiB);
    expect(ggufCacheBytesAt(metadataOf({}), { cacheTypeK: 'f16', cacheTypeV: 'f16' })(8192)).toBe(0);
  });

  it('a model without output.weight loads token_embd again as the output on the GPU', () => {
    const tied = tensors.filter((tensor) => tensor.name !== 'output.weight');
    const estimate = run(metadata, tied, { ...f16, contextTokens: 4096 });
    expect(estimate.outputLayer.tiedEmbeddingBytes).toBe(TOKEN_EMBD);
    expect(estimate.vram.weightsBytes).toBe(16 * LAYER_Q4 + 16 * LAYER_Q6 + 4096 * 4 + 256 + TOKEN_EMBD);
    expect(estimate.ram.weightsBytes).toBe(TOKEN_EMBD);
  });
});

describe('GGUF KV layouts', () => {
  it('Gemma-3-27B: 10 full layers of 62 (every 6th), sliding layers keep pad(1024 + 512) cells', () => {
    const metadata = metadataOf({
      'general.architecture': 'gemma3',
      'gemma3.block_count': 62,
      'gemma3.context_length': 131072,
      'gemma3.embedding_length': 5376,
      'gemma3.attention.head_count': 32,
      'gemma3.attention.head_count_kv': 16,
      'gemma3.attention.key_length': 128,
      'gemma3.attention.value_length': 128,
      'gemma3.attention.sliding_window': 1024,
    });
    const plan = planOf(metadata);
    const full = plan.layers.filter((layer) => layer.attention === 'full').map((layer) => layer.index);
    expect(full).toEqual([5, 11, 17, 23, 29, 35, 41, 47, 53, 59]);
    expect(plan.kvModel.groups.map((g) => [g.label, g.layers, g.elementsPerToken, g.window])).toEqual([
      ['sliding window (1024 tokens)', 52, 4096, 1024],
      ['full attention', 10, 4096, null],
    ]);
    expect(plan.kvModel.groups[1].formula).toBe('16 KV heads × (key_length 128 + value_length 128) = 4\u2009096');
    // 16 KV heads × (128 + 128) × 2 B = 8,192 B per token and layer.
    const estimate = run(metadata, [], { ...f16, contextTokens: 8192 });
    expect(estimate.kvBytes).toBe(10 * 8192 * 8192 + 52 * 1536 * 8192);
    const swaFull = run(metadata, [], { ...f16, contextTokens: 8192, swaFull: true });
    expect(swaFull.kvBytes).toBe(62 * 8192 * 8192);
  });

  it('gpt-oss: even layers slide over 128 tokens (llama.cpp default pattern 2); a bool pattern key wins', () => {
    const base = {
      'general.architecture': 'gpt-oss',
      'gpt-oss.block_count': 24,
      'gpt-oss.attention.head_count': 64,
      'gpt-oss.attention.head_count_kv': 8,
      'gpt-oss.attention.key_length': 64,
      'gpt-oss.attention.value_length': 64,
      'gpt-oss.attention.sliding_window': 128,
      'gpt-oss.context_length': 131072,
    };
    const estimate = run(metadataOf(base), [], { ...f16, contextTokens: 8192 });
    // 8 × (64 + 64) × 2 B = 2,048 B per token and layer; sliding cells pad(128 + 512, 32) = 640.
    expect(estimate.kvBytes).toBe(12 * 8192 * 2048 + 12 * 640 * 2048);
    const flags = Array.from({ length: 24 }, (_, i) => i < 20);
    const plan = planOf(metadataOf({ ...base, 'gpt-oss.attention.sliding_window_pattern': flags }));
    expect(plan.layers.filter((layer) => layer.attention === 'full').map((layer) => layer.index)).toEqual([
      20, 21, 22, 23,
    ]);
  });

  it('sliding_window on an architecture llama.cpp does not slide: full attention, with a note', () => {
    const plan = planOf(
      metadataOf({
        'general.architecture': 'qwen2',
        'qwen2.block_count': 28,
        'qwen2.embedding_length': 3584,
        'qwen2.attention.head_count': 28,
        'qwen2.attention.head_count_kv': 4,
        'qwen2.attention.sliding_window': 131072,
      }),
    );
    expect(plan.layers.every((layer) => layer.attention === 'full')).toBe(true);
    // key_length absent: 3584 / 28 = 128.
    expect(plan.layers[0].kElements).toBe(4 * 128);
    expect(plan.notes.join(' ')).toMatch(/llama.cpp applies no sliding window to qwen2/);
  });

  it('DeepSeek-V3 MLA: 61 layers × (512 + 64) latent, K only = 70,272 B per token in f16', () => {
    const mla = metadataOf({
      'general.architecture': 'deepseek2',
      'deepseek2.block_count': 61,
      'deepseek2.context_length': 163840,
      'deepseek2.embedding_length': 7168,
      'deepseek2.attention.head_count': 128,
      'deepseek2.attention.head_count_kv': 1,
      'deepseek2.attention.key_length': 576,
      'deepseek2.attention.value_length': 512,
      'deepseek2.attention.key_length_mla': 192,
      'deepseek2.attention.value_length_mla': 128,
      'deepseek2.attention.kv_lora_rank': 512,
      'deepseek2.rope.dimension_count': 64,
    });
    const plan = planOf(mla);
    expect(plan.mla).toBe(true);
    expect(plan.kvModel.attention).toBe('MLA');
    expect(plan.kvModel.groups[0].formula).toBe(
      'MLA latent: 1 × key_length 576 (kv_lora_rank 512 + rope 64), K only = 576',
    );
    // Without head_count_kv an MLA file still caches one latent per layer.
    const noKvHeads = new Map(mla);
    noKvHeads.delete('deepseek2.attention.head_count_kv');
    expect(planOf(noKvHeads).layers[0].kElements).toBe(576);
    const estimate = run(mla, [], { ...f16, contextTokens: 4096 });
    expect(estimate.kvBytes).toBe(61 * 576 * 2 * 4096);
    expect(estimate.kvBytes / 4096).toBe(70_272);
    // q8_0 K: 576 / 32 = 18 blocks × 34 B.
    const q8 = run(mla, [], { ...f16, cacheTypeK: 'q8_0', contextTokens: 4096 });
    expect(q8.kvBytes).toBe(61 * 18 * 34 * 4096);
    expect(q8.problems).toEqual([]);
    // An older deepseek2 file without the MLA keys caches every head: 128 × (192 + 128).
    const naive = metadataOf({
      'general.architecture': 'deepseek2',
      'deepseek2.block_count': 61,
      'deepseek2.attention.head_count': 128,
      'deepseek2.attention.head_count_kv': 128,
      'deepseek2.attention.key_length': 192,
      'deepseek2.attention.value_length': 128,
    });
    expect(run(naive, [], { ...f16, contextTokens: 32 }).kvBytes / 32).toBe(4_997_120);
  });

  it('Qwen3-Next: 12 attention layers + 36 Gated DeltaNet layers with an F32 state per sequence', () => {
    const metadata = metadataOf({
      'general.architecture': 'qwen3next',
      'qwen3next.block_count': 48,
      'qwen3next.context_length': 262144,
      'qwen3next.embedding_length': 2048,
      'qwen3next.attention.head_count': 16,
      'qwen3next.attention.head_count_kv': 2,
      'qwen3next.attention.key_length': 256,
      'qwen3next.attention.value_length': 256,
      'qwen3next.full_attention_interval': 4,
      'qwen3next.ssm.conv_kernel': 4,
      'qwen3next.ssm.state_size': 128,
      'qwen3next.ssm.group_count': 16,
      'qwen3next.ssm.time_step_rank': 32,
      'qwen3next.ssm.inner_size': 4096,
    });
    const plan = planOf(metadata);
    expect(plan.layers.filter((layer) => layer.attention === 'full').map((l) => l.index)).toEqual([
      3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47,
    ]);
    // conv (4 − 1) × (4096 + 2 × 16 × 128) = 24,576; SSM 128 × 4096 = 524,288; × 4 B × 36 layers.
    expect(plan.kvModel.state?.bytesPerSequence).toBe(36 * (24_576 + 524_288) * 4);
    const estimate = run(metadata, [], { ...f16, contextTokens: 8192, sequences: 2 });
    // 12 × 2 heads × (256 + 256) × 2 B = 24,576 B per token.
    expect(estimate.kvBytes).toBe(24_576 * 8192);
    expect(estimate.stateBytes).toBe(2 * 36 * (24_576 + 524_288) * 4);
  });

  it('Jamba: attention where head_count_kv is non-zero, Mamba state elsewhere', () => {
    const kvHeads = Array.from({ length: 32 }, (_, i) => (i % 8 === 4 ? 8 : 0));
    const plan = planOf(
      metadataOf({
        'general.architecture': 'jamba',
        'jamba.block_count': 32,
        'jamba.embedding_length': 4096,
        'jamba.attention.head_count': 32,
        'jamba.attention.head_count_kv': kvHeads,
        'jamba.ssm.conv_kernel': 4,
        'jamba.ssm.inner_size': 8192,
        'jamba.ssm.state_size': 16,
      }),
    );
    expect(plan.layers.filter((layer) => layer.attention !== null).map((l) => l.index)).toEqual([4, 12, 20, 28]);
    // 4 layers × 8 heads × (128 + 128) elements per token.
    expect(plan.kvModel.groups).toEqual([expect.objectContaining({ layers: 4, elementsPerToken: 2048 })]);
    // Mamba1 (no groups): conv 3 × 8192, SSM 16 × 8192, F32, 28 layers = 16.6 MiB per sequence.
    expect(plan.kvModel.state?.bytesPerSequence).toBe(28 * (3 * 8192 + 16 * 8192) * 4);
  });

  it('no block_count, an implausible one, or no attention widths: null, never a crash', () => {
    const hostile = metadataOf({
      'general.architecture': 'llama',
      'llama.block_count': 4_000_000_000,
      'llama.attention.head_count': 8,
      'llama.embedding_length': 4096,
    });
    expect(ggufKvPlan(hostile)).toBeNull();
    expect(estimateGgufMemory(hostile, [], f16)).toBeNull();
    expect(ggufKvPlan(metadataOf({ 'general.architecture': 'llama' }))).toBeNull();
    expect(ggufKvPlan(metadataOf({ 'general.architecture': 'llama', 'llama.block_count': 2 }))).toBeNull();
    expect(
      estimateGgufMemory(metadataOf({ 'general.architecture': 'llama', 'llama.block_count': 2n }), [], f16)?.kvBytes,
    ).toBe(0);
    expect(
      estimateGgufMemory(metadataOf({ 'general.architecture': 'llama', 'llama.block_count': -1 }), [], f16),
    ).toBeNull();
  });
});

describe('GGUF MoE active parameters', () => {
  it('Qwen3-30B-A3B: 30,532,122,624 total, 3,353,032,704 active with 8 of 128 experts', () => {
    const { metadata, tensors } = qwen3_30bA3b();
    const moe = moeOf(metadata, tensors);
    // Per layer: 3 × 128 × 768 × 2048 routed; attention 2 × 4096 × 2048 + 2 × 512 × 2048; norms; router 128 × 2048.
    const routedPerLayer = 3 * 128 * 768 * 2048;
    expect(moe.routedParams).toBe(48 * routedPerLayer);
    expect(moe.totalParams).toBe(30_532_122_624);
    expect(moe.activeParams).toBe(30_532_122_624 - 48 * routedPerLayer + (48 * routedPerLayer * 8) / 128);
    expect(moe.activeParams).toBe(3_353_032_704);
    expect(moe.activeParamsWithoutInputEmbedding).toBe(3_353_032_704 - 151936 * 2048);
    expect(moe.topK).toBe(8);
    // KV: 48 layers × 4 heads × (128 + 128) × 2 B = 98,304 B per token.
    const estimate = run(metadata, tensors, { ...f16, contextTokens: 32768 });
    expect(estimate.kvBytes).toBe(98_304 * 32768);
    expect(planOf(metadata).kvModel.attention).toBe('GQA');
  });

  it('--n-cpu-moe and --cpu-moe: the routed experts of the first layers stay in RAM, the rest of them on the GPU', () => {
    const { metadata, tensors } = qwen3_30bA3b();
    // Per layer by hand: gate and up Q4_K 128 × 768 × 2048 / 256 × 144 B, down Q6_K 128 × 2048 × 768 / 256 × 210 B.
    const expertsPerLayer = 2 * ((128 * 768 * 2048) / 256) * 144 + ((128 * 2048 * 768) / 256) * 210;
    expect(expertsPerLayer).toBe(391_643_136);
    const full = run(metadata, tensors, { ...f16, contextTokens: 4096 });
    expect(full.expertsBytes).toBe(48 * expertsPerLayer);
    expect(full.cpuMoeLayers).toBe(0);
    const ten = run(metadata, tensors, { ...f16, contextTokens: 4096, cpuMoeLayers: 10 });
    expect(ten.vram.weightsBytes).toBe(full.vram.weightsBytes - 10 * expertsPerLayer);
    expect(ten.ram.weightsBytes).toBe(full.ram.weightsBytes + 10 * expertsPerLayer);
    // The router (ffn_gate_inp), attention and norms of those layers stay on the GPU, with their KV cache.
    expect(ten.vram.kvBytes).toBe(full.vram.kvBytes);
    expect(ten.layers.map((layer) => layer.expertsInRamBytes > 0)).toEqual([...Array(48).keys()].map((i) => i < 10));
    expect(
      ten.notes.some((note) => note.startsWith('--n-cpu-moe 10: the routed experts (ffn_*_exps) of layers 0–9')),
    ).toBe(true);
    // --cpu-moe (any N past block_count): every layer's experts in RAM, 48 × 391,643,136 B = 17.5 GiB.
    const all = run(metadata, tensors, { ...f16, contextTokens: 4096, cpuMoeLayers: 99 });
    expect(all.cpuMoeLayers).toBe(48);
    expect(all.vram.weightsBytes).toBe(full.vram.weightsBytes - 48 * expertsPerLayer);
    expect(all.notes.some((note) => note.startsWith('--cpu-moe: '))).toBe(true);
    // Layers -ngl leaves on the CPU hold their experts there already: only layers 40–47 move anything.
    const partial = run(metadata, tensors, { ...f16, contextTokens: 4096, gpuLayers: 8, cpuMoeLayers: 44 });
    const partialBase = run(metadata, tensors, { ...f16, contextTokens: 4096, gpuLayers: 8 });
    expect(partial.ram.weightsBytes - partialBase.ram.weightsBytes).toBe(4 * expertsPerLayer);
    expect(partial.vram.totalBytes + partial.ram.totalBytes).toBe(
      partialBase.vram.totalBytes + partialBase.ram.totalBytes,
    );
  });

  it('the fewest layers of experts in RAM that make a GPU fit', () => {
    const { metadata, tensors } = qwen3_30bA3b();
    const expertsPerLayer = 391_643_136;
    const inputs = { ...f16, contextTokens: 4096 };
    const whole = run(metadata, tensors, inputs).vram.totalBytes;
    // A GPU 5 layers' experts short needs exactly 5; a byte more room than whole needs none.
    expect(cpuMoeLayersToFit(metadata, tensors, inputs, whole - 5 * expertsPerLayer)).toBe(5);
    expect(cpuMoeLayersToFit(metadata, tensors, inputs, whole - 5 * expertsPerLayer - 1)).toBe(6);
    expect(cpuMoeLayersToFit(metadata, tensors, inputs, whole)).toBe(0);
    // Every layer's experts in RAM, and not one byte less room; below that, no N fits.
    expect(cpuMoeLayersToFit(metadata, tensors, inputs, whole - 48 * expertsPerLayer)).toBe(48);
    expect(cpuMoeLayersToFit(metadata, tensors, inputs, whole - 48 * expertsPerLayer - 1)).toBeNull();
    expect(cpuMoeLayersToFit(metadataOf({ 'general.architecture': 'llama' }), [], inputs, 1e12)).toBeNull();
  });

  it('a dense model has no MoE section', () => {
    const { metadata, tensors } = llama31_8bQ4KM();
    expect(ggufMoe(metadata, tensors)).toBeNull();
  });
});
