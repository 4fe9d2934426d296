/**
 * Files whose analysis reads exceed the remote budget (io/analysis-spans.ts: 64 KiB spans, 256 KiB and 32 spans
 * per file, 12 over HTTP/1.1), for the "sampled N of M" wording and the bounded-reads tests (issue 14). Each small tensor sits right
 * after a large weight, so no two of them share a span and every one costs its own request.
 */
import type { TensorSpec } from './build-safetensors';
import { f16Bytes } from './models/common';
import type { ModelFixture } from './models/header-from-specs';

/** Layers of the ComfyUI file: far more comfy_quant configs than the 32 spans one load may read. */
export const COMFY_SAMPLED_LAYERS = 266;

/**
 * A ComfyUI-style int8 file: per layer an I8 weight (by default [512, 512], 256 KiB), its F32 scale and its JSON
 * config, each config beside its layer.
 */
export function comfyManyConfigsFixture(
  layers = COMFY_SAMPLED_LAYERS,
  weightShape: [number, number] = [512, 512],
  fileName = 'comfy-int8-266-configs.safetensors',
): ModelFixture {
  const config = new TextEncoder().encode(JSON.stringify({ format: 'int8_tensorwise' }));
  const specs: TensorSpec[] = [];
  const tensorData: Record<string, Uint8Array> = {};
  for (let layer = 0; layer < layers; layer++) {
    const name = `blocks.${layer}.linear`;
    specs.push(
      { name: `${name}.weight`, dtype: 'I8', shape: weightShape },
      { name: `${name}.weight_scale`, dtype: 'F32', shape: [] },
      { name: `${name}.comfy_quant`, dtype: 'U8', shape: [config.length] },
    );
    tensorData[`${name}.comfy_quant`] = config;
  }
  return { fileName, specs, tensorData, metadata: { format: 'pt' } };
}

/**
 * The same 266 configs spread through 14 GB, as in a real FLUX int8 file: each layer's I8 [5120, 10240] weight
 * (50 MiB) lies between two configs, so every config is its own read far from the others (issue 24).
 */
export function comfySpreadConfigsFixture(): ModelFixture {
  return comfyManyConfigsFixture(COMFY_SAMPLED_LAYERS, [5120, 10240], 'comfy-int8-266-configs-14gb.safetensors');
}

/** Modules of the kohya LoRA: more .alpha scalars than the confirming sample (lora.ts ALPHA_CONFIRM_SAMPLE). */
export const KOHYA_SPREAD_MODULES = 40;

/**
 * A kohya LoRA of KOHYA_SPREAD_MODULES modules, rank 64 on 1280-wide layers (each factor 160 KiB, so the alphas
 * are 320 KiB apart), alpha 32. `declared`: whether `ss_network_alpha`/`ss_network_dim` are in the metadata.
 */
export function kohyaSpreadFixture(declared: boolean, modules = KOHYA_SPREAD_MODULES): ModelFixture {
  const specs: TensorSpec[] = [];
  const tensorData: Record<string, Uint8Array> = {};
  for (let i = 0; i < modules; i++) {
    const module = `lora_unet_blocks_${i}_attn_to_q`;
    specs.push(
      { name: `${module}.alpha`, dtype: 'F16', shape: [] },
      { name: `${module}.lora_down.weight`, dtype: 'F16', shape: [64, 1280] },
      { name: `${module}.lora_up.weight`, dtype: 'F16', shape: [1280, 64] },
    );
    tensorData[`${module}.alpha`] = f16Bytes(32);
  }
  const metadata: Record<string, string> = {
    ss_network_module: 'networks.lora',
    ss_base_model_version: 'sdxl_base_v1-0',
  };
  if (declared) {
    metadata.ss_network_dim = '64';
    metadata.ss_network_alpha = '32';
  }
  return {
    fileName: declared ? 'kohya-40-alphas.safetensors' : 'kohya-40-alphas-undeclared.safetensors',
    specs,
    tensorData,
    metadata,
  };
}
