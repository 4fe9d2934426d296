/**
 * LoRA / LyCORIS adapters, names and shapes as their trainers write them
 * (docs/format-notes.md#adapter-signatures-lora-and-lycoris):
 * - PEFT LoRA on gpt2 `c_attn` (r=8, alpha 8), as in anirudh-ak/peft-gpt2, plus the PEFT `score` head copy;
 * - PEFT DoRA on meta-llama/Meta-Llama-3-8B q_proj/v_proj (r=16, alpha 32, use_dora): `lora_magnitude_vector`;
 * - kohya sd-scripts LoRA on runwayml/stable-diffusion-v1-5 (r=16, alpha 8 as F16 `.alpha` scalars);
 * - diffusers LoRA on black-forest-labs/FLUX.1-dev (train_dreambooth_lora_flux output, `transformer.` prefix);
 * - LyCORIS LoHa on SD1.5 (`hada_w1_a [out, r]`, `hada_w1_b [r, in]`, r=8, alpha 4);
 * - LyCORIS LoKr via kohya, shapes from KohakuBlueleaf/LyCORIS result/smart_falcon_4_lokr.safetensors (dim 4);
 * - MLX LoRA from ml-explore/mlx-lm test_dpo_adapters (Qwen2.5-0.5B, `lora_a [in, r]`, `lora_b [r, out]`);
 * - ComfyUI's own key spelling (the diffusion model's state-dict path under `diffusion_model.`, kohya factor names
 *   and `.alpha`, the generic format ComfyUI's LoRA loader maps onto a model's keys) on Wan 2.1 14B's blocks
 *   (dim 5120, FFN 13824; Wan-AI/Wan2.1-T2V-14B): self- and cross-attention q/k/v/o and `ffn.0`/`ffn.2`;
 * - XLabs' Flux LoRA (XLabs-AI/x-flux; XLabs-AI/flux-RealismLora: double_blocks 0–18, rank 16):
 *   `double_blocks.N.processor.{qkv,proj}_lora{1,2}.{down,up}.weight`, 1 the image stream, 2 the text stream; with
 *   `singleBlocks`, also `single_blocks.N.processor.{qkv,proj}_lora.{down,up}.weight` (as in ByteDance's USO LoRA);
 * - the same DoRA as a PeftModel's `state_dict()` keeps it: PEFT's adapter name `default` inside every key
 *   (`lora_A.default.weight`, `lora_magnitude_vector.default.weight`), which `save_pretrained()` would drop.
 */
import type { TensorSpec } from '../build-safetensors';
import { f16Bytes } from './common';
import type { ModelFixture } from './header-from-specs';

export function peftGpt2Fixture(layers = 12): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'base_model.model.score.weight', dtype: 'F32', shape: [6, 768] }];
  for (let layer = 0; layer < layers; layer++) {
    const base = `base_model.model.transformer.h.${layer}.attn.c_attn`;
    specs.push(
      { name: `${base}.lora_A.weight`, dtype: 'F32', shape: [8, 768] },
      { name: `${base}.lora_B.weight`, dtype: 'F32', shape: [2304, 8] },
    );
  }
  return {
    fileName: 'adapter_model.safetensors',
    specs,
    metadata: { format: 'pt' },
    sidecars: {
      adapterConfig: {
        peft_type: 'LORA',
        r: 8,
        lora_alpha: 8,
        target_modules: ['c_attn'],
        base_model_name_or_path: 'gpt2',
        use_dora: false,
      },
    },
  };
}

export function peftDoraFixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [];
  for (let layer = 0; layer < layers; layer++) {
    for (const [proj, out] of [
      ['q_proj', 4096],
      ['v_proj', 1024],
    ] as const) {
      const base = `base_model.model.model.layers.${layer}.self_attn.${proj}`;
      specs.push(
        { name: `${base}.lora_A.weight`, dtype: 'BF16', shape: [16, 4096] },
        { name: `${base}.lora_B.weight`, dtype: 'BF16', shape: [out, 16] },
        { name: `${base}.lora_magnitude_vector`, dtype: 'BF16', shape: [out] },
      );
    }
  }
  return {
    fileName: 'adapter_model.safetensors',
    specs,
    metadata: { format: 'pt' },
    sidecars: {
      adapterConfig: {
        peft_type: 'LORA',
        r: 16,
        lora_alpha: 32,
        use_dora: true,
        target_modules: ['q_proj', 'v_proj'],
        base_model_name_or_path: 'meta-llama/Meta-Llama-3-8B',
      },
    },
  };
}

export function peftDoraStateDictFixture(): ModelFixture {
  const fixture = peftDoraFixture();
  fixture.fileName = 'dora_state_dict.safetensors';
  fixture.specs = fixture.specs.map((spec) => ({
    ...spec,
    name: spec.name
      .replace(/\.lora_([AB])\.weight$/, '.lora_$1.default.weight')
      .replace(/\.lora_magnitude_vector$/, '.lora_magnitude_vector.default.weight'),
  }));
  return fixture;
}

/**
 * A full model as a PeftModel's `state_dict()` holds it with a LoRA on the modules `targets` matches: each target's
 * weight under `.base_layer.weight` (or left as `.weight` with `baseLayer` false: factors beside weights never
 * merged into), its F32 factors `lora_A.default.weight` [rank, in] and `lora_B.default.weight` [out, rank].
 */
export function peftWrappedModel(
  specs: readonly TensorSpec[],
  targets: RegExp,
  rank = 8,
  baseLayer = true,
): TensorSpec[] {
  return specs.flatMap((spec) => {
    const module = spec.name.endsWith('.weight') ? spec.name.slice(0, -'.weight'.length) : null;
    if (module === null || !targets.test(module) || spec.shape.length !== 2) {
      return [spec];
    }
    return [
      { ...spec, name: baseLayer ? `${module}.base_layer.weight` : spec.name },
      { name: `${module}.lora_A.default.weight`, dtype: 'F32', shape: [rank, spec.shape[1]] },
      { name: `${module}.lora_B.default.weight`, dtype: 'F32', shape: [spec.shape[0], rank] },
    ];
  });
}

const FLUX_HIDDEN = 3072;

export function xlabsFluxLoraFixture(doubleBlocks = 19, singleBlocks = 0, rank = 16): ModelFixture {
  const specs: TensorSpec[] = [];
  const factors = (module: string, out: number): TensorSpec[] => [
    { name: `${module}.down.weight`, dtype: 'BF16', shape: [rank, FLUX_HIDDEN] },
    { name: `${module}.up.weight`, dtype: 'BF16', shape: [out, rank] },
  ];
  for (let block = 0; block < doubleBlocks; block++) {
    for (const stream of ['1', '2']) {
      specs.push(
        ...factors(`double_blocks.${block}.processor.proj_lora${stream}`, FLUX_HIDDEN),
        ...factors(`double_blocks.${block}.processor.qkv_lora${stream}`, 3 * FLUX_HIDDEN),
      );
    }
  }
  for (let block = 0; block < singleBlocks; block++) {
    specs.push(
      ...factors(`single_blocks.${block}.processor.proj_lora`, FLUX_HIDDEN),
      ...factors(`single_blocks.${block}.processor.qkv_lora`, 3 * FLUX_HIDDEN),
    );
  }
  return { fileName: 'lora.safetensors', specs, metadata: null };
}

const WAN_14B_DIM = 5120;
const WAN_14B_FFN = 13824;

export function comfyWanLoraFixture(blocks = 2, rank = 32, alpha = 32): ModelFixture {
  const specs: TensorSpec[] = [];
  const tensorData: Record<string, Uint8Array> = {};
  for (let block = 0; block < blocks; block++) {
    const modules: Array<[string, number, number]> = [];
    for (const attention of ['self_attn', 'cross_attn']) {
      for (const proj of ['q', 'k', 'v', 'o']) {
        modules.push([`${attention}.${proj}`, WAN_14B_DIM, WAN_14B_DIM]);
      }
    }
    modules.push(['ffn.0', WAN_14B_FFN, WAN_14B_DIM], ['ffn.2', WAN_14B_DIM, WAN_14B_FFN]);
    for (const [module, out, inFeatures] of modules) {
      const base = `diffusion_model.blocks.${block}.${module}`;
      specs.push(
        { name: `${base}.alpha`, dtype: 'F16', shape: [] },
        { name: `${base}.lora_down.weight`, dtype: 'BF16', shape: [rank, inFeatures] },
        { name: `${base}.lora_up.weight`, dtype: 'BF16', shape: [out, rank] },
      );
      tensorData[`${base}.alpha`] = f16Bytes(alpha);
    }
  }
  return { fileName: 'wan21_14b_lora_comfy.safetensors', specs, tensorData, metadata: null };
}

/** kohya SD1.5 module list: two UNet attention projections and two CLIP text-encoder projections. */
const KOHYA_SD15: ReadonlyArray<[string, number, number]> = [
  ['lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn1_to_q', 320, 320],
  ['lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn2_to_k', 320, 768],
  ['lora_unet_mid_block_attentions_0_transformer_blocks_0_attn1_to_q', 1280, 1280],
  ['lora_te_text_model_encoder_layers_0_self_attn_q_proj', 768, 768],
  ['lora_te_text_model_encoder_layers_0_mlp_fc1', 3072, 768],
];

/**
 * kohya SD1.5 modules in their layers: the CLIP text encoder's 12 layers of six projections, the UNet's first three
 * down blocks (two attentions each, widths 320, 640, 1280) and the time embedding's second linear.
 */
export function kohyaSd15LayeredModules(): Array<[string, number, number]> {
  const modules: Array<[string, number, number]> = [];
  for (let layer = 0; layer < 12; layer++) {
    const prefix = `lora_te_text_model_encoder_layers_${layer}`;
    for (const proj of ['q_proj', 'k_proj', 'v_proj', 'out_proj']) {
      modules.push([`${prefix}_self_attn_${proj}`, 768, 768]);
    }
    modules.push([`${prefix}_mlp_fc1`, 3072, 768], [`${prefix}_mlp_fc2`, 768, 3072]);
  }
  for (const [block, width] of [320, 640, 1280].entries()) {
    for (const attention of [0, 1]) {
      const prefix = `lora_unet_down_blocks_${block}_attentions_${attention}_transformer_blocks_0`;
      for (const proj of ['to_q', 'to_k', 'to_v', 'to_out_0']) {
        modules.push([`${prefix}_attn1_${proj}`, width, width]);
      }
    }
  }
  modules.push(['lora_unet_time_embedding_linear_1', 1280, 1280]);
  return modules;
}

export function kohyaSd15Fixture(
  rank = 16,
  alpha = 8,
  modules: ReadonlyArray<[string, number, number]> = KOHYA_SD15,
): ModelFixture {
  const specs: TensorSpec[] = [];
  const tensorData: Record<string, Uint8Array> = {};
  for (const [module, out, k] of modules) {
    specs.push(
      { name: `${module}.alpha`, dtype: 'F16', shape: [] },
      { name: `${module}.lora_down.weight`, dtype: 'F16', shape: [rank, k] },
      { name: `${module}.lora_up.weight`, dtype: 'F16', shape: [out, rank] },
    );
    tensorData[`${module}.alpha`] = f16Bytes(alpha);
  }
  return {
    fileName: 'my_style_v1.safetensors',
    specs,
    tensorData,
    metadata: {
      ss_network_module: 'networks.lora',
      ss_network_dim: String(rank),
      ss_network_alpha: String(alpha),
      ss_base_model_version: 'sd_v1',
      ss_sd_model_name: 'v1-5-pruned-emaonly.safetensors',
      ss_learning_rate: '0.0001',
      ss_num_train_images: '40',
      ss_num_epochs: '10',
      ss_training_started_at: '1680716500.0',
      ss_training_finished_at: '1680719500.0',
      ss_dataset_dirs: JSON.stringify({ '10_mystyle illustration': { n_repeats: 10, img_count: 40 } }),
      ss_tag_frequency: JSON.stringify({
        '10_mystyle illustration': { mystyle: 40, '1girl': 25, solo: 22, 'white background': 9 },
        '2_mystyle extra': { mystyle: 5, solo: 3 },
      }),
      ss_training_comment: 'trigger word is mystyle',
      'modelspec.architecture': 'stable-diffusion-v1/lora',
      'modelspec.title': 'My style',
      'modelspec.trigger_phrase': 'mystyle',
      sshs_model_hash: '0'.repeat(64),
    },
  };
}

export function diffusersFluxLoraFixture(rank = 16): ModelFixture {
  const specs: TensorSpec[] = [];
  for (const block of ['transformer_blocks.0', 'single_transformer_blocks.0']) {
    for (const proj of ['to_q', 'to_k', 'to_v']) {
      const base = `transformer.${block}.attn.${proj}`;
      specs.push(
        { name: `${base}.lora_A.weight`, dtype: 'BF16', shape: [rank, 3072] },
        { name: `${base}.lora_B.weight`, dtype: 'BF16', shape: [3072, rank] },
      );
    }
  }
  return {
    fileName: 'pytorch_lora_weights.safetensors',
    specs,
    metadata: {
      format: 'pt',
      lora_adapter_metadata: JSON.stringify({ r: rank, lora_alpha: rank, target_modules: ['to_q', 'to_k', 'to_v'] }),
    },
  };
}

export function lohaSd15Fixture(rank = 8, alpha = 4): ModelFixture {
  const specs: TensorSpec[] = [];
  const tensorData: Record<string, Uint8Array> = {};
  for (const [module, out, k] of KOHYA_SD15) {
    specs.push(
      { name: `${module}.alpha`, dtype: 'F16', shape: [] },
      { name: `${module}.hada_w1_a`, dtype: 'F16', shape: [out, rank] },
      { name: `${module}.hada_w1_b`, dtype: 'F16', shape: [rank, k] },
      { name: `${module}.hada_w2_a`, dtype: 'F16', shape: [out, rank] },
      { name: `${module}.hada_w2_b`, dtype: 'F16', shape: [rank, k] },
    );
    tensorData[`${module}.alpha`] = f16Bytes(alpha);
  }
  return {
    fileName: 'loha_style.safetensors',
    specs,
    tensorData,
    metadata: {
      ss_network_module: 'lycoris.kohya',
      ss_network_dim: String(rank),
      ss_network_alpha: String(alpha),
      ss_network_args: JSON.stringify({ algo: 'loha', conv_dim: '4', conv_alpha: '1' }),
    },
  };
}

/** Shapes of the real smart_falcon_4_lokr file: Kronecker factors w1 = w1_a·w1_b, w2 = w2_a·w2_b, all rank 4. */
const LOKR_MODULES: ReadonlyArray<[string, [number, number], [number, number], [number, number], [number, number]]> = [
  ['lora_te_text_model_encoder_layers_0_mlp_fc1', [64, 4], [4, 32], [48, 4], [4, 24]],
  ['lora_te_text_model_encoder_layers_0_self_attn_q_proj', [32, 4], [4, 32], [24, 4], [4, 24]],
  ['lora_unet_down_blocks_0_attentions_0_proj_in', [20, 4], [4, 20], [16, 4], [4, 16]],
  ['lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn1_to_q', [20, 4], [4, 20], [16, 4], [4, 16]],
];

export function lokrFixture(): ModelFixture {
  const specs: TensorSpec[] = [];
  const tensorData: Record<string, Uint8Array> = {};
  for (const [module, w1a, w1b, w2a, w2b] of LOKR_MODULES) {
    specs.push(
      { name: `${module}.alpha`, dtype: 'F16', shape: [] },
      { name: `${module}.lokr_w1_a`, dtype: 'F16', shape: w1a },
      { name: `${module}.lokr_w1_b`, dtype: 'F16', shape: w1b },
      { name: `${module}.lokr_w2_a`, dtype: 'F16', shape: w2a },
      { name: `${module}.lokr_w2_b`, dtype: 'F16', shape: w2b },
    );
    tensorData[`${module}.alpha`] = f16Bytes(4);
  }
  return {
    fileName: 'smart_falcon_4_lokr.safetensors',
    specs,
    tensorData,
    metadata: {
      ss_network_module: 'lycoris.kohya',
      ss_network_dim: '4',
      ss_network_alpha: '4.0',
      ss_network_args: JSON.stringify({ conv_rank: '4', conv_alpha: '4', algo: 'lokr' }),
    },
  };
}

export function mlxLoraFixture(): ModelFixture {
  const specs: TensorSpec[] = [];
  for (const layer of [22, 23]) {
    specs.push(
      { name: `model.layers.${layer}.self_attn.q_proj.lora_a`, dtype: 'F32', shape: [896, 8] },
      { name: `model.layers.${layer}.self_attn.q_proj.lora_b`, dtype: 'F32', shape: [8, 896] },
      { name: `model.layers.${layer}.self_attn.v_proj.lora_a`, dtype: 'F32', shape: [896, 8] },
      { name: `model.layers.${layer}.self_attn.v_proj.lora_b`, dtype: 'F32', shape: [8, 128] },
    );
  }
  return {
    fileName: 'adapters.safetensors',
    specs,
    metadata: null,
    sidecars: {
      adapterConfig: {
        fine_tune_type: 'lora',
        lora_parameters: { rank: 8, dropout: 0, scale: 20 },
        model: 'mlx-community/Qwen2.5-0.5B-Instruct-4bit',
      },
    },
  };
}
