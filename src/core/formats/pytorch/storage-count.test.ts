import { describe, expect, it } from 'vitest';
import type { NamedTensor } from './anatomy';
import type { PyTensor } from './pickle-values';
import { countStorages } from './storage-count';

function tensor(storageKey: string | null, shape: number[], offset = 0, stride?: number[]): PyTensor {
  const rowMajor = shape.map((_, axis) => shape.slice(axis + 1).reduce((product, dim) => product * dim, 1));
  return {
    kind: 'tensor',
    dtype: 'F16',
    shape,
    stride: stride ?? rowMajor,
    offset,
    storageKey,
    storageBytes: 2 * 64,
    itemBits: 16,
    location: 'cpu',
    rebuild: '_rebuild_tensor_v2',
    parameter: false,
  };
}

function named(name: string, value: PyTensor, section = ''): NamedTensor {
  return { name, tensor: value, section };
}

const bytesOf = (value: PyTensor) => value.storageBytes;

describe('countStorages', () => {
  it('a tied name adds nothing, and its storage bytes count once', () => {
    const rows = [named('wte', tensor('0', [8, 8])), named('lm_head', tensor('0', [8, 8]))];
    const counted = countStorages(rows, () => '', bytesOf);
    expect(counted.newElements).toEqual([64, 0]);
    expect(counted.shared).toEqual([false, true]);
    expect(counted.firstStorageBytes).toEqual([128, 0]);
  });

  it('a view counts its extent: a corner of a larger storage, strided, adds its own elements only', () => {
    // mask[:4, :4] of an 8 × 8 storage: extent 3 × 8 + 4 = 28 elements, 16 of them its own.
    const corner = tensor('m', [4, 4], 0, [8, 1]);
    const counted = countStorages([named('h.0.attn.bias', corner)], () => '', bytesOf);
    expect(counted.newElements).toEqual([16]);
    expect(counted.firstStorageBytes).toEqual([128]);
  });

  it('slices that only touch are not shared; an overlapping view adds only what it uncovers', () => {
    const rows = [
      named('first', tensor('s', [8])),
      named('rest', tensor('s', [16], 8)),
      named('overlap', tensor('s', [8], 20)),
      named('transpose', tensor('t', [6, 4], 0, [1, 6])),
    ];
    const counted = countStorages(rows, () => '', bytesOf);
    expect(counted.newElements).toEqual([8, 16, 4, 24]);
    expect(counted.shared).toEqual([false, false, true, false]);
  });

  it('sections count apart: an optimizer naming a weight storage does not take the weight out of the model', () => {
    const rows = [
      named('optimizer.state.0.param', tensor('0', [8, 8]), 'optimizer'),
      named('state_dict.w', tensor('0', [8, 8]), 'state_dict'),
    ];
    const counted = countStorages(rows, (row) => rows[row].section, bytesOf);
    expect(counted.newElements).toEqual([64, 64]);
    expect(counted.shared).toEqual([false, false]);
    // The file holds the storage once, under whichever section named it first.
    expect(counted.firstStorageBytes).toEqual([128, 0]);
  });

  it('meta tensors (no storage) count their elements and no bytes', () => {
    const counted = countStorages([named('meta', tensor(null, [3, 3]))], () => '', bytesOf);
    expect(counted.newElements).toEqual([9]);
    expect(counted.firstStorageBytes).toEqual([0]);
  });
});
