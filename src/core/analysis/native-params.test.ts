import { describe, expect, it } from 'vitest';
import {
  LLAMA2_7B_PARAMS,
  LLAMA3_8B_PARAMS,
  MISTRAL_7B_V01_PARAMS,
  MISTRAL_7B_V03_PARAMS,
  MIXTRAL_8X7B_PARAMS,
} from '../../testing/models/published-params';
import { configFromNativeParams, isNativeParamsFile, isNativeWeightsFile } from './native-params';
import { readMemoryConfig, expertCount, expertsPerToken } from './memory/config';
import { quantConfigHint } from './quant/config-hint';

describe('configFromNativeParams', () => {
  it('reads Mistral 7B v0.3 with the figures its config.json gives', () => {
    const config = readMemoryConfig(configFromNativeParams(MISTRAL_7B_V03_PARAMS));
    expect(config).toMatchObject({
      modelType: 'mistral',
      layers: 32,
      hidden: 4096,
      heads: 32,
      kvHeads: 8,
      headDim: 128,
      headDimSource: 'head_dim',
      maxContext: null,
    });
    expect(config?.text.intermediate_size).toBe(14336);
    expect(config?.text.layer_types).toBeUndefined();
  });

  it('gives Mistral 7B v0.1 its sliding window on every layer, as vLLM does', () => {
    const config = configFromNativeParams(MISTRAL_7B_V01_PARAMS);
    expect(config?.sliding_window).toBe(4096);
    expect(config?.layer_types).toEqual(Array(32).fill('sliding_attention'));
  });

  it('maps a per-layer window pattern, null meaning full attention', () => {
    const config = configFromNativeParams({ ...MISTRAL_7B_V03_PARAMS, n_layers: 4, sliding_window: [null, 1024] });
    expect(config?.sliding_window).toBe(1024);
    expect(config?.layer_types).toEqual(['full_attention', 'sliding_attention', 'full_attention', 'sliding_attention']);
    // A pattern that does not tile the layers, or mixes window sizes, is left out rather than guessed.
    expect(
      configFromNativeParams({ ...MISTRAL_7B_V03_PARAMS, n_layers: 3, sliding_window: [null, 1024] })?.layer_types,
    ).toBe(undefined);
    expect(configFromNativeParams({ ...MISTRAL_7B_V03_PARAMS, sliding_window: [512, 1024] })?.sliding_window).toBe(
      undefined,
    );
  });

  it("reads Mixtral's moe block as its experts and experts per token", () => {
    const config = readMemoryConfig(configFromNativeParams(MIXTRAL_8X7B_PARAMS));
    expect(config?.modelType).toBe('mixtral');
    expect(config && expertCount(config)).toBe(8);
    expect(config && expertsPerToken(config)).toBe(2);
  });

  it("reads a shared-expert moe block in DeepSeek-V3's names (Mistral Large 3)", () => {
    const config = configFromNativeParams({
      ...MISTRAL_7B_V03_PARAMS,
      moe: {
        num_experts: 128,
        num_experts_per_tok: 4,
        num_shared_experts: 1,
        expert_hidden_dim: 4096,
        first_k_dense_replace: 3,
      },
    });
    expect(config).toMatchObject({
      model_type: 'deepseek_v3',
      n_routed_experts: 128,
      num_experts_per_tok: 4,
      n_shared_experts: 1,
      moe_intermediate_size: 4096,
      first_k_dense_replace: 3,
    });
    expect(config?.moe).toBeUndefined();
  });

  it("reads Meta's Llama params.json: head size from dim / n_heads, the MLP width from multiple_of", () => {
    const llama3 = readMemoryConfig(configFromNativeParams(LLAMA3_8B_PARAMS));
    expect(llama3).toMatchObject({ modelType: 'llama', layers: 32, heads: 32, kvHeads: 8, headDim: 128 });
    expect(llama3?.headDimSource).toBe('hidden_size / num_attention_heads');
    expect(llama3?.text.intermediate_size).toBe(14336);
    expect(
      configFromNativeParams({ ...LLAMA3_8B_PARAMS, dim: 8192, multiple_of: 4096, n_heads: 64 })?.intermediate_size,
    ).toBe(28672);
    const llama2 = configFromNativeParams(LLAMA2_7B_PARAMS);
    expect(llama2?.intermediate_size).toBe(11008);
    expect(llama2?.vocab_size).toBeUndefined();
    // No n_kv_heads: every query head has its own KV head.
    expect(readMemoryConfig(llama2)?.kvHeads).toBe(32);
  });

  it('turns FP8 and compressed-tensors quantization into a quantization_config named after params.json', () => {
    const fp8 = configFromNativeParams({
      ...MISTRAL_7B_V03_PARAMS,
      quantization: { qformat_weight: 'fp8_e4m3', qscheme_act: 'TENSOR' },
    });
    expect(fp8?.quantization_config).toEqual({ quant_method: 'fp8', activation_scheme: 'static' });
    expect(quantConfigHint(fp8, 'params.json')).toMatchObject({ method: 'fp8', source: 'params.json quantization' });
    const compressed = configFromNativeParams({
      ...MISTRAL_7B_V03_PARAMS,
      quantization: { quant_method: 'compressed_tensors', format: 'pack-quantized' },
    });
    expect(compressed?.quantization_config).toEqual({ quant_method: 'compressed-tensors', format: 'pack-quantized' });
    expect(
      configFromNativeParams({ ...MISTRAL_7B_V03_PARAMS, quantization: { qformat_weight: 'int3' } })
        ?.quantization_config,
    ).toBe(undefined);
    expect(quantConfigHint(configFromNativeParams(MISTRAL_7B_V03_PARAMS), 'params.json')).toBeNull();
  });

  it('turns yarn into rope_scaling, whose factor extends the original context', () => {
    const config = readMemoryConfig(
      configFromNativeParams({
        ...MISTRAL_7B_V03_PARAMS,
        yarn: { factor: 4, original_max_position_embeddings: 32768, beta: 32, alpha: 1 },
      }),
    );
    expect(config?.ropeScaling).toMatchObject({ scaledContext: 131072 });
    expect(config?.text.rope_scaling).toEqual({
      rope_type: 'yarn',
      factor: 4,
      original_max_position_embeddings: 32768,
      beta_fast: 32,
      beta_slow: 1,
    });
  });

  it("lays out no window pattern for a layer count past the estimate's limit", () => {
    const config = configFromNativeParams({ ...MISTRAL_7B_V01_PARAMS, n_layers: 2_000_000_000 });
    expect(config?.layer_types).toBeUndefined();
    expect(readMemoryConfig(config)?.layersPastLimit).toBe(2_000_000_000);
  });

  it('works the MLP width out only from a whole multiple_of', () => {
    for (const multiple_of of [0, -256, 1e-300, 0.5, '256']) {
      expect(configFromNativeParams({ ...LLAMA2_7B_PARAMS, multiple_of })?.intermediate_size).toBeUndefined();
    }
  });

  it('is null for a params.json that is not a model config', () => {
    expect(configFromNativeParams({ learning_rate: 3e-4, epochs: 3 })).toBeNull();
    expect(configFromNativeParams({ dim: 4096, n_layers: 32 })).toBeNull();
    expect(configFromNativeParams({ dim: '4096', n_layers: 32, n_heads: 32 })).toBeNull();
    expect(configFromNativeParams([1, 2])).toBeNull();
    expect(configFromNativeParams(null)).toBeNull();
  });
});

describe('native file names', () => {
  it("knows the reference code's weight files and params.json", () => {
    for (const name of [
      'consolidated.safetensors',
      'original/consolidated.00.pth',
      'consolidated-00002-of-00003.safetensors',
    ]) {
      expect(isNativeWeightsFile(name)).toBe(true);
    }
    for (const name of ['model.safetensors', 'consolidated.bin', 'my-consolidated.safetensors', 'consolidated.0.pth']) {
      expect(isNativeWeightsFile(name)).toBe(false);
    }
    expect(isNativeParamsFile('original/params.json')).toBe(true);
    expect(isNativeParamsFile('hparams.json')).toBe(false);
  });
});
