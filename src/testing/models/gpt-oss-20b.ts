/**
 * openai/gpt-oss-20b as published on the Hub: MXFP4 experts packed per layer (`gate_up_proj_blocks` U8
 * [32, 5760, 90, 16], `_scales` U8 [32, 5760, 90], BF16 `_bias`), BF16 attention with biases and per-head
 * `sinks` [64], router [32, 2880] (docs/format-notes.md#quantization-signatures-mxfp4-gpt-oss,
 * docs/format-notes.md#architecture-hints-from-tensor-names). Hidden 2880, 64 q heads / 8 kv heads × 64, vocab 201088;
 * two of 24 layers.
 */
import type { TensorSpec } from '../build-safetensors';
import type { ModelFixture } from './header-from-specs';

export function gptOss20bFixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [201088, 2880] }];
  for (let layer = 0; layer < layers; layer++) {
    const base = `model.layers.${layer}.`;
    for (const [proj, out, k] of [
      ['q_proj', 4096, 2880],
      ['k_proj', 512, 2880],
      ['v_proj', 512, 2880],
      ['o_proj', 2880, 4096],
    ] as const) {
      specs.push(
        { name: `${base}self_attn.${proj}.weight`, dtype: 'BF16', shape: [out, k] },
        { name: `${base}self_attn.${proj}.bias`, dtype: 'BF16', shape: [out] },
      );
    }
    specs.push(
      { name: `${base}self_attn.sinks`, dtype: 'BF16', shape: [64] },
      { name: `${base}mlp.router.weight`, dtype: 'BF16', shape: [32, 2880] },
      { name: `${base}mlp.router.bias`, dtype: 'BF16', shape: [32] },
      { name: `${base}mlp.experts.gate_up_proj_blocks`, dtype: 'U8', shape: [32, 5760, 90, 16] },
      { name: `${base}mlp.experts.gate_up_proj_scales`, dtype: 'U8', shape: [32, 5760, 90] },
      { name: `${base}mlp.experts.gate_up_proj_bias`, dtype: 'BF16', shape: [32, 5760] },
      { name: `${base}mlp.experts.down_proj_blocks`, dtype: 'U8', shape: [32, 2880, 90, 16] },
      { name: `${base}mlp.experts.down_proj_scales`, dtype: 'U8', shape: [32, 2880, 90] },
      { name: `${base}mlp.experts.down_proj_bias`, dtype: 'BF16', shape: [32, 2880] },
      { name: `${base}input_layernorm.weight`, dtype: 'BF16', shape: [2880] },
      { name: `${base}post_attention_layernorm.weight`, dtype: 'BF16', shape: [2880] },
    );
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [2880] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [201088, 2880] },
  );
  return { fileName: 'model-00000-of-00002.safetensors', specs, metadata: { format: 'pt' } };
}
