/**
 * AWQ GEMM 4-bit, group 128, as in TheBloke/Llama-2-7B-AWQ (AutoAWQ): qweight I32 [K, N/8] packed along the
 * OUTPUT dim, qzeros I32 [K/128, N/8], scales F16 [K/128, N], no g_idx
 * (docs/format-notes.md#quantization-signatures-gptq-vs-awq).
 */
import type { TensorSpec } from '../build-safetensors';
import { llamaLinears, llamaNorms } from './common';
import { LLAMA2_7B } from './gptq-llama2-7b';
import type { ModelFixture } from './header-from-specs';

function awqLinear(module: string, out: number, inFeatures: number, bits = 4, group = 128): TensorSpec[] {
  return [
    { name: `${module}.qweight`, dtype: 'I32', shape: [inFeatures, (out * bits) / 32] },
    { name: `${module}.qzeros`, dtype: 'I32', shape: [inFeatures / group, (out * bits) / 32] },
    { name: `${module}.scales`, dtype: 'F16', shape: [inFeatures / group, out] },
  ];
}

export function awqLlama2Fixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'F16', shape: [32000, 4096] }];
  for (let layer = 0; layer < layers; layer++) {
    for (const linear of llamaLinears(layer, LLAMA2_7B)) {
      specs.push(...awqLinear(linear.module, linear.out, linear.in));
    }
    specs.push(...llamaNorms(layer, 4096, 'F16'));
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'F16', shape: [4096] },
    { name: 'lm_head.weight', dtype: 'F16', shape: [32000, 4096] },
  );
  return { fileName: 'model.safetensors', specs, metadata: { format: 'pt' } };
}
