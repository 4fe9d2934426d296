/**
 * compressed-tensors layouts (llm-compressor; docs/format-notes.md#quantization-signatures-compressed-tensors):
 * - pack-quantized W4A16 g128, as in RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16: weight_packed I32
 *   [N, K/8], weight_scale BF16 [N, K/128], weight_shape I64 [2] (its 16 bytes are supplied as tensor data);
 * - nvfp4-pack-quantized and mxfp4-pack-quantized on the same Llama-3.1-8B shapes (derived from the
 *   compressed-tensors nvfp4/mxfp4 compressors: U8 [N, K/2] with F8_E4M3 [N, K/16] + global scale, or U8 E8M0
 *   [N, K/32]).
 */
import type { TensorSpec } from '../build-safetensors';
import { i64Bytes, llamaLinears, llamaNorms } from './common';
import { LLAMA3_8B } from './fp8-llama3-8b';
import type { ModelFixture } from './header-from-specs';

function skeleton(layers: number, linear: (module: string, out: number, k: number) => TensorSpec[]): TensorSpec[] {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [128256, 4096] }];
  for (let layer = 0; layer < layers; layer++) {
    for (const l of llamaLinears(layer, LLAMA3_8B)) {
      specs.push(...linear(l.module, l.out, l.in));
    }
    specs.push(...llamaNorms(layer, 4096, 'BF16'));
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [4096] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [128256, 4096] },
  );
  return specs;
}

export function ctW4a16Fixture(layers = 2): ModelFixture {
  const tensorData: Record<string, Uint8Array> = {};
  const specs = skeleton(layers, (module, out, k) => {
    tensorData[`${module}.weight_shape`] = i64Bytes([out, k]);
    return [
      { name: `${module}.weight_packed`, dtype: 'I32', shape: [out, k / 8] },
      { name: `${module}.weight_scale`, dtype: 'BF16', shape: [out, k / 128] },
      { name: `${module}.weight_shape`, dtype: 'I64', shape: [2] },
    ];
  });
  return {
    fileName: 'model-00001-of-00002.safetensors',
    specs,
    metadata: { format: 'pt' },
    tensorData,
    sidecars: {
      config: {
        model_type: 'llama',
        quantization_config: {
          quant_method: 'compressed-tensors',
          format: 'pack-quantized',
          config_groups: {
            group_0: {
              targets: ['Linear'],
              weights: { num_bits: 4, group_size: 128, strategy: 'group', symmetric: true, type: 'int' },
            },
          },
          ignore: ['lm_head'],
        },
      },
    },
  };
}

export function ctNvfp4Fixture(layers = 2): ModelFixture {
  const specs = skeleton(layers, (module, out, k) => [
    { name: `${module}.weight_packed`, dtype: 'U8', shape: [out, k / 2] },
    { name: `${module}.weight_scale`, dtype: 'F8_E4M3', shape: [out, k / 16] },
    { name: `${module}.weight_global_scale`, dtype: 'F32', shape: [1] },
    { name: `${module}.input_global_scale`, dtype: 'F32', shape: [1] },
  ]);
  return { fileName: 'model-00001-of-00002.safetensors', specs, metadata: { format: 'pt' } };
}

export function ctMxfp4Fixture(layers = 2): ModelFixture {
  const specs = skeleton(layers, (module, out, k) => [
    { name: `${module}.weight_packed`, dtype: 'U8', shape: [out, k / 2] },
    { name: `${module}.weight_scale`, dtype: 'U8', shape: [out, k / 32] },
  ]);
  return { fileName: 'model-00001-of-00002.safetensors', specs, metadata: { format: 'pt' } };
}
