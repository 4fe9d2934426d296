import { describe, expect, it } from 'vitest';
import { layerOf, layerParts, numbersAsPlaceholders } from './layer-names';

describe('layer names', () => {
  it('the first numbered layer container, with what comes before and after it', () => {
    expect(layerParts('model.layers.12.mlp.experts.3.w1.weight')).toEqual({
      prefix: 'model.layers.',
      layer: 12,
      rest: 'mlp.experts.3.w1.weight',
    });
    expect(layerParts('blk.0.attn_q.weight')).toEqual({ prefix: 'blk.', layer: 0, rest: 'attn_q.weight' });
    expect(layerOf('transformer.resblocks.7.attn.in_proj_weight')).toBe(7);
    expect(layerOf('transformer.h.5.attn.c_attn.weight')).toBe(5);
  });

  it('no layer outside a container, nor in a name that only contains one', () => {
    expect(layerOf('model.embed_tokens.weight')).toBeNull();
    expect(layerOf('model.mylayers.3.w')).toBeNull();
    expect(layerOf('layers.3')).toBeNull();
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
});
