import { describe, expect, it } from 'vitest';
import { duplicateTensors } from './duplicate-tensors';
import { scannedTensor } from '../../testing/scan-tensors';
import type { ScanTensor } from './value-scan';

function entry(tensor: string, mean: number, std = 0.02, extra: Partial<ScanTensor> = {}): ScanTensor {
  return scannedTensor(tensor, { zeros: 3, mean, std, ...extra });
}

describe('duplicateTensors', () => {
  it('moments that differ only in their last bits still make a pair; a real difference does not', () => {
    const mean = 0.0012345678901234;
    const found = duplicateTensors([
      entry('a.layers.0.w', mean),
      entry('a.layers.1.w', mean * (1 + 1e-15)),
      entry('a.layers.2.w', mean * (1 + 1e-9)),
    ]);
    expect(found?.groups).toEqual([['a.layers.0.w', 'a.layers.1.w']]);
    expect(found?.repeatedLayers).toEqual([{ prefix: 'a.layers.', first: 1, last: 1, source: 0 }]);
  });

  it('a tensor and its copy in a wider dtype hold the same values', () => {
    const found = duplicateTensors([
      entry('model.embed_tokens.weight', 0.001, 0.02, { dtype: 'BF16' }),
      entry('lm_head.weight', 0.001, 0.02, { dtype: 'F32' }),
    ]);
    expect(found?.groups).toEqual([['model.embed_tokens.weight', 'lm_head.weight']]);
  });

  it('constant and small tensors are equal by construction and not compared', () => {
    expect(
      duplicateTensors([
        entry('norm.0', 1, 0),
        entry('norm.1', 1, 0),
        entry('bias.0', 0.1, 0.02, { count: 64 }),
        entry('bias.1', 0.1, 0.02, { count: 64 }),
      ]),
    ).toBeNull();
  });

  it('a layer repeats an earlier one only when every compared tensor of it is a copy from there; runs join', () => {
    const layer = (n: number, source = n) => [
      entry(`m.layers.${n}.q`, 0.001 * (source + 1)),
      entry(`m.layers.${n}.k`, 0.002 * (source + 1)),
    ];
    const partial = [entry('m.layers.7.q', 0.001), entry('m.layers.7.k', 0.5)];
    const found = duplicateTensors([...layer(0), ...layer(1), ...layer(2), ...layer(3, 0), ...layer(4, 1), ...partial]);
    expect(found?.repeatedLayers).toEqual([{ prefix: 'm.layers.', first: 3, last: 4, source: 0 }]);
    // Layer 7's q is a copy of layer 0's and of layer 3's: one group of three, counted once.
    expect(found?.groups).toContainEqual(['m.layers.0.q', 'm.layers.3.q', 'm.layers.7.q']);
  });
});
