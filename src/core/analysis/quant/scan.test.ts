/** The shared scan: claimed rows and claimed or missing weights are skipped, and the module path is the name minus the suffix. */
import { describe, expect, it } from 'vitest';
import { allTensorNames } from '../../model';
import { headerFromSpecs } from '../../../testing/models/header-from-specs';
import { tensorIndex } from '../tensor-index';
import { freeRowsEndingWith, freeWeightsWithSidecar } from './scan';
import type { QuantContext } from './quant-types';

function contextOf(names: readonly string[], claimedNames: readonly string[] = []): QuantContext {
  const header = headerFromSpecs(names.map((name) => ({ name, dtype: 'F32', shape: [1] })));
  const index = tensorIndex(header, allTensorNames(header.tensors));
  const claimed = new Uint8Array(index.count);
  for (const name of claimedNames) {
    claimed[index.row(name)] = 1;
  }
  return {
    index,
    claimed,
    claimedByCode: new Uint32Array(256),
    fileName: 'model.safetensors',
    config: null,
    tensorBytes: new Map(),
  };
}

describe('freeRowsEndingWith', () => {
  it('lists the unclaimed rows with the suffix, in row order, each with its module path', () => {
    const context = contextOf(['b.qweight', 'a.qweight', 'a.scales', 'c.qweight'], ['a.qweight']);
    expect(freeRowsEndingWith(context, '.qweight')).toEqual([
      { row: 0, base: 'b' },
      { row: 3, base: 'c' },
    ]);
  });
});

describe('freeWeightsWithSidecar', () => {
  it('pairs each free sidecar with its free `.weight`, skipping missing or claimed weights and claimed sidecars', () => {
    const context = contextOf(
      [
        'ok.weight',
        'ok.weight_scale',
        'orphan.weight_scale',
        'taken.weight',
        'taken.weight_scale',
        'gone.weight',
        'gone.weight_scale',
      ],
      ['taken.weight', 'gone.weight_scale'],
    );
    expect(freeWeightsWithSidecar(context, '.weight_scale')).toEqual([{ row: 1, base: 'ok', weight: 0 }]);
  });
});
