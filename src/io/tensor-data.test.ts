/**
 * File-order reads of many tensors (readSpansInOrder, the local "Scan all values"): every tensor gets exactly its
 * bytes, cut on its unit, in order; neighbours share a read; a gap or another file starts a new read; a truncated
 * file is named; a cancelled read stops.
 */
import { describe, expect, it } from 'vitest';
import { concatChunks } from '../core/bytes/concat';
import { LOCAL_VALUES_CHUNK_BYTES, LOCAL_VALUES_READS_AHEAD } from '../core/values/values-limits';
import { createFileReader } from './file-reader';
import { readSpansInOrder, type OrderedSpan } from './tensor-data';

function patterned(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    out[i] = (i * 31 + seed * 7 + (i >> 8)) & 255;
  }
  return out;
}

/** Byte equality without a deep-equality walk over megabytes. */
function expectBytes(got: Uint8Array, want: Uint8Array): void {
  expect(got.length).toBe(want.length);
  expect(Buffer.compare(got, want)).toBe(0);
}

async function readAll(list: readonly OrderedSpan[], signal = new AbortController().signal) {
  const got = list.map(() => [] as Uint8Array[]);
  const lasts: number[] = [];
  const order: number[] = [];
  const progress: number[] = [];
  await readSpansInOrder(list, {
    signal,
    onPiece: (index, bytes, last) => {
      got[index].push(bytes.slice());
      order.push(index);
      if (last) {
        lasts.push(index);
      }
    },
    onProgress: (read) => progress.push(read),
  });
  const joined = got.map((parts) =>
    concatChunks(
      parts,
      parts.reduce((sum, part) => sum + part.length, 0),
    ),
  );
  return { joined, got, lasts, order, progress };
}

describe('readSpansInOrder', () => {
  it('small neighbours share one read; a large tensor is cut on its unit; every tensor gets its bytes in order', async () => {
    const file = patterned(LOCAL_VALUES_CHUNK_BYTES * 2 + 5000, 1);
    const reader = createFileReader(new Blob([file as BlobPart]));
    const f32 = { bytes: 4, elements: 1 };
    const q8 = { bytes: 34, elements: 32 };
    const big = 34 * Math.ceil((LOCAL_VALUES_CHUNK_BYTES * 1.5) / 34);
    const list: OrderedSpan[] = [
      { span: { reader, start: 0, length: 400 }, unit: f32 },
      { span: { reader, start: 400, length: 0 }, unit: f32 },
      // 70 bytes of a 34-byte unit: 68 are read, the partial block is not.
      { span: { reader, start: 400, length: 70 }, unit: q8 },
      { span: { reader, start: 600, length: big }, unit: q8 },
      { span: { reader, start: 600 + big, length: 4000 }, unit: f32 },
    ];
    const { joined, got, lasts, order, progress } = await readAll(list);
    expectBytes(joined[0], file.subarray(0, 400));
    expect(joined[1].length).toBe(0);
    expectBytes(joined[2], file.subarray(400, 468));
    expectBytes(joined[3], file.subarray(600, 600 + big));
    expectBytes(joined[4], file.subarray(600 + big, 4600 + big));
    expect(lasts).toEqual([0, 1, 2, 3, 4]);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const part of got[3]) {
      expect(part.length % 34).toBe(0);
      expect(part.length).toBeLessThanOrEqual(LOCAL_VALUES_CHUNK_BYTES);
    }
    // The first three tensors in one read, the fourth's first slice alone, its second slice with the fifth.
    expect(reader.stats().requests).toBe(3);
    expect(progress[progress.length - 1]).toBe(400 + 68 + big + 4000);
  });

  it('a gap wider than the read-through limit, or another file, starts a new read', async () => {
    const file = patterned(1 << 20, 2);
    const a = createFileReader(new Blob([file as BlobPart]));
    const b = createFileReader(new Blob([file as BlobPart]));
    const unit = { bytes: 2, elements: 1 };
    const list: OrderedSpan[] = [
      { span: { reader: a, start: 0, length: 100 }, unit },
      { span: { reader: a, start: 100 + 1000, length: 100 }, unit },
      { span: { reader: a, start: 600_000, length: 100 }, unit },
      { span: { reader: b, start: 600_100, length: 100 }, unit },
    ];
    const { joined } = await readAll(list);
    expectBytes(joined[2], file.subarray(600_000, 600_100));
    expectBytes(joined[3], file.subarray(600_100, 600_200));
    expect([a.stats().requests, b.stats().requests]).toEqual([2, 1]);
    expect(a.stats().bytesFetched).toBe(1200 + 100);
  });

  it('a file shorter than its tensors is named as truncated', async () => {
    const reader = createFileReader(new Blob([patterned(1000, 3) as BlobPart]));
    const list: OrderedSpan[] = [{ span: { reader, start: 900, length: 400 }, unit: { bytes: 4, elements: 1 } }];
    await expect(readAll(list)).rejects.toThrow(/truncated/);
  });

  it('a cancelled read stops before the next slice', async () => {
    const reader = createFileReader(new Blob([patterned(LOCAL_VALUES_CHUNK_BYTES * 3, 4) as BlobPart]));
    const controller = new AbortController();
    const list: OrderedSpan[] = [
      { span: { reader, start: 0, length: LOCAL_VALUES_CHUNK_BYTES * 3 }, unit: { bytes: 4, elements: 1 } },
    ];
    let pieces = 0;
    const run = readSpansInOrder(list, {
      signal: controller.signal,
      onPiece: () => {
        pieces++;
        controller.abort();
      },
    });
    await expect(run).rejects.toThrow();
    expect(pieces).toBe(1);
  });

  it('keeps the next slices requested while one is counted, never more than the read-ahead', async () => {
    const base = createFileReader(new Blob([patterned(LOCAL_VALUES_CHUNK_BYTES * 6, 5) as BlobPart]));
    let inFlight = 0;
    let most = 0;
    const seenWhileCounting: number[] = [];
    const reader = Object.assign(Object.create(base) as typeof base, {
      read: async (offset: number, length: number) => {
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          return await base.read(offset, length);
        } finally {
          inFlight--;
        }
      },
    });
    const list: OrderedSpan[] = [
      { span: { reader, start: 0, length: LOCAL_VALUES_CHUNK_BYTES * 6 }, unit: { bytes: 4, elements: 1 } },
    ];
    await readSpansInOrder(list, {
      signal: new AbortController().signal,
      onPiece: () => seenWhileCounting.push(inFlight),
    });
    expect(most).toBe(LOCAL_VALUES_READS_AHEAD);
    // While the first slices are counted the next ones are already on their way.
    expect(seenWhileCounting[0]).toBeGreaterThan(0);
    expect(seenWhileCounting).toHaveLength(6);
  });
});
