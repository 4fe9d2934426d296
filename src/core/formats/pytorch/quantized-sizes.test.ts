import { describe, expect, it } from 'vitest';
import { memoryReader } from '../../../testing/fuzz/memory-reader';
import { loadHeader } from '../../load-header';
import { tensorName, type ParsedHeader } from '../../model';
import { aggregateShards } from '../../shards/aggregate';
import { computeTotals } from '../../stats';
import { tensorBytes } from '../../table-query';
import { torchFixture } from '../../../testing/torch-fixtures';
import { buildTensorColumns } from './columns';
import type { PyTensor } from './pickle-values';

function tensor(dtype: string, shape: number[]): PyTensor {
  return {
    kind: 'tensor',
    dtype,
    shape,
    stride: [],
    offset: 0,
    storageKey: '0',
    storageBytes: Number.NaN,
    itemBits: 8,
    location: 'cpu',
    rebuild: '_rebuild_qtensor',
    parameter: false,
  };
}

describe('sizes of quantized checkpoint tensors', () => {
  it('counts 1 byte per qint8/quint8 element, 4 per qint32, two quint4x2 per byte, and 0 for an unknown dtype', () => {
    const { columns, unknownDtypes } = buildTensorColumns(
      [
        ['QINT8', [4, 4]],
        ['QUINT8', [3]],
        ['QINT32', [2, 5]],
        ['QUINT4X2', [6]],
        ['MYSTERY', [7]],
        ['F16', [2]],
      ].map(([dtype, shape], row) => ({
        name: `t${row}`,
        tensor: tensor(dtype as string, shape as number[]),
        section: '',
      })),
    );
    expect(Array.from({ length: columns.count }, (_, row) => tensorBytes(columns, row))).toEqual([16, 3, 40, 3, 0, 4]);
    const totals = computeTotals(columns, unknownDtypes);
    expect(totals.byDtype.QINT8.bytes).toBe(16);
    expect(totals.byDtype.QINT32.bytes).toBe(40);
    expect(totals.bytes).toBe(16 + 3 + 40 + 3 + 4);
  });

  it('the quantized tensor torch saved in mixed_dtypes.pt has its size in the totals, also when merged as a shard', async () => {
    const loaded = await loadHeader(memoryReader(torchFixture('mixed_dtypes.pt'), 'local'));
    if (loaded.outcome.kind !== 'parsed') {
      throw new Error('mixed_dtypes.pt was rejected');
    }
    const header: ParsedHeader = loaded.outcome.header;
    const row = Array.from({ length: header.tensors.count }, (_, r) => r).find(
      (r) => tensorName(header.tensors, r) === 'q_per_tensor',
    );
    expect(row).toBeDefined();
    expect(header.unknownDtypes.get(row as number)).toBe('QINT8');
    expect(tensorBytes(header.tensors, row as number)).toBe(16);
    expect(computeTotals(header.tensors, header.unknownDtypes).byDtype.QINT8.bytes).toBe(16);

    const model = aggregateShards({
      index: null,
      indexFile: undefined,
      shards: [{ file: 'mixed_dtypes.pt', header }],
    });
    expect(model.totals.byDtype.QINT8.bytes).toBe(16);
  });
});
