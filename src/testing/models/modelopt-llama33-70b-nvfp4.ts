/**
 * NVIDIA ModelOpt NVFP4 unified export, as in nvidia/Llama-3.3-70B-Instruct-FP4: weight U8 [N, K/2],
 * weight_scale F8_E4M3 [N, K/16], weight_scale_2 F32 [], input_scale F32 []
 * (docs/format-notes.md#quantization-signatures-nvidia-modelopt). Hidden 8192, intermediate 28672, 64 q heads / 8 kv
 * heads × 128, vocab 128256; two of 80 layers.
 */
import type { TensorSpec } from '../build-safetensors';
import { llamaLinears, llamaNorms, type LlamaDims } from './common';
import type { ModelFixture } from './header-from-specs';

const LLAMA33_70B: LlamaDims = { hidden: 8192, intermediate: 28672, q: 8192, kv: 1024 };

export function modeloptNvfp4Fixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [128256, 8192] }];
  for (let layer = 0; layer < layers; layer++) {
    for (const linear of llamaLinears(layer, LLAMA33_70B)) {
      specs.push(
        { name: `${linear.module}.weight`, dtype: 'U8', shape: [linear.out, linear.in / 2] },
        { name: `${linear.module}.weight_scale`, dtype: 'F8_E4M3', shape: [linear.out, linear.in / 16] },
        { name: `${linear.module}.weight_scale_2`, dtype: 'F32', shape: [] },
        { name: `${linear.module}.input_scale`, dtype: 'F32', shape: [] },
      );
    }
    specs.push(...llamaNorms(layer, 8192, 'BF16'));
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [8192] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [128256, 8192] },
  );
  return { fileName: 'model-00001-of-00009.safetensors', specs, metadata: { format: 'pt' } };
}
