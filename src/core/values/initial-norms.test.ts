import { describe, expect, it } from 'vitest';
import { scannedTensor } from '../../testing/scan-tensors';
import { initialNorms } from './initial-norms';

const ones = (tensor: string) => scannedTensor(tensor, { count: 64, absMax: 1, mean: 1, std: 0 });
const trained = (tensor: string) => scannedTensor(tensor, { count: 64, absMax: 1.3, mean: 0.9, std: 0.1 });

describe('norm weights at their initial value', () => {
  it('every norm at 1.0, whatever the family calls it; other tensors at 1.0 are not norms', () => {
    const found = initialNorms([
      ones('model.layers.0.input_layernorm.weight'),
      ones('model.layers.0.self_attn.q_norm.weight'),
      ones('transformer.h.0.ln_1.weight'),
      ones('transformer.ln_f.weight'),
      ones('bert.encoder.layer.0.attention.output.LayerNorm.weight'),
      ones('blk.0.attn_norm.weight'),
      ones('model.layers.0.mlp.down_proj.weight'),
      ones('model.layers.0.input_layernorm.bias'),
    ]);
    expect(found).toEqual({ normTensors: 6, atOne: 6, examples: expect.any(Array) });
    expect(found?.examples).not.toContain('model.layers.0.mlp.down_proj.weight');
  });

  it('a few at 1.0 among trained ones are counted; none, or a single norm, says nothing', () => {
    const layers = [0, 1, 2, 3].map((layer) => `model.layers.${layer}.input_layernorm.weight`);
    expect(initialNorms([trained(layers[0]), trained(layers[1]), ones(layers[2]), ones(layers[3])])).toEqual({
      normTensors: 4,
      atOne: 2,
      examples: [layers[2], layers[3]],
    });
    expect(initialNorms(layers.map(trained))).toBeNull();
    expect(initialNorms([ones(layers[0])])).toBeNull();
  });

  it('a constant other than 1, or −1, is not the initial value', () => {
    const constant = (tensor: string, value: number) =>
      scannedTensor(tensor, { count: 64, absMax: Math.abs(value), mean: value, std: 0 });
    expect(initialNorms([constant('a.norm.weight', 0.5), constant('b.norm.weight', -1)])).toBeNull();
  });
});
