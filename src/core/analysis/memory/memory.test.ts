/**
 * The memory analysis against published configs. Every expectation is computed by hand in the test, with its
 * formula: KV/token = Σ layers × 2 × KV heads × head dim × cache bytes (MLA: layers × (kv_lora_rank + rope) ×
 * bytes), windows capped, recurrent state once per sequence (docs/memory.md).
 */
import { describe, expect, it } from 'vitest';
import type { TensorSpec } from '../../../testing/build-safetensors';
import { plainLlamaLayer } from '../../../testing/models/common';
import { deepseekV3Fixture } from '../../../testing/models/fp8-deepseek-v3';
import { gptOss20bFixture } from '../../../testing/models/gpt-oss-20b';
import { inputFromFixture, type ModelFixture } from '../../../testing/models/header-from-specs';
import {
  DEEPSEEK_V3_CONFIG,
  GEMMA3_27B_CONFIG,
  GPT_OSS_20B_CONFIG,
  JAMBA_V01_CONFIG,
  LLAMA2_7B_CONFIG,
  MISTRAL_7B_V01_CONFIG,
  MIXTRAL_8X7B_CONFIG,
  QWEN3_06B_CONFIG,
  QWEN3_8B_CONFIG,
  QWEN3_NEXT_80B_CONFIG,
} from '../../../testing/models/published-configs';
import { mixtralFixture, tinyLlamaFixture } from '../../../testing/models/plain-models';
import { estimateMemory } from './estimate';
import { MAX_MODEL_LAYERS } from '../analysis-limits';
import { groupDigits } from '../../number-format';
import { analyzeMemory } from './memory';

/** Llama-2-7B's published tensors: 32 MHA layers, hidden 4096, intermediate 11008, vocab 32000, F16. */
function llama2Fixture(config?: unknown): ModelFixture {
  const dims = { hidden: 4096, intermediate: 11008, q: 4096, kv: 4096 };
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'F16', shape: [32000, 4096] }];
  for (let layer = 0; layer < 32; layer++) {
    specs.push(...plainLlamaLayer(layer, dims, 'F16'));
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'F16', shape: [4096] },
    { name: 'lm_head.weight', dtype: 'F16', shape: [32000, 4096] },
  );
  return { fileName: 'model.safetensors', specs, sidecars: config ? { config } : {} };
}

/** A small stand-in header (two TinyLlama layers): the config, not the header, sizes the cache. */
function withConfig(config: unknown): ModelFixture {
  return { ...tinyLlamaFixture(2), sidecars: { config } };
}

function memory(fixture: ModelFixture) {
  const section = analyzeMemory(inputFromFixture(fixture));
  if (!section) {
    throw new Error('no memory section');
  }
  return section;
}

describe('KV cache per token from config.json', () => {
  it('Llama-2-7B (MHA): 32 layers × 2 × 32 heads × 128 × 2 B = 524,288 B; 2 GiB at 4096', () => {
    const section = memory(llama2Fixture(LLAMA2_7B_CONFIG));
    expect(section.config).toBe('config.json');
    expect(section.cacheDtype).toBe('fp16');
    expect(section.kv?.attention).toBe('MHA');
    expect(section.kvBytesPerToken).toBe(32 * 2 * 32 * 128 * 2);
    expect(section.kvBytesPerToken).toBe(524_288);
    // Weights: 6,738,415,616 params × 2 B (the published Llama-2-7B parameter count).
    expect(section.weightsBytes).toBe(6_738_415_616 * 2);
    expect(section.weights.params).toBe(6_738_415_616);
    // max_position_embeddings 4096 is already one of the fixed contexts: no duplicate.
    expect(section.contexts.map((c) => c.tokens)).toEqual([4096, 8192, 32768]);
    expect(section.contexts[0]).toMatchObject({ tokens: 4096, batch: 1, kvBytes: 524_288 * 4096 });
    expect(section.contexts[0].kvBytes).toBe(2 * 2 ** 30);
    // total = weights + KV + 2 GiB stated overhead.
    expect(section.contexts[0].totalBytes).toBe(6_738_415_616 * 2 + 2 * 2 ** 30 + 2 * 2 ** 30);
  });

  it('Qwen3-8B (GQA): 36 × 2 × 8 KV heads × 128 × 2 B = 147,456 B; sliding_window null ignored', () => {
    const section = memory(withConfig(QWEN3_8B_CONFIG));
    expect(section.kv?.attention).toBe('GQA');
    expect(section.kvBytesPerToken).toBe(36 * 2 * 8 * 128 * 2);
    expect(section.kv?.groups).toEqual([expect.objectContaining({ layers: 36, window: null, elementsPerToken: 2048 })]);
    expect(section.maxContext).toBe(40960);
    expect(section.contexts.map((c) => c.tokens)).toEqual([4096, 8192, 32768, 40960]);
    expect(section.contexts[3].kvBytes).toBe(147_456 * 40960);
  });

  it('Qwen3-0.6B: head_dim 128 from the config, not hidden / heads = 64', () => {
    const section = memory(withConfig(QWEN3_06B_CONFIG));
    // 28 × 2 × 8 × 128 × 2 = 114,688; at 40960 tokens 4,697,620,480 B.
    expect(section.kvBytesPerToken).toBe(114_688);
    expect(section.contexts[3]).toMatchObject({ tokens: 40960, kvBytes: 4_697_620_480 });
  });

  it('gpt-oss-20b: alternating 128-token windows; 8192 tokens → 204,472,320 B', () => {
    const section = memory({ ...gptOss20bFixture(24), sidecars: { config: GPT_OSS_20B_CONFIG } });
    const perLayer = 2 * 8 * 64 * 2; // 2,048 B per token per layer
    expect(section.kvBytesPerToken).toBe(24 * perLayer);
    expect(section.kv?.groups).toEqual([
      expect.objectContaining({ label: 'full attention', layers: 12, window: null }),
      expect.objectContaining({
        label: 'sliding window (128 tokens)',
        layers: 12,
        window: 128,
        formula: expect.stringMatching(/^2 \(K and V\) .*; capped at sliding_window 128 tokens$/),
      }),
    ]);
    const at8k = estimateMemory(section, { tokens: 8192, batch: 1, cacheDtype: 'bf16' });
    // 12 full layers × 8192 tokens + 12 sliding layers × 128 tokens, × 2,048 B.
    expect(at8k.kvBytes).toBe(12 * perLayer * 8192 + 12 * perLayer * 128);
    expect(at8k.kvBytes).toBe(204_472_320);
    // Batch 4 and fp8 (1 B): every line scales.
    const batched = estimateMemory(section, { tokens: 8192, batch: 4, cacheDtype: 'fp8' });
    expect(batched.kvBytes).toBe((4 * 204_472_320) / 2);
  });

  it('gpt-oss-20b weights and MoE: 20,914,757,184 params; active = total − routed × (1 − 4/32)', () => {
    const section = memory({ ...gptOss20bFixture(24), sidecars: { config: GPT_OSS_20B_CONFIG } });
    // Total as published (arXiv 2508.10925): MXFP4 blocks count 2 params per byte, scales none.
    expect(section.weights.params).toBe(20_914_757_184);
    // Routed experts per layer: gate_up 32 × 5760 × 2880 + bias 32 × 5760; down 32 × 2880 × 2880 + bias 32 × 2880.
    const routedPerLayer = 32 * 5760 * 2880 + 32 * 5760 + 32 * 2880 * 2880 + 32 * 2880;
    expect(section.moe).toMatchObject({ experts: 32, topK: 4, routedParams: 24 * routedPerLayer });
    expect(section.activeParams).toBe(20_914_757_184 - 24 * routedPerLayer * (1 - 4 / 32));
    // ≈ 4.19 B with both embeddings.
    expect(Math.round((section.activeParams ?? 0) / 1e6)).toBe(4187);
  });

  it('DeepSeek-V3 (MLA): 61 × (512 + 64) × 2 B = 70,272 B per token; fp8 35,136; MTP layer apart', () => {
    const section = memory({ ...deepseekV3Fixture(), sidecars: { config: DEEPSEEK_V3_CONFIG } });
    expect(section.kv?.attention).toBe('MLA');
    expect(section.kvBytesPerToken).toBe(61 * (512 + 64) * 2);
    expect(section.kvBytesPerToken).toBe(70_272);
    const fp8 = estimateMemory(section, { tokens: 1, batch: 1, cacheDtype: 'fp8' });
    expect(fp8.kvBytes).toBe(35_136);
    // Layer 61 (≥ num_hidden_layers) is the MTP layer: its bytes are reported on their own.
    const mtp = section.weights.byPart.find((part) => part.part === 'mtp');
    expect(mtp?.tensors).toBeGreaterThan(0);
    expect(section.moe).toMatchObject({ experts: 256, topK: 8, sharedExperts: 1 });
    expect(section.maxContext).toBe(163840);
  });

  it('Qwen3-Next-80B-A3B (hybrid): 12 full layers × 2 × 2 × 256 × 2 B + a fixed Gated DeltaNet state', () => {
    const section = memory(withConfig(QWEN3_NEXT_80B_CONFIG));
    expect(section.kvBytesPerToken).toBe(12 * 2 * 2 * 256 * 2);
    expect(section.kvBytesPerToken).toBe(24_576);
    // 36 GDN layers × (conv 3 × (2·16·128 + 32·128) + recurrent 32 × 128 × 128) × 2 B = 39,518,208 B per sequence.
    const perSequence = 36 * (3 * (2 * 16 * 128 + 32 * 128) + 32 * 128 * 128) * 2;
    expect(section.kv?.state).toMatchObject({ kind: 'Gated DeltaNet', layers: 36, bytesPerSequence: perSequence });
    expect(perSequence).toBe(39_518_208);
    const at = estimateMemory(section, { tokens: 4096, batch: 2, cacheDtype: 'bf16' });
    expect(at.kvBytes).toBe(2 * 4096 * 24_576);
    expect(at.stateBytes).toBe(2 * perSequence);
    expect(section.contexts[0].kvBytes).toBe(4096 * 24_576 + perSequence);
  });

  it('Jamba-v0.1 (hybrid): 4 attention layers × 2 × 8 × 128 × 2 B; 28 Mamba layers of fixed state', () => {
    const section = memory(withConfig(JAMBA_V01_CONFIG));
    expect(section.kvBytesPerToken).toBe(4 * 2 * 8 * 128 * 2);
    // d_inner = 2 × 4096; per layer conv (4 − 1) × 8192 + SSM 8192 × 16, × 2 B; 28 layers → 8.3 MiB.
    expect(section.kv?.state?.bytesPerSequence).toBe(28 * (3 * 8192 + 8192 * 16) * 2);
  });

  it('Gemma-3-27B (text_config): 10 full + 52 sliding layers of 1024 tokens; 8192 → 1,107,296,256 B', () => {
    const section = memory(withConfig(GEMMA3_27B_CONFIG));
    const perLayer = 2 * 16 * 128 * 2; // 8,192 B per token per layer
    const at = estimateMemory(section, { tokens: 8192, batch: 1, cacheDtype: 'bf16' });
    expect(at.kvBytes).toBe(10 * perLayer * 8192 + 52 * perLayer * 1024);
    expect(at.kvBytes).toBe(1_107_296_256);
    expect(section.maxContext).toBe(131072);
  });

  it('Mistral-7B v0.1: every layer slides over 4096 tokens, so 32K costs what 4096 does', () => {
    const section = memory(withConfig(MISTRAL_7B_V01_CONFIG));
    const at32k = estimateMemory(section, { tokens: 32768, batch: 1, cacheDtype: 'bf16' });
    // 32 × 2 × 8 × 128 × 2 B × 4096 tokens = 536,870,912 B.
    expect(at32k.kvBytes).toBe(32 * 2 * 8 * 128 * 2 * 4096);
  });
});

describe('more layer layouts', () => {
  it('Gemma 3n E2B (text_config): layers 20–29 share earlier caches; 4 full + 16 sliding layers keep their own', () => {
    const layerTypes = Array.from({ length: 30 }, (_, i) => (i % 5 === 4 ? 'full_attention' : 'sliding_attention'));
    const config = {
      architectures: ['Gemma3nForConditionalGeneration'],
      model_type: 'gemma3n',
      text_config: {
        model_type: 'gemma3n_text',
        head_dim: 256,
        hidden_size: 2048,
        layer_types: layerTypes,
        max_position_embeddings: 32768,
        num_attention_heads: 8,
        num_hidden_layers: 30,
        num_key_value_heads: 2,
        num_kv_shared_layers: 10,
        sliding_window: 512,
      },
      torch_dtype: 'bfloat16',
    };
    const section = memory(withConfig(config));
    expect(section.kv?.groups.map((g) => [g.label, g.layers, g.elementsPerToken])).toEqual([
      ['full attention', 4, 2 * 2 * 256],
      ['sliding window (512 tokens)', 16, 2 * 2 * 256],
    ]);
    // 2 × 2 heads × 256 × 2 B = 2,048 B per token and layer: 40,960 B, where all 30 layers would make 61,440 B.
    expect(section.kvBytesPerToken).toBe(20 * 2048);
    expect(section.kv?.notes.join(' ')).toMatch(/Layers 20–29 \(num_kv_shared_layers 10\)/);
  });

  it('global_head_dim (Gemma 4): full-attention layers cache wider heads than the sliding ones', () => {
    const config = {
      architectures: ['Gemma4ForCausalLM'],
      model_type: 'gemma4_text',
      global_head_dim: 512,
      head_dim: 256,
      hidden_size: 2560,
      layer_types: Array.from({ length: 6 }, (_, i) => (i % 6 === 5 ? 'full_attention' : 'sliding_attention')),
      max_position_embeddings: 131072,
      num_attention_heads: 8,
      num_hidden_layers: 6,
      num_key_value_heads: 2,
      sliding_window: 1024,
      torch_dtype: 'bfloat16',
    };
    const section = memory(withConfig(config));
    expect(section.kv?.groups.map((g) => [g.label, g.layers, g.elementsPerToken])).toEqual([
      ['full attention', 1, 2 * 2 * 512],
      ['sliding window (1024 tokens)', 5, 2 * 2 * 256],
    ]);
  });

  it('Llama 4 Scout (text_config): every 4th layer global, the rest chunked at 8192 tokens', () => {
    const config = {
      architectures: ['Llama4ForConditionalGeneration'],
      model_type: 'llama4',
      text_config: {
        model_type: 'llama4_text',
        attention_chunk_size: 8192,
        head_dim: 128,
        hidden_size: 5120,
        max_position_embeddings: 10485760,
        num_attention_heads: 40,
        num_hidden_layers: 48,
        num_key_value_heads: 8,
      },
      torch_dtype: 'bfloat16',
    };
    const section = memory(withConfig(config));
    const perLayer = 2 * 8 * 128 * 2; // 4,096 B per token per layer
    const at = estimateMemory(section, { tokens: 131072, batch: 1, cacheDtype: 'bf16' });
    expect(section.kv?.groups).toEqual([
      expect.objectContaining({ label: 'full attention', layers: 12, window: null }),
      expect.objectContaining({
        label: 'chunked attention (8192 tokens)',
        layers: 36,
        window: 8192,
        formula: expect.stringMatching(/; capped at attention_chunk_size 8192 tokens$/),
      }),
    ]);
    // 12 global layers keep all 131072 tokens, 36 chunked layers keep 8192.
    expect(at.kvBytes).toBe(12 * perLayer * 131072 + 36 * perLayer * 8192);
    expect(section.maxContext).toBe(10485760);
  });

  it('a Nemotron-H-shaped hybrid: * attention, M Mamba2 with an fp32 SSM state by default', () => {
    const config = {
      architectures: ['NemotronHForCausalLM'],
      model_type: 'nemotron_h',
      hidden_size: 4096,
      num_hidden_layers: 8,
      hybrid_override_pattern: 'M-M*M-M-',
      num_attention_heads: 32,
      num_key_value_heads: 8,
      head_dim: 128,
      mamba_num_heads: 128,
      mamba_head_dim: 64,
      ssm_state_size: 128,
      n_groups: 8,
      conv_kernel: 4,
      torch_dtype: 'bfloat16',
    };
    const section = memory(withConfig(config));
    // One '*' layer: 1 × 2 × 8 × 128 × 2 B per token.
    expect(section.kvBytesPerToken).toBe(1 * 2 * 8 * 128 * 2);
    // Four 'M' layers: conv (4 − 1) × (128·64 + 2·8·128) × 2 B + SSM 128 × 64 × 128 × 4 B (fp32).
    const conv = 3 * (128 * 64 + 2 * 8 * 128);
    const ssm = 128 * 64 * 128;
    expect(section.kv?.state).toMatchObject({ kind: 'Mamba2', layers: 4, bytesPerSequence: 4 * (conv * 2 + ssm * 4) });
  });
});

describe('models that keep no KV cache', () => {
  it('an encoder-only config (BertForMaskedLM): the weights, no KV cache, no context past its 512 positions', () => {
    const config = {
      architectures: ['BertForMaskedLM'],
      model_type: 'bert',
      hidden_size: 768,
      max_position_embeddings: 512,
      num_hidden_layers: 12,
      num_attention_heads: 12,
    };
    const section = memory(withConfig(config));
    expect(section.kv).toMatchObject({ attention: 'encoder', groups: [], state: null });
    expect(section.kvBytesPerToken).toBe(0);
    expect(section.contexts.map((context) => [context.tokens, context.kvBytes])).toEqual([[512, 0]]);
    expect(section.kv?.notes[0]).toMatch(/BertForMaskedLM is an encoder/);
    expect(section.evidence.join(' ')).not.toMatch(/KV cache from config.json/);
    // A decoder with the same widths keeps 12 × 2 × 12 × 64 × 2 B per token.
    const decoder = memory(withConfig({ ...config, architectures: ['BertLMHeadModel'] }));
    expect(decoder.kvBytesPerToken).toBe(12 * 2 * 12 * 64 * 2);
  });

  it('a config.json without architectures: an encoder by its model_type, unless it says is_decoder', () => {
    const config = {
      model_type: 'bert',
      hidden_size: 768,
      max_position_embeddings: 512,
      num_hidden_layers: 12,
      num_attention_heads: 12,
    };
    const section = memory(withConfig(config));
    expect(section.kv?.attention).toBe('encoder');
    expect(section.kv?.notes[0]).toMatch(/^A bert \(model_type\) is an encoder/);
    expect(memory(withConfig({ ...config, is_decoder: true })).kvBytesPerToken).toBe(12 * 2 * 12 * 64 * 2);
    expect(memory(withConfig({ ...config, model_type: 'llama' })).kv?.attention).toBe('MHA');
  });
});

describe('without config.json', () => {
  it('infers 2 × KV heads × head dim from k_proj / v_proj out features and says it is inferred', () => {
    const section = memory(tinyLlamaFixture(2));
    expect(section.config).toBe('inferred');
    // TinyLlama: k_proj and v_proj out features 256 (4 KV heads × 64) in each of 2 layers.
    expect(section.kv?.groups).toEqual([expect.objectContaining({ layers: 2, elementsPerToken: 256 + 256 })]);
    expect(section.kvBytesPerToken).toBe(2 * 512 * 2);
    expect(section.maxContext).toBeNull();
    expect(section.contexts.map((c) => c.tokens)).toEqual([4096, 8192, 32768]);
    expect(section.kv?.notes[0]).toMatch(/No config.json/);
  });

  it('infers the MLA latent from kv_a_proj_with_mqa and leaves the MTP layer out', () => {
    const section = memory(deepseekV3Fixture());
    expect(section.config).toBe('inferred');
    // Four main layers (0–3) in the fixture, each 576 latent elements; layer 61 is MTP.
    expect(section.kv?.groups).toEqual([expect.objectContaining({ layers: 4, elementsPerToken: 576 })]);
  });

  it('ignores a config.json layer count past MAX_MODEL_LAYERS, says so, and infers the layers from the header', () => {
    const hostile = { ...QWEN3_8B_CONFIG, num_hidden_layers: 2_000_000_000 };
    const section = memory({ ...tinyLlamaFixture(2), sidecars: { config: hostile } });
    expect(section.evidence).toContain(
      `config.json gives ${groupDigits(2_000_000_000)} layers, past the ${groupDigits(MAX_MODEL_LAYERS)} this estimate lays out; the count is ignored.`,
    );
    expect(section.config).toBe('inferred');
    expect(section.kv?.groups).toEqual([expect.objectContaining({ layers: 2 })]);
    // At the limit the count is taken as given.
    const atLimit = memory({
      ...tinyLlamaFixture(2),
      sidecars: { config: { ...QWEN3_8B_CONFIG, num_hidden_layers: MAX_MODEL_LAYERS } },
    });
    expect(atLimit.config).toBe('config.json');
    expect(atLimit.kv?.groups.reduce((sum, group) => sum + group.layers, 0)).toBe(MAX_MODEL_LAYERS);
  });
});

describe('fit and training', () => {
  it('counts GPUs with usable = capacity × 0.9 − 2 GiB, and full fine-tuning at 16 B per parameter', () => {
    const section = memory(llama2Fixture(LLAMA2_7B_CONFIG));
    const estimate = estimateMemory(section, { tokens: 4096, batch: 1, cacheDtype: 'fp16' });
    const rtx = estimate.gpus.find((gpu) => gpu.id === '24');
    // 24,564 MiB × 0.9 − 2 GiB = 21.59 GiB − 2 GiB ≈ 19.6 GiB ≥ 12.55 GiB weights + 2 GiB KV: one card.
    expect(rtx?.usableBytes).toBeCloseTo(24_564 * 2 ** 20 * 0.9 - 2 * 2 ** 30, 0);
    expect(rtx?.count).toBe(1);
    const full = estimate.training.find((row) => row.id === 'full');
    expect(full?.totalBytes).toBe(6_738_415_616 * 16 + 2 * 2 ** 30);
    // 107.8 GB of training state / (79.65 GiB × 0.9 − 2 GiB) per H100 → 2 cards.
    expect(full?.gpus.find((gpu) => gpu.id === '80')?.count).toBe(2);
    const lora = estimate.training.find((row) => row.id === 'lora');
    // r = 16 on 7 projections × 32 layers: 4 × 16 × (4096 + 4096) + 3 × 16 × (4096 + 11008) per layer.
    expect(section.lora?.trainableParams).toBe(32 * (4 * 16 * 8192 + 3 * 16 * 15104));
    expect(lora?.totalBytes).toBe(6_738_415_616 * 2 + (section.lora?.trainableParams ?? 0) * 16 + 2 * 2 ** 30);
  });
});

describe('MoE active parameters: both conventions', () => {
  it('gpt-oss-20b: 3.6 B as OpenAI publishes it (no input embedding), 4.19 B with both embeddings', () => {
    const section = memory({ ...gptOss20bFixture(24), sidecars: { config: GPT_OSS_20B_CONFIG } });
    const embedding = 201_088 * 2880; // vocab × hidden, untied
    expect(section.moe).toMatchObject({ tiedEmbeddings: false, inputEmbeddingParams: embedding });
    expect(section.moe?.activeParamsWithoutInputEmbedding).toBe((section.activeParams ?? 0) - embedding);
    // The model card (arXiv 2508.10925): 20.9 B total, 3.6 B active.
    expect(Math.round((section.moe?.totalParams ?? 0) / 1e8) / 10).toBe(20.9);
    expect(Math.round((section.moe?.activeParamsWithoutInputEmbedding ?? 0) / 1e8) / 10).toBe(3.6);
    expect(Math.round((section.activeParams ?? 0) / 1e8) / 10).toBe(4.2);
    expect(section.moe?.formula).toContain('as OpenAI counts gpt-oss');
  });

  it('Mixtral-8x7B: 12.9 B active as Mistral publishes it (both embeddings), 46.7 B total', () => {
    const section = memory({ ...mixtralFixture(32), sidecars: { config: MIXTRAL_8X7B_CONFIG } });
    expect(section.moe).toMatchObject({ experts: 8, topK: 2, totalParams: 46_702_792_704 });
    // 32 layers × 8 experts × 3 × 14336 × 4096 routed, 2 of 8 used: 46,702,792,704 − 45,097,156,608 × 3/4.
    const routed = 32 * 8 * 3 * 14336 * 4096;
    expect(section.moe?.routedParams).toBe(routed);
    expect(section.activeParams).toBe(46_702_792_704 - (routed * 3) / 4);
    expect(section.activeParams).toBe(12_879_925_248);
    expect(section.moe?.activeParamsWithoutInputEmbedding).toBe(12_879_925_248 - 32000 * 4096);
  });

  it('tied embeddings: leaving out the input embedding changes nothing, and a copy saved twice counts once', () => {
    const config = { ...MIXTRAL_8X7B_CONFIG, num_hidden_layers: 2, tie_word_embeddings: true };
    const twice = memory({ ...mixtralFixture(2), sidecars: { config } });
    const untied = memory({ ...mixtralFixture(2), sidecars: { config: { ...config, tie_word_embeddings: false } } });
    expect(twice.moe?.tiedEmbeddings).toBe(true);
    expect(twice.moe?.totalParams).toBe((untied.moe?.totalParams ?? 0) - 32000 * 4096);
    expect(twice.moe?.activeParamsWithoutInputEmbedding).toBe(twice.activeParams);
    expect(twice.moe?.formula).toContain('the tied embedding stored twice counted once');
    // No lm_head in the header: the head reuses the embedding, whatever the config says.
    const fixture = mixtralFixture(2);
    const once = memory({
      ...fixture,
      specs: fixture.specs.filter((spec) => spec.name !== 'lm_head.weight'),
      sidecars: { config: { ...config, tie_word_embeddings: undefined } },
    });
    expect(once.moe).toMatchObject({ tiedEmbeddings: true, totalParams: twice.moe?.totalParams });
    expect(once.moe?.activeParamsWithoutInputEmbedding).toBe(once.activeParams);
  });

  it('Llama-2-7B (dense): no MoE figures; every one of its 6.74 B parameters is active', () => {
    const section = memory(llama2Fixture(LLAMA2_7B_CONFIG));
    expect(section.moe).toBeUndefined();
    expect(section.activeParams).toBeUndefined();
    expect(section.weights.params).toBe(6_738_415_616);
  });
});

describe('estimateMemory inputs', () => {
  it('words agree with their counts: 1 token, 1 sequence', () => {
    const section = memory(withConfig(QWEN3_NEXT_80B_CONFIG));
    const one = estimateMemory(section, { tokens: 1, batch: 1, cacheDtype: 'bf16' });
    expect(one.kvLines[0].formula).toMatch(/^1 × 1 token × 12 layers × /);
    expect(one.stateFormula).toMatch(/^1 sequence × /);
    const two = estimateMemory(section, { tokens: 2, batch: 2, cacheDtype: 'bf16' });
    expect(two.kvLines[0].formula).toMatch(/^2 × 2 tokens × /);
    expect(two.stateFormula).toMatch(/^2 sequences × /);
  });

  it('refuses zero, negative or fractional inputs instead of clamping them to 1', () => {
    const section = memory(llama2Fixture(LLAMA2_7B_CONFIG));
    for (const inputs of [
      { tokens: 0, batch: 1 },
      { tokens: -4096, batch: 1 },
      { tokens: 4096, batch: 0 },
      { tokens: 10.5, batch: 1 },
    ]) {
      expect(() => estimateMemory(section, { ...inputs, cacheDtype: 'bf16' })).toThrow(RangeError);
    }
  });
});
