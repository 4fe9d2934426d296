import { describe, expect, it } from 'vitest';
import type { LoraModuleUpdate } from './lora-update';
import { byTarget, strongestUpdates, updateBars, updateOutliers, updatesByTarget } from './lora-update-summary';

function update(module: string, target: string, norm: number): LoraModuleUpdate {
  return {
    module,
    target,
    rank: 8,
    alpha: 16,
    scale: 2,
    scaleSource: 'declared alpha',
    norm,
    rms: norm / 8,
    spectralNorm: norm,
    stableRank: 1,
    outFeatures: 8,
    inFeatures: 8,
    rows: [],
  };
}

describe('LoRA update summaries', () => {
  const peft = [
    update('base_model.model.model.layers.10.self_attn.q_proj', 'q_proj', 3),
    update('base_model.model.model.layers.2.self_attn.q_proj', 'q_proj', 1),
    update('base_model.model.model.layers.2.self_attn.v_proj', 'v_proj', 4),
    update('base_model.model.model.layers.10.self_attn.v_proj', 'v_proj', 2),
    update('base_model.model.model.layers.2.mlp.down_proj', 'down_proj', 5),
  ];

  it("adds a layer's modules as one update (root of the sum of squares), layers in number order", () => {
    const stack = 'base_model.model.model.layers.';
    expect(updateBars(peft)).toEqual({
      byLayer: true,
      bars: [
        { stack, label: '2', norm: Math.sqrt(1 + 16 + 25), modules: 3 },
        { stack, label: '10', norm: Math.sqrt(9 + 4), modules: 2 },
      ],
      stacks: null,
    });
  });

  it("keeps Flux's two stacks of blocks apart: double_blocks, then single_blocks, each in number order", () => {
    const flux = [
      update('transformer.single_transformer_blocks.0.attn.to_q', 'to_q', 3),
      update('transformer.transformer_blocks.1.attn.to_q', 'to_q', 2),
      update('transformer.transformer_blocks.0.attn.to_q', 'to_q', 1),
      update('transformer.single_transformer_blocks.1.attn.to_q', 'to_q', 4),
    ];
    const { bars, stacks } = updateBars(flux);
    expect(bars.map((bar) => [bar.stack, bar.label, bar.norm])).toEqual([
      ['transformer.single_transformer_blocks.', '0', 3],
      ['transformer.single_transformer_blocks.', '1', 4],
      ['transformer.transformer_blocks.', '0', 1],
      ['transformer.transformer_blocks.', '1', 2],
    ]);
    expect(stacks).toBe('transformer.single_transformer_blocks.0–1, then transformer.transformer_blocks.0–1');
  });

  it("reads kohya's underscored stacks as layers; modules mostly outside any, one by one in natural name order", () => {
    const flux = [
      update('lora_unet_double_blocks_10_img_attn_qkv', 'img_attn_qkv', 1),
      update('lora_unet_double_blocks_2_img_attn_qkv', 'img_attn_qkv', 2),
      update('lora_unet_single_blocks_0_linear1', 'linear1', 3),
    ];
    expect(updateBars(flux).bars.map((bar) => [bar.stack, bar.label])).toEqual([
      ['lora_unet_double_blocks_', '2'],
      ['lora_unet_double_blocks_', '10'],
      ['lora_unet_single_blocks_', '0'],
    ]);
    const unet = [
      update('lora_unet_mid_block_attentions_0_proj_in', 'proj_in', 1),
      update('lora_unet_conv_in', 'conv_in', 2),
      update('lora_unet_up_blocks_1_attentions_0_proj_in', 'proj_in', 3),
    ];
    expect(updateBars(unet).byLayer).toBe(false);
    expect(updateBars(unet).bars.map((bar) => [bar.label, bar.module])).toEqual([
      ['1', 'lora_unet_conv_in'],
      ['2', 'lora_unet_mid_block_attentions_0_proj_in'],
      ['3', 'lora_unet_up_blocks_1_attentions_0_proj_in'],
    ]);
  });

  it('groups by target, largest median first, and lists the strongest modules', () => {
    expect(updatesByTarget(peft).map((row) => [row.target, row.modules, row.medianNorm, row.maxNorm])).toEqual([
      ['down_proj', 1, 5, 5],
      ['v_proj', 2, 3, 4],
      ['q_proj', 2, 2, 3],
    ]);
    expect(strongestUpdates(peft, 2).map((m) => m.norm)).toEqual([5, 4]);
    const mixed = [
      { ...update('a.layers.0.q_proj', 'q_proj', 1), stableRank: 2 },
      { ...update('a.layers.1.q_proj', 'q_proj', 0), stableRank: null },
      { ...update('a.layers.2.q_proj', 'q_proj', 1), stableRank: 4 },
    ];
    // The zero update has no stable rank and does not count.
    expect(updatesByTarget(mixed)[0].medianStableRank).toBe(3);
    // Any figure by target: here the RMS, largest median first.
    expect(byTarget(peft, (m) => m.rms)).toEqual([
      { target: 'down_proj', modules: 1, median: 5 / 8, max: 5 / 8 },
      { target: 'v_proj', modules: 2, median: 3 / 8, max: 4 / 8 },
      { target: 'q_proj', modules: 2, median: 2 / 8, max: 3 / 8 },
    ]);
  });

  it('names a module whose update is over 10× its target’s median, and none in a target of fewer than three', () => {
    const diverged = [
      update('model.layers.0.q_proj', 'q_proj', 1),
      update('model.layers.1.q_proj', 'q_proj', 1.2),
      update('model.layers.2.q_proj', 'q_proj', 30),
      update('model.layers.0.v_proj', 'v_proj', 1),
      update('model.layers.1.v_proj', 'v_proj', 50),
    ];
    expect(updateOutliers(diverged).map((o) => [o.module.module, o.targetMedian, o.ratio])).toEqual([
      ['model.layers.2.q_proj', 1.2, 25],
    ]);
    expect(updateOutliers(peft)).toEqual([]);
  });
});
