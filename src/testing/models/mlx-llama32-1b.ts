/**
 * MLX affine 4-bit, group 64, as in mlx-community/Llama-3.2-1B-Instruct-4bit: weight U32 [N, K/8],
 * scales/biases BF16 [N, K/64], embedding quantized too, no lm_head (tied), `format: mlx` metadata
 * (docs/format-notes.md#quantization-signatures-mlx). Hidden 2048, intermediate 8192, 32 q heads / 8 kv heads × 64,
 * vocab 128256.
 */
import type { TensorSpec } from '../build-safetensors';
import { llamaLinears, llamaNorms, type LlamaDims } from './common';
import type { ModelFixture } from './header-from-specs';

const LLAMA32_1B: LlamaDims = { hidden: 2048, intermediate: 8192, q: 2048, kv: 512 };

function mlxLinear(module: string, out: number, inFeatures: number, bits = 4, group = 64): TensorSpec[] {
  return [
    { name: `${module}.weight`, dtype: 'U32', shape: [out, (inFeatures * bits) / 32] },
    { name: `${module}.scales`, dtype: 'BF16', shape: [out, inFeatures / group] },
    { name: `${module}.biases`, dtype: 'BF16', shape: [out, inFeatures / group] },
  ];
}

export function mlxLlama32Fixture(layers = 2, bits = 4, group = 64): ModelFixture {
  const specs: TensorSpec[] = [...mlxLinear('model.embed_tokens', 128256, 2048, bits, group)];
  for (let layer = 0; layer < layers; layer++) {
    for (const linear of llamaLinears(layer, LLAMA32_1B)) {
      specs.push(...mlxLinear(linear.module, linear.out, linear.in, bits, group));
    }
    specs.push(...llamaNorms(layer, 2048, 'BF16'));
  }
  specs.push({ name: 'model.norm.weight', dtype: 'BF16', shape: [2048] });
  return { fileName: 'model.safetensors', specs, metadata: { format: 'mlx' } };
}
