/** Tree paths of names written with underscores for dots (kohya, LyCORIS). */
import { describe, expect, it } from 'vitest';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { allTensorNames } from '../model';
import { tensorIndex } from './tensor-index';
import { isUnderscorePath, underscorePathName, underscorePathNames } from './underscore-paths';

describe('underscorePathName', () => {
  it.each([
    // SD 1.5 (diffusers names): blocks, attentions and transformer blocks become levels; words stay whole.
    [
      'lora_unet_down_blocks_0_attentions_1_transformer_blocks_0_attn1_to_k.lora_down.weight',
      'lora_unet.down_blocks.0.attentions.1.transformer_blocks.0.attn1_to_k.lora_down.weight',
    ],
    ['lora_unet_down_blocks_0_attentions_0_proj_in.alpha', 'lora_unet.down_blocks.0.attentions.0.proj_in.alpha'],
    [
      'lora_te_text_model_encoder_layers_11_mlp_fc2.lora_up.weight',
      'lora_te.text_model_encoder_layers.11.mlp_fc2.lora_up.weight',
    ],
    // SDXL's original names: two indices in a row.
    [
      'lora_unet_input_blocks_4_1_transformer_blocks_0_attn2_to_v.lora_up.weight',
      'lora_unet.input_blocks.4.1.transformer_blocks.0.attn2_to_v.lora_up.weight',
    ],
    [
      'lora_te2_text_model_encoder_layers_0_self_attn_k_proj.alpha',
      'lora_te2.text_model_encoder_layers.0.self_attn_k_proj.alpha',
    ],
    // Flux (kohya's own names for BFL's modules), SD3 and LyCORIS's own prefix.
    [
      'lora_unet_double_blocks_18_img_attn_proj.lora_down.weight',
      'lora_unet.double_blocks.18.img_attn_proj.lora_down.weight',
    ],
    ['lora_transformer_transformer_blocks_0_attn_to_k.alpha', 'lora_transformer.transformer_blocks.0.attn_to_k.alpha'],
    ['lycoris_blocks_3_attn_qkv.lokr_w1', 'lycoris.blocks.3.attn_qkv.lokr_w1'],
    // An index at the end of the module, and diffusers' to_out.0.
    ['lora_unet_time_embedding_linear_1.alpha', 'lora_unet.time_embedding_linear.1.alpha'],
    [
      'lora_unet_mid_block_attentions_0_transformer_blocks_0_attn1_to_out_0.alpha',
      'lora_unet.mid_block_attentions.0.transformer_blocks.0.attn1_to_out.0.alpha',
    ],
    // No module part beyond the prefix's token; a digit run longer than an index stays a word; doubled underscores.
    ['lora_te_0.alpha', 'lora_te.0.alpha'],
    ['lora_unet_ckpt_1234567890_proj.alpha', 'lora_unet.ckpt_1234567890_proj.alpha'],
    ['lora_unet_a__3_b.alpha', 'lora_unet.a_.3.b.alpha'],
  ])('%s', (name, path) => {
    expect(underscorePathName(name)).toBe(path);
    // The cut writes `.` for `_` and moves nothing.
    expect(path.length).toBe(name.length);
    expect(path.replaceAll('.', '_')).toBe(name.replaceAll('.', '_'));
  });

  it('leaves other names as they are', () => {
    for (const name of ['model.layers.0.mlp.up_proj.weight', 'lora_A.weight', 'lora_unet', 'unet_down_blocks_0.w']) {
      expect(underscorePathName(name)).toBe(name);
    }
    expect(isUnderscorePath('lora_unet_x.alpha')).toBe(true);
    expect(isUnderscorePath('base_model.model.lora_unet')).toBe(false);
  });
});

describe('underscorePathNames', () => {
  const namesOf = (names: string[]) => {
    const header = headerFromSpecs(names.map((name) => ({ name, dtype: 'F16', shape: [2] })));
    const stored = allTensorNames(header.tensors);
    return underscorePathNames(stored, tensorIndex(header, stored).shapes());
  };

  it('cuts every underscore path of a header, and only those', () => {
    expect(namesOf(['lora_unet_blocks_0_to_q.alpha', 'extra.1.w'])).toEqual([
      'lora_unet.blocks.0.to_q.alpha',
      'extra.1.w',
    ]);
  });

  it('is null for a header with no such path, and when two names would share one', () => {
    expect(namesOf(['model.layers.0.w', 'model.layers.1.w'])).toBeNull();
    expect(namesOf(['lora_unet_blocks_0_w.alpha', 'lora_unet.blocks.0.w.alpha'])).toBeNull();
  });
});
