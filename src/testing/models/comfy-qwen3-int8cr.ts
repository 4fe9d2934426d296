/**
 * A ComfyUI int8 text encoder whose NAME claims ConvRot but whose configs do not: qwen_3_06b_base-int8cr
 * (seed 003: 702 tensors, BF16 114 / F32 196 / I8 196 / U8 196; every sampled config is
 * {"format": "int8_tensorwise"} with no `convrot`). Qwen/Qwen3-0.6B shapes: hidden 1024, intermediate 3072,
 * 16 q heads / 8 kv heads × 128, q_norm/k_norm [128], vocab 151936, tied embeddings, 28 layers (all here:
 * the file's counts are part of what the test checks).
 */
import type { TensorSpec } from '../build-safetensors';
import { f32Bytes, jsonBytes, llamaLinears, llamaNorms, type LlamaDims } from './common';
import type { ModelFixture } from './header-from-specs';

const QWEN3_06B: LlamaDims = { hidden: 1024, intermediate: 3072, q: 2048, kv: 1024 };

export function qwen3Int8crFixture(layers = 28): ModelFixture {
  const config = jsonBytes({ format: 'int8_tensorwise' });
  const tensorData: Record<string, Uint8Array> = {};
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [151936, 1024] }];
  for (let layer = 0; layer < layers; layer++) {
    for (const linear of llamaLinears(layer, QWEN3_06B)) {
      specs.push(
        { name: `${linear.module}.weight`, dtype: 'I8', shape: [linear.out, linear.in] },
        { name: `${linear.module}.weight_scale`, dtype: 'F32', shape: [] },
        { name: `${linear.module}.comfy_quant`, dtype: 'U8', shape: [config.length] },
      );
      tensorData[`${linear.module}.comfy_quant`] = config;
      tensorData[`${linear.module}.weight_scale`] = f32Bytes(0.02);
    }
    specs.push(
      ...llamaNorms(layer, 1024, 'BF16'),
      { name: `model.layers.${layer}.self_attn.q_norm.weight`, dtype: 'BF16', shape: [128] },
      { name: `model.layers.${layer}.self_attn.k_norm.weight`, dtype: 'BF16', shape: [128] },
    );
  }
  specs.push({ name: 'model.norm.weight', dtype: 'BF16', shape: [1024] });
  return { fileName: 'qwen_3_06b_base-int8cr.safetensors', specs, tensorData };
}

/** Qwen/Qwen3-0.6B as published (BF16, tied), for architecture tests: head_dim comes from q_norm. */
export function qwen3PlainFixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [151936, 1024] }];
  for (let layer = 0; layer < layers; layer++) {
    for (const linear of llamaLinears(layer, QWEN3_06B)) {
      specs.push({ name: `${linear.module}.weight`, dtype: 'BF16', shape: [linear.out, linear.in] });
    }
    specs.push(
      ...llamaNorms(layer, 1024, 'BF16'),
      { name: `model.layers.${layer}.self_attn.q_norm.weight`, dtype: 'BF16', shape: [128] },
      { name: `model.layers.${layer}.self_attn.k_norm.weight`, dtype: 'BF16', shape: [128] },
    );
  }
  specs.push({ name: 'model.norm.weight', dtype: 'BF16', shape: [1024] });
  return { fileName: 'model.safetensors', specs, metadata: { format: 'pt' } };
}
