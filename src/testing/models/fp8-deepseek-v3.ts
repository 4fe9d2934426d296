/**
 * Block-scaled FP8 (128×128) as in deepseek-ai/DeepSeek-V3: F8_E4M3 weights with F32 `weight_scale_inv`
 * [ceil(N/128), ceil(K/128)], BF16 norms/router/embeddings, MLA attention, 256 routed experts + 1 shared expert
 * per MoE layer, and the MTP layer 61 (enorm/hnorm/eh_proj/shared_head). Layers 0–2 are dense and 3 is MoE, as
 * in the real model; layers 4–60 are left out (docs/format-notes.md#quantization-signatures-fp8,
 * docs/format-notes.md#architecture-hints-from-tensor-names; deepseek-ai/DeepSeek-V3:README_WEIGHTS.md).
 */
import type { TensorSpec } from '../build-safetensors';
import type { ModelFixture } from './header-from-specs';

const DEEPSEEK = {
  hidden: 7168,
  denseIntermediate: 18432,
  expertIntermediate: 2048,
  experts: 256,
  vocab: 129280,
  qLoraRank: 1536,
  kvLoraRank: 512,
  rope: 64,
  heads: 128,
};

export function fp8BlockLinear(module: string, out: number, inFeatures: number): TensorSpec[] {
  return [
    { name: `${module}.weight`, dtype: 'F8_E4M3', shape: [out, inFeatures] },
    { name: `${module}.weight_scale_inv`, dtype: 'F32', shape: [Math.ceil(out / 128), Math.ceil(inFeatures / 128)] },
  ];
}

/** The attention linears of one layer: [module suffix, out, in]. */
export const DEEPSEEK_ATTENTION: ReadonlyArray<[string, number, number]> = [
  ['self_attn.q_a_proj', 1536, 7168],
  ['self_attn.q_b_proj', 24576, 1536],
  ['self_attn.kv_a_proj_with_mqa', 576, 7168],
  ['self_attn.kv_b_proj', 32768, 512],
  ['self_attn.o_proj', 7168, 16384],
];

function attention(layer: number): TensorSpec[] {
  const base = `model.layers.${layer}.`;
  return [
    ...DEEPSEEK_ATTENTION.flatMap(([suffix, out, k]) => fp8BlockLinear(base + suffix, out, k)),
    { name: `${base}self_attn.q_a_layernorm.weight`, dtype: 'BF16', shape: [1536] },
    { name: `${base}self_attn.kv_a_layernorm.weight`, dtype: 'BF16', shape: [512] },
    { name: `${base}input_layernorm.weight`, dtype: 'BF16', shape: [7168] },
    { name: `${base}post_attention_layernorm.weight`, dtype: 'BF16', shape: [7168] },
  ];
}

function mlp(module: string, intermediate: number): TensorSpec[] {
  return [
    ...fp8BlockLinear(`${module}.gate_proj`, intermediate, 7168),
    ...fp8BlockLinear(`${module}.up_proj`, intermediate, 7168),
    ...fp8BlockLinear(`${module}.down_proj`, 7168, intermediate),
  ];
}

function moe(layer: number): TensorSpec[] {
  const base = `model.layers.${layer}.mlp`;
  const specs: TensorSpec[] = [
    { name: `${base}.gate.weight`, dtype: 'BF16', shape: [256, 7168] },
    { name: `${base}.gate.e_score_correction_bias`, dtype: 'F32', shape: [256] },
  ];
  for (let expert = 0; expert < DEEPSEEK.experts; expert++) {
    specs.push(...mlp(`${base}.experts.${expert}`, 2048));
  }
  specs.push(...mlp(`${base}.shared_experts`, 2048));
  return specs;
}

export function deepseekV3Fixture(): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [129280, 7168] }];
  for (const layer of [0, 1, 2]) {
    specs.push(...attention(layer), ...mlp(`model.layers.${layer}.mlp`, 18432));
  }
  specs.push(...attention(3), ...moe(3));
  // MTP layer: a full MoE block plus the projections that feed the main model's hidden state back in.
  specs.push(
    ...attention(61),
    ...moe(61),
    { name: 'model.layers.61.enorm.weight', dtype: 'BF16', shape: [7168] },
    { name: 'model.layers.61.hnorm.weight', dtype: 'BF16', shape: [7168] },
    { name: 'model.layers.61.eh_proj.weight', dtype: 'BF16', shape: [7168, 14336] },
    { name: 'model.layers.61.shared_head.norm.weight', dtype: 'BF16', shape: [7168] },
    { name: 'model.layers.61.shared_head.head.weight', dtype: 'BF16', shape: [129280, 7168] },
    { name: 'model.layers.61.embed_tokens.weight', dtype: 'BF16', shape: [129280, 7168] },
  );
  specs.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [7168] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [129280, 7168] },
  );
  return { fileName: 'model-00001-of-000163.safetensors', specs, metadata: { format: 'pt' } };
}
