import { describe, expect, it } from 'vitest';
import { targetOf } from './lora-markers';

describe('targetOf', () => {
  it("names a kohya module by what follows its last numbered container, the target's own digits kept", () => {
    const cases: Array<[string, string]> = [
      ['lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn1_to_q', 'attn1_to_q'],
      ['lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_ff_net_0_proj', 'ff_net_0_proj'],
      ['lora_unet_down_blocks_0_attentions_0_proj_in', 'proj_in'],
      ['lora_unet_mid_block_attentions_0_proj_out', 'proj_out'],
      ['lora_unet_down_blocks_0_resnets_0_conv1', 'conv1'],
      ['lora_unet_input_blocks_4_1_transformer_blocks_0_attn1_to_k', 'attn1_to_k'],
      ['lora_te1_text_model_encoder_layers_0_self_attn_q_proj', 'self_attn_q_proj'],
      ['lora_unet_double_blocks_0_img_attn_qkv', 'img_attn_qkv'],
      ['lora_unet_single_blocks_12_linear1', 'linear1'],
    ];
    for (const [module, target] of cases) {
      expect(targetOf(module, 'kohya'), module).toBe(target);
    }
  });
});
