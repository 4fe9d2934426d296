/** ColumnMerger: shards appended one by one give the table a merge of them all at once gives. */
import { describe, expect, it } from 'vitest';
import { parsedHeaderFromSpecs } from '../../testing/build-sharded';
import type { TensorSpec } from '../../testing/build-safetensors';
import type { ParsedHeader } from '../model';
import { ColumnMerger } from './column-merger';

function shard(prefix: string, count: number, rank = 2): ParsedHeader {
  const specs: TensorSpec[] = [];
  for (let i = 0; i < count; i++) {
    specs.push({ name: `${prefix}.${i}.weight`, dtype: i % 3 === 0 ? 'BF16' : 'F32', shape: Array(rank).fill(i + 1) });
  }
  return parsedHeaderFromSpecs(specs);
}

function merged(headers: ReadonlyArray<ParsedHeader | null>, merger = new ColumnMerger()) {
  for (const header of headers) {
    merger.append(header);
  }
  return merger.finish();
}

describe('ColumnMerger', () => {
  const headers = [shard('a', 3), null, shard('b', 5000, 3), shard('c', 1, 1), null, shard('d', 700)];

  it('lays shards end to end whatever room it starts with, growing as they come', () => {
    const roomy = merged(headers, new ColumnMerger({ rows: 10_000, nameBytes: 1 << 20, dims: 30_000 }));
    const tiny = merged(headers, new ColumnMerger({ rows: 1, nameBytes: 1, dims: 1 }));
    expect(tiny).toEqual(roomy);
    // Sized from an index's totals after the first shard was taken: same table, its names not copied again.
    const sized = new ColumnMerger({ rows: 1, nameBytes: 1, dims: 1 });
    sized.append(headers[0]);
    sized.reserveForIndex(5704, roomy.columns.nameBytes.length);
    headers.slice(1).forEach((header) => sized.append(header));
    const sizedResult = sized.finish();
    expect(sizedResult).toEqual(roomy);
    expect(sizedResult.columns.nameBytes.buffer.byteLength).toBe(roomy.columns.nameBytes.length);
    const { columns, shardOfRow, rowStarts } = tiny;
    expect(columns.count).toBe(3 + 5000 + 1 + 700);
    expect(Array.from(rowStarts)).toEqual([0, 3, 3, 5003, 5004, 5004, 5704]);
    expect(shardOfRow[4]).toBe(2);
    expect(shardOfRow[5703]).toBe(5);
    // Every array exactly as long as its content, offsets shifted per shard.
    expect(columns.nameBytes.length).toBe(columns.nameStarts[columns.count]);
    expect(columns.dims.length).toBe(columns.shapeStarts[columns.count]);
    const name = (row: number) =>
      new TextDecoder().decode(columns.nameBytes.subarray(columns.nameStarts[row], columns.nameStarts[row + 1]));
    expect([name(0), name(3), name(5003), name(5704 - 1)]).toEqual([
      'a.0.weight',
      'b.0.weight',
      'c.0.weight',
      'd.699.weight',
    ]);
    expect(Array.from(columns.dims.subarray(columns.shapeStarts[5002], columns.shapeStarts[5003]))).toEqual([
      5000, 5000, 5000,
    ]);
  });

  it('adds the unknown-dtype column when a later shard brings one, zero for the rows before', () => {
    const odd = shard('q', 2);
    odd.tensors.unknownDtypeBits = Uint8Array.from([0, 8]);
    odd.unknownDtypes = new Map([[1, 'QINT8']]);
    const result = merged([shard('a', 4), odd], new ColumnMerger({ rows: 1, nameBytes: 1, dims: 1 }));
    expect(Array.from(result.columns.unknownDtypeBits ?? [])).toEqual([0, 0, 0, 0, 0, 8]);
    expect(result.unknownDtypes).toEqual(new Map([[5, 'QINT8']]));
  });

  it('knows which headers it took, so a merge can go on from it only for the same shards in the same order', () => {
    const merger = new ColumnMerger();
    merger.append(headers[0]);
    merger.append(headers[1]);
    expect(merger.positions).toBe(2);
    expect(merger.startsWith(headers)).toBe(true);
    expect(merger.startsWith([headers[0]])).toBe(false);
    expect(merger.startsWith([shard('a', 3), null, ...headers.slice(2)])).toBe(false);
  });
});
