import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DcpChunk } from '../core/formats/pytorch/dcp-metadata';
import { tensorName } from '../core/model';
import { memoryReader } from '../testing/fuzz/memory-reader';
import { torchFixtureHeader } from '../testing/torch-fixtures';
import { locateDcpTensor, sliceReader } from './dcp-data';
import { locateTensorData } from './tensor-data';

const signal = new AbortController().signal;
const folder = new URL('../../fixtures/torch/dcp/', import.meta.url);
const open = (file: string) => memoryReader(new Uint8Array(readFileSync(new URL(file, folder))), 'local');

async function embedding(change: (chunks: DcpChunk[]) => DcpChunk[]) {
  const header = await torchFixtureHeader('dcp/.metadata');
  const rows = header.dcp?.rows ?? [];
  const row = rows.findIndex((_, at) => tensorName(header.tensors, at) === 'tok_embeddings.weight');
  const changed = rows.map((chunks, at) => (at === row ? change(chunks) : chunks));
  return locateDcpTensor(header.tensors, row, { rows: changed, open }, signal, locateTensorData);
}

describe('locating a Distributed Checkpoint tensor', () => {
  it('joins row chunks into one span of parts, in row order whatever the metadata order', async () => {
    const span = await embedding((chunks) => [...chunks].reverse());
    expect(span.parts).toHaveLength(2);
    expect(span.length).toBe(32 * 8 * 4);
  });

  it('says why it does not read chunks split along another dimension, with a gap, or transformed', async () => {
    await expect(
      embedding((chunks) => chunks.map((chunk, k) => ({ ...chunk, at: [0, k * 4], sizes: [32, 4] }))),
    ).rejects.toThrow(/split along more than its first dimension/);
    await expect(embedding((chunks) => chunks.slice(1))).rejects.toThrow(/do not tile its first dimension/);
    await expect(embedding((chunks) => chunks.map((chunk) => ({ ...chunk, transforms: ['zstd'] })))).rejects.toThrow(
      /went through DCP's extensions \(zstd\)/,
    );
    await expect(
      embedding((chunks) => chunks.map((chunk) => ({ ...chunk, offset: chunk.offset + 1 }))),
    ).rejects.toThrow(/is not one torch\.save archive of one tensor/);
  });

  it('reads a slice as a reader of its own, never past its end', async () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => i);
    const slice = sliceReader(memoryReader(bytes, 'local'), 10, 20);
    expect(slice.size).toBe(20);
    expect([...(await slice.read(15, 10))]).toEqual([25, 26, 27, 28, 29]);
    expect(await slice.read(25, 4)).toHaveLength(0);
  });
});
