import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DcpChunk } from '../core/formats/pytorch/dcp-metadata';
import { tensorName } from '../core/model';
import { memoryReader } from '../testing/fuzz/memory-reader';
import { torchFixtureHeader } from '../testing/torch-fixtures';
import { sliceReader } from '../core/bytes/byte-reader';
import { locateDcpTensor, placeBlock } from './dcp-data';
import { locateTensorData, readSpanBytes } from './tensor-data';

const signal = new AbortController().signal;
const folder = new URL('../../fixtures/torch/dcp/', import.meta.url);
const open = (file: string) => memoryReader(new Uint8Array(readFileSync(new URL(file, folder))), 'local');

async function embedding(change: (chunks: DcpChunk[]) => DcpChunk[]) {
  const header = await torchFixtureHeader('dcp/.metadata');
  const rows = header.dcp?.rows ?? [];
  const row = rows.findIndex((_, at) => tensorName(header.tensors, at) === 'tok_embeddings.weight');
  const changed = rows.map((chunks, at) => (at === row ? change(chunks) : chunks));
  return locateDcpTensor(header.tensors, row, { rows: changed, open }, signal, {
    locate: locateTensorData,
    read: readSpanBytes,
  });
}

describe('locating a Distributed Checkpoint tensor', () => {
  it('joins row chunks into one span of parts, in row order whatever the metadata order', async () => {
    const span = await embedding((chunks) => [...chunks].reverse());
    expect(span.parts).toHaveLength(2);
    expect(span.length).toBe(32 * 8 * 4);
  });

  it('says why it does not read chunks with a gap, an overlap, the wrong archive, or transformed', async () => {
    await expect(embedding((chunks) => chunks.slice(1))).rejects.toThrow(/hold 128 of its 256 elements/);
    await expect(embedding((chunks) => chunks.map((chunk) => ({ ...chunk, at: [0, 0] })))).rejects.toThrow(
      /Two chunks of this tensor overlap/,
    );
    await expect(
      embedding((chunks) => chunks.map((chunk, k) => ({ ...chunk, at: [0, k * 4], sizes: [32, 4] }))),
    ).rejects.toThrow(/holds a F32 tensor of shape \[16, 8\] where the metadata says F32 \[32, 4\]/);
    await expect(embedding((chunks) => chunks.map((chunk) => ({ ...chunk, transforms: ['zstd'] })))).rejects.toThrow(
      /went through DCP's extensions \(zstd\)/,
    );
    await expect(
      embedding((chunks) => chunks.map((chunk) => ({ ...chunk, offset: chunk.offset + 1 }))),
    ).rejects.toThrow(/is not one torch\.save archive of one tensor/);
  });

  it('places a block of any rank where it belongs in the whole tensor', () => {
    // A 3 × 4 tensor of 1-byte items: the block of rows 1–2, columns 2–3.
    const out = new Uint8Array(12);
    placeBlock(out, [3, 4], { at: [1, 2], sizes: [2, 2] }, Uint8Array.of(1, 2, 3, 4), 1);
    expect([...out]).toEqual([0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4]);
    const cube = new Uint8Array(2 * 2 * 2 * 2);
    placeBlock(cube, [2, 2, 2], { at: [1, 0, 1], sizes: [1, 2, 1] }, Uint8Array.of(5, 6, 7, 8), 2);
    expect([...cube]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 6, 0, 0, 7, 8]);
  });

  it('reads a slice as a reader of its own, never past its end', async () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => i);
    const slice = sliceReader(memoryReader(bytes, 'local'), 10, 20, 'values');
    expect(slice.size).toBe(20);
    expect([...(await slice.read(15, 10))]).toEqual([25, 26, 27, 28, 29]);
    expect(await slice.read(25, 4)).toHaveLength(0);
  });
});
