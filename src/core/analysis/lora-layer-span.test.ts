import { describe, expect, it } from 'vitest';
import { adaptedLayerSpan, layerSpanLabel, type LayerSpan } from './lora-layer-span';

const projections = (prefix: string, layers: number[]) =>
  layers.flatMap((layer) => [`${prefix}.${layer}.self_attn.q_proj`, `${prefix}.${layer}.self_attn.v_proj`]);

/** The span's label; a test fails here when no span was found. */
function labelOf(span: LayerSpan | null): string {
  if (span === null) {
    throw new Error('no layer span');
  }
  return layerSpanLabel(span);
}

describe('the layers an adapter covers', () => {
  it('mlx-lm’s default: the last 16 of 32 layers', () => {
    const span = adaptedLayerSpan(
      projections(
        'model.layers',
        [...Array(16).keys()].map((i) => i + 16),
      ),
    );
    expect(span).toEqual({ stack: 'model.layers', count: 16, first: 16, last: 31, contiguous: true });
    expect(labelOf(span)).toBe('16–31 (16 layers)');
  });

  it('PEFT layers_to_transform of every other layer, under its wrapper prefix', () => {
    const span = adaptedLayerSpan(projections('base_model.model.model.layers', [0, 2, 4, 6]));
    expect(span).toMatchObject({ stack: 'base_model.model.model.layers', count: 4, contiguous: false });
    expect(labelOf(span)).toBe('4 of 0–6 (4 layers)');
  });

  it('GPT-2’s h.N and a single layer', () => {
    expect(labelOf(adaptedLayerSpan(['transformer.h.5.attn.c_attn']))).toBe('layer 5');
  });

  it('kohya’s text encoder layers when they are the adapter; not beside a UNet’s blocks', () => {
    const te = [...Array(12).keys()].map((i) => `lora_te_text_model_encoder_layers_${i}_self_attn_q_proj`);
    expect(adaptedLayerSpan(te)).toMatchObject({ stack: 'lora_te_text_model_encoder_layers', count: 12 });
    const unet = [...Array(40).keys()].map(
      (i) => `lora_unet_down_blocks_${i % 3}_attentions_0_transformer_blocks_0_attn1_to_q${i}`,
    );
    expect(adaptedLayerSpan([...te, ...unet])).toBeNull();
    expect(adaptedLayerSpan(['transformer_blocks.0.attn.to_q', 'down_blocks.1.attentions.0.proj_in'])).toBeNull();
  });
});
