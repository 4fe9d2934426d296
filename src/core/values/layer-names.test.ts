import { describe, expect, it } from 'vitest';
import { layerParts, numbersAsPlaceholders, StackLayers, stacksText } from './layer-names';

describe('layer names', () => {
  it('the first numbered layer container, with what comes before and after it', () => {
    expect(layerParts('model.layers.12.mlp.experts.3.w1.weight')).toEqual({
      prefix: 'model.layers.',
      layer: 12,
      separator: '.',
      rest: 'mlp.experts.3.w1.weight',
    });
    expect(layerParts('blk.0.attn_q.weight')).toEqual({
      prefix: 'blk.',
      layer: 0,
      separator: '.',
      rest: 'attn_q.weight',
    });
    expect(layerParts('transformer.resblocks.7.attn.in_proj_weight')?.layer).toBe(7);
    expect(layerParts('transformer.h.5.attn.c_attn.weight')?.layer).toBe(5);
  });

  it('no layer outside a container, nor in a name that only contains one', () => {
    expect(layerParts('model.embed_tokens.weight')).toBeNull();
    expect(layerParts('model.mylayers.3.w')).toBeNull();
    expect(layerParts('layers.3')).toBeNull();
  });

  it('numbers standing alone become placeholders; numbers inside a word name another tensor and stay', () => {
    expect(numbersAsPlaceholders('model.layers.3.block_sparse_moe.experts.7.w1.weight')).toBe(
      'model.layers.#.block_sparse_moe.experts.#.w1.weight',
    );
    expect(numbersAsPlaceholders('lora_te2_text_model_encoder_layers_11_mlp_fc1.alpha')).toBe(
      'lora_te2_text_model_encoder_layers_#_mlp_fc1.alpha',
    );
    expect(numbersAsPlaceholders('0.weight')).toBe('#.weight');
    expect(numbersAsPlaceholders('encoder/layers_10/attention/kernel')).toBe('encoder/layers_#/attention/kernel');
  });

  it("named stacks of blocks: Flux's, diffusers' and SD3's transformers, a UNet's stages", () => {
    expect(layerParts('double_blocks.0.img_attn.qkv.weight')).toEqual({
      prefix: 'double_blocks.',
      layer: 0,
      separator: '.',
      rest: 'img_attn.qkv.weight',
    });
    expect(layerParts('single_blocks.12.linear1.weight')?.prefix).toBe('single_blocks.');
    expect(layerParts('transformer.single_transformer_blocks.3.attn.to_q.lora_A.weight')?.layer).toBe(3);
    expect(layerParts('joint_blocks.4.x_block.attn.qkv.weight')?.prefix).toBe('joint_blocks.');
    expect(layerParts('model.diffusion_model.input_blocks.4.1.transformer_blocks.0.attn1.to_q.weight')).toMatchObject({
      prefix: 'model.diffusion_model.input_blocks.',
      layer: 4,
    });
    // kohya's LoRA paths spell the same stacks with underscores; a UNet's mid block holds no numbered stack.
    expect(layerParts('lora_unet_double_blocks_0_img_attn_qkv.lora_down.weight')).toEqual({
      prefix: 'lora_unet_double_blocks_',
      layer: 0,
      separator: '_',
      rest: 'img_attn_qkv.lora_down.weight',
    });
    expect(layerParts('lora_te1_text_model_encoder_layers_11_mlp_fc1.alpha')).toMatchObject({
      prefix: 'lora_te1_text_model_encoder_layers_',
      layer: 11,
    });
    expect(layerParts('lora_unet_mid_block_attentions_0_proj_in.lora_up.weight')).toBeNull();
    expect(layerParts('my_blocks_3_x')).toBeNull();
  });

  it('slots per layer of each stack, stacks in the order names reach them, and the stacks said', () => {
    const slots = new StackLayers(() => ({ names: [] as string[] }));
    for (const name of ['double_blocks.1.a', 'single_blocks.0.a', 'double_blocks.0.a', 'double_blocks.1.b', 'norm.w']) {
      slots.at(name)?.names.push(name);
    }
    const order = slots.inOrder();
    expect(order.map(({ stack, layer, slot }) => [stack, layer, slot.names.length])).toEqual([
      ['double_blocks.', 0, 1],
      ['double_blocks.', 1, 2],
      ['single_blocks.', 0, 1],
    ]);
    expect(stacksText(order)).toBe('double_blocks.0–1, then single_blocks.0');
    expect(stacksText(order.slice(0, 2))).toBeNull();
  });
});
