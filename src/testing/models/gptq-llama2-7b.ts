/**
 * GPTQ 4-bit, group 128, as in TheBloke/Llama-2-7B-GPTQ (AutoGPTQ, desc_act=false): qweight I32 [K/8, N],
 * qzeros I32 [K/128, N/8], scales F16 [K/128, N], g_idx I32 [K]; embeddings, norms and lm_head stay F16.
 * Two of the 32 layers; hidden 4096, intermediate 11008, vocab 32000
 * (docs/format-notes.md#quantization-signatures-gptq-vs-awq).
 */
import type { TensorSpec } from '../build-safetensors';
import { llamaLinears, llamaNorms, type LlamaDims } from './common';
import type { ModelFixture } from './header-from-specs';

export const LLAMA2_7B: LlamaDims = { hidden: 4096, intermediate: 11008, q: 4096, kv: 4096 };

function gptqLinear(module: string, out: number, inFeatures: number, bits = 4, group = 128): TensorSpec[] {
  const groups = Math.ceil(inFeatures / group);
  return [
    { name: `${module}.qweight`, dtype: 'I32', shape: [(inFeatures * bits) / 32, out] },
    { name: `${module}.qzeros`, dtype: 'I32', shape: [groups, (out * bits) / 32] },
    { name: `${module}.scales`, dtype: 'F16', shape: [groups, out] },
    { name: `${module}.g_idx`, dtype: 'I32', shape: [inFeatures] },
  ];
}

export function gptqLlama2Fixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'F16', shape: [32000, 4096] }];
  for (let layer = 0; layer < layers; layer++) {
    for (const linear of llamaLinears(layer, LLAMA2_7B)) {
      specs.push(...gptqLinear(linear.module, linear.out, linear.in));
    }
    specs.push(...llamaNorms(layer, 4096, 'F16'));
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'F16', shape: [4096] },
    { name: 'lm_head.weight', dtype: 'F16', shape: [32000, 4096] },
  );
  return { fileName: 'model.safetensors', specs, metadata: { format: 'pt' } };
}
