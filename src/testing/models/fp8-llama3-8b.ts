/**
 * Per-tensor FP8 with static activation scales, as in neuralmagic/Meta-Llama-3-8B-Instruct-FP8 (AutoFP8):
 * weight F8_E4M3 [N, K], weight_scale F32 [], input_scale F32 []; embeddings, norms, lm_head BF16
 * (docs/format-notes.md#quantization-signatures-fp8). Hidden 4096, intermediate 14336, 32 q heads / 8 kv heads × 128,
 * vocab 128256.
 */
import type { TensorSpec } from '../build-safetensors';
import { llamaLinears, llamaNorms, type LlamaDims } from './common';
import type { ModelFixture } from './header-from-specs';

export const LLAMA3_8B: LlamaDims = { hidden: 4096, intermediate: 14336, q: 4096, kv: 1024 };

export function fp8Llama3Fixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [128256, 4096] }];
  for (let layer = 0; layer < layers; layer++) {
    for (const linear of llamaLinears(layer, LLAMA3_8B)) {
      specs.push(
        { name: `${linear.module}.weight`, dtype: 'F8_E4M3', shape: [linear.out, linear.in] },
        { name: `${linear.module}.weight_scale`, dtype: 'F32', shape: [] },
        { name: `${linear.module}.input_scale`, dtype: 'F32', shape: [] },
      );
    }
    specs.push(...llamaNorms(layer, 4096, 'BF16'));
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [4096] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [128256, 4096] },
  );
  return { fileName: 'model-00001-of-00002.safetensors', specs, metadata: { format: 'pt' } };
}
