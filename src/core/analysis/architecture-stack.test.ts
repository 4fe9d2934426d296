/** The layer-stack scan's rows of one layer, whatever order the header keeps them in. */
import { describe, expect, it } from 'vitest';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { allTensorNames } from '../model';
import { isPackedExpertTensor, scanStack } from './architecture-stack';
import { tensorIndex } from './tensor-index';

function stackOf(names: string[]) {
  const header = headerFromSpecs(names.map((name) => ({ name, dtype: 'F16' as const, shape: [4, 4] })));
  const index = tensorIndex(header, allTensorNames(header.tensors));
  const shapes = index.shapes();
  const inStack = Uint8Array.from(shapes.text, (text) => (text.startsWith('model.layers.#.') ? 1 : 0));
  return scanStack(index, inStack, null);
}

describe('scanStack rowsOf', () => {
  it('gives a layer its rows in header order when layers are kept together', () => {
    const scan = stackOf([
      'model.embed_tokens.weight',
      'model.layers.0.a.weight',
      'model.layers.0.b.weight',
      'model.layers.1.a.weight',
      'model.layers.1.b.weight',
      'lm_head.weight',
    ]);
    expect(scan.layers).toEqual([0, 1]);
    expect(scan.rowsOf(0)).toEqual([1, 2]);
    expect(scan.rowsOf(1)).toEqual([3, 4]);
  });

  it('finds every row of a layer when the header interleaves the layers, and none of a layer it lacks', () => {
    const scan = stackOf([
      'model.layers.0.a.weight',
      'model.layers.1.a.weight',
      'model.norm.weight',
      'model.layers.0.b.weight',
      'model.layers.10.a.weight',
      'model.layers.1.b.weight',
    ]);
    expect(scan.rowsOf(0)).toEqual([0, 3]);
    expect(scan.rowsOf(1)).toEqual([1, 5]);
    expect(scan.rowsOf(10)).toEqual([4]);
    expect(scan.rowsOf(2)).toEqual([]);
  });
});

describe('isPackedExpertTensor', () => {
  it('takes stacks of experts by their names and rank, and not one expert of a numbered list', () => {
    const stacked = [
      'model.layers.0.mlp.experts.gate_up_proj',
      'model.language_model.layers.3.feed_forward.experts.down_proj',
      'model.layers.1.mlp.switch_mlp.gate_proj.weight',
      'blk.7.ffn_gate_exps.weight',
      'blk.7.ffn_gate_up_exps.weight',
    ];
    const not = [
      'model.layers.0.mlp.experts.3.w1.weight',
      'model.layers.0.block_sparse_moe.experts.12.w2.weight',
      'blk.7.ffn_gate_shexp.weight',
      'model.layers.0.conv.weight',
    ];
    expect(stacked.map((name) => isPackedExpertTensor(name, 3))).toEqual(stacked.map(() => true));
    expect(not.map((name) => isPackedExpertTensor(name, 3))).toEqual(not.map(() => false));
    // A stack of vectors (an expert bias [E, out]) holds no matrices to tell apart here.
    expect(isPackedExpertTensor('model.layers.0.mlp.experts.gate_up_proj_bias', 2)).toBe(false);
  });
});
