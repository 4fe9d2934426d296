/**
 * Unquantized models for precision and architecture tests, each with its published names and shapes:
 * - TinyLlama/TinyLlama-1.1B-Chat-v1.0 (BF16, hidden 2048, intermediate 5632, 32 q heads / 4 kv heads × 64,
 *   vocab 32000, untied lm_head);
 * - openai-community/gpt2 (F32, Conv1D `c_attn` [768, 2304], tied: no lm_head);
 * - mistralai/Mixtral-8x7B-v0.1 (BF16, 8 experts per layer as `block_sparse_moe.experts.N.w1/w2/w3`);
 * - Qwen/Qwen2.5-VL-3B-Instruct (BF16, `visual.` vision tower, tied, 16 q heads / 2 kv heads × 128);
 * - stabilityai/stable-diffusion-xl-base-1.0 sd_xl_base_1.0.safetensors (UNet `model.diffusion_model.input_blocks`,
 *   two text encoders under `conditioner.embedders`, VAE under `first_stage_model`); one tensor per block here.
 */
import type { TensorSpec } from '../build-safetensors';
import { plainLlamaLayer, type LlamaDims } from './common';
import type { ModelFixture } from './header-from-specs';

const TINYLLAMA: LlamaDims = { hidden: 2048, intermediate: 5632, q: 2048, kv: 256 };

export function tinyLlamaFixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [32000, 2048] }];
  for (let layer = 0; layer < layers; layer++) {
    specs.push(...plainLlamaLayer(layer, TINYLLAMA, 'BF16'));
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [2048] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [32000, 2048] },
  );
  return { fileName: 'model.safetensors', specs, metadata: { format: 'pt' } };
}

/**
 * A false positive to guard against (docs/format-notes.md#false-positives-names-shared-across-formats): a plain BF16
 * model that has learnable tensors named `scales` (a per-channel scale module and a layer-scale vector). Nothing here
 * is packed; no detector may call it MLX or GPTQ.
 */
export function plainWithScalesFixture(): ModelFixture {
  const base = tinyLlamaFixture(2);
  base.specs.push(
    { name: 'model.layers.0.scales', dtype: 'BF16', shape: [2048] },
    { name: 'model.layers.1.scales', dtype: 'BF16', shape: [2048] },
    { name: 'model.scales.weight', dtype: 'BF16', shape: [2048, 2048] },
    { name: 'model.scales.scales', dtype: 'BF16', shape: [2048, 16] },
  );
  return base;
}

export function gpt2Fixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [
    { name: 'wte.weight', dtype: 'F32', shape: [50257, 768] },
    { name: 'wpe.weight', dtype: 'F32', shape: [1024, 768] },
  ];
  for (let layer = 0; layer < layers; layer++) {
    const base = `h.${layer}.`;
    specs.push(
      { name: `${base}ln_1.weight`, dtype: 'F32', shape: [768] },
      { name: `${base}ln_1.bias`, dtype: 'F32', shape: [768] },
      { name: `${base}attn.bias`, dtype: 'F32', shape: [1, 1, 1024, 1024] },
      { name: `${base}attn.c_attn.weight`, dtype: 'F32', shape: [768, 2304] },
      { name: `${base}attn.c_attn.bias`, dtype: 'F32', shape: [2304] },
      { name: `${base}attn.c_proj.weight`, dtype: 'F32', shape: [768, 768] },
      { name: `${base}attn.c_proj.bias`, dtype: 'F32', shape: [768] },
      { name: `${base}ln_2.weight`, dtype: 'F32', shape: [768] },
      { name: `${base}ln_2.bias`, dtype: 'F32', shape: [768] },
      { name: `${base}mlp.c_fc.weight`, dtype: 'F32', shape: [768, 3072] },
      { name: `${base}mlp.c_fc.bias`, dtype: 'F32', shape: [3072] },
      { name: `${base}mlp.c_proj.weight`, dtype: 'F32', shape: [3072, 768] },
      { name: `${base}mlp.c_proj.bias`, dtype: 'F32', shape: [768] },
    );
  }
  specs.push({ name: 'ln_f.weight', dtype: 'F32', shape: [768] }, { name: 'ln_f.bias', dtype: 'F32', shape: [768] });
  return { fileName: 'model.safetensors', specs, metadata: { format: 'pt' } };
}

export function mixtralFixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [32000, 4096] }];
  for (let layer = 0; layer < layers; layer++) {
    const base = `model.layers.${layer}.`;
    specs.push(
      { name: `${base}self_attn.q_proj.weight`, dtype: 'BF16', shape: [4096, 4096] },
      { name: `${base}self_attn.k_proj.weight`, dtype: 'BF16', shape: [1024, 4096] },
      { name: `${base}self_attn.v_proj.weight`, dtype: 'BF16', shape: [1024, 4096] },
      { name: `${base}self_attn.o_proj.weight`, dtype: 'BF16', shape: [4096, 4096] },
      { name: `${base}block_sparse_moe.gate.weight`, dtype: 'BF16', shape: [8, 4096] },
      { name: `${base}input_layernorm.weight`, dtype: 'BF16', shape: [4096] },
      { name: `${base}post_attention_layernorm.weight`, dtype: 'BF16', shape: [4096] },
    );
    for (let expert = 0; expert < 8; expert++) {
      const e = `${base}block_sparse_moe.experts.${expert}.`;
      specs.push(
        { name: `${e}w1.weight`, dtype: 'BF16', shape: [14336, 4096] },
        { name: `${e}w2.weight`, dtype: 'BF16', shape: [4096, 14336] },
        { name: `${e}w3.weight`, dtype: 'BF16', shape: [14336, 4096] },
      );
    }
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [4096] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [32000, 4096] },
  );
  return { fileName: 'model-00001-of-00019.safetensors', specs, metadata: { format: 'pt' } };
}

export function qwen25VlFixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [
    { name: 'visual.patch_embed.proj.weight', dtype: 'BF16', shape: [1280, 3, 2, 14, 14] },
    { name: 'visual.merger.ln_q.weight', dtype: 'BF16', shape: [1280] },
    { name: 'visual.merger.mlp.0.weight', dtype: 'BF16', shape: [5120, 5120] },
    { name: 'visual.merger.mlp.2.weight', dtype: 'BF16', shape: [2048, 5120] },
    { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [151936, 2048] },
  ];
  for (let block = 0; block < 2; block++) {
    const v = `visual.blocks.${block}.`;
    specs.push(
      { name: `${v}norm1.weight`, dtype: 'BF16', shape: [1280] },
      { name: `${v}attn.qkv.weight`, dtype: 'BF16', shape: [3840, 1280] },
      { name: `${v}attn.qkv.bias`, dtype: 'BF16', shape: [3840] },
      { name: `${v}attn.proj.weight`, dtype: 'BF16', shape: [1280, 1280] },
      { name: `${v}norm2.weight`, dtype: 'BF16', shape: [1280] },
      { name: `${v}mlp.gate_proj.weight`, dtype: 'BF16', shape: [3420, 1280] },
      { name: `${v}mlp.up_proj.weight`, dtype: 'BF16', shape: [3420, 1280] },
      { name: `${v}mlp.down_proj.weight`, dtype: 'BF16', shape: [1280, 3420] },
    );
  }
  for (let layer = 0; layer < layers; layer++) {
    specs.push(...plainLlamaLayer(layer, { hidden: 2048, intermediate: 11008, q: 2048, kv: 256 }, 'BF16'));
    for (const [proj, out] of [
      ['q_proj', 2048],
      ['k_proj', 256],
      ['v_proj', 256],
    ] as const) {
      specs.push({ name: `model.layers.${layer}.self_attn.${proj}.bias`, dtype: 'BF16', shape: [out] });
    }
  }
  specs.push({ name: 'model.norm.weight', dtype: 'BF16', shape: [2048] });
  return { fileName: 'model-00001-of-00002.safetensors', specs, metadata: { format: 'pt' } };
}

export function sdxlBaseFixture(): ModelFixture {
  const unet = 'model.diffusion_model.';
  const specs: TensorSpec[] = [
    { name: `${unet}time_embed.0.weight`, dtype: 'F16', shape: [1280, 320] },
    { name: `${unet}label_emb.0.0.weight`, dtype: 'F16', shape: [1280, 2816] },
    { name: `${unet}input_blocks.0.0.weight`, dtype: 'F16', shape: [320, 4, 3, 3] },
  ];
  for (let block = 1; block < 9; block++) {
    specs.push({ name: `${unet}input_blocks.${block}.0.in_layers.2.weight`, dtype: 'F16', shape: [320, 320, 3, 3] });
  }
  specs.push({ name: `${unet}middle_block.0.in_layers.2.weight`, dtype: 'F16', shape: [1280, 1280, 3, 3] });
  for (let block = 0; block < 9; block++) {
    specs.push({ name: `${unet}output_blocks.${block}.0.in_layers.2.weight`, dtype: 'F16', shape: [320, 640, 3, 3] });
  }
  specs.push(
    { name: `${unet}out.2.weight`, dtype: 'F16', shape: [4, 320, 3, 3] },
    {
      name: 'conditioner.embedders.0.transformer.text_model.encoder.layers.0.self_attn.q_proj.weight',
      dtype: 'F16',
      shape: [768, 768],
    },
    {
      name: 'conditioner.embedders.0.transformer.text_model.embeddings.token_embedding.weight',
      dtype: 'F16',
      shape: [49408, 768],
    },
    {
      name: 'conditioner.embedders.1.model.transformer.resblocks.0.attn.in_proj_weight',
      dtype: 'F16',
      shape: [3840, 1280],
    },
    { name: 'conditioner.embedders.1.model.token_embedding.weight', dtype: 'F16', shape: [49408, 1280] },
    { name: 'first_stage_model.encoder.down.0.block.0.conv1.weight', dtype: 'F16', shape: [128, 128, 3, 3] },
    { name: 'first_stage_model.decoder.up.0.block.0.conv1.weight', dtype: 'F16', shape: [128, 256, 3, 3] },
  );
  return { fileName: 'sd_xl_base_1.0.safetensors', specs };
}
