/**
 * The slice worker's protocol over a real MessagePort pair (Node's): slices arrive with their bytes, an unreadable
 * one is an error, and a closed reader rejects what is pending instead of leaving it waiting. The file reader sends
 * large reads through an installed slicer and falls back to its own thread when the slicer fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFileReader, setOffThreadSlicer, type OffThreadSlicer } from '../io/file-reader';
import { serveSlices, sliceReaderOverPort, SliceServiceGone } from './slice-service';

function patterned(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    out[i] = (i * 13 + (i >> 9)) & 255;
  }
  return out;
}

afterEach(() => setOffThreadSlicer(null));

describe('slice service', () => {
  it('answers slices of a Blob over a port, with their bytes', async () => {
    const { port1, port2 } = new MessageChannel();
    serveSlices(port2);
    const reader = sliceReaderOverPort(port1);
    const bytes = patterned(3 << 20);
    const blob = new Blob([bytes as BlobPart]);
    const [a, b] = await Promise.all([reader.read(blob, 5, 1_000_005), reader.read(blob, 2 << 20, 3 << 20)]);
    expect(Buffer.compare(new Uint8Array(a), bytes.subarray(5, 1_000_005))).toBe(0);
    expect(Buffer.compare(new Uint8Array(b), bytes.subarray(2 << 20, 3 << 20))).toBe(0);
    reader.close();
    port2.close();
  });

  it('a closed reader rejects pending and later reads', async () => {
    const { port1, port2 } = new MessageChannel();
    // Nobody serves port2: the read stays pending until the reader closes.
    const reader = sliceReaderOverPort(port1);
    const pending = reader.read(new Blob([patterned(10) as BlobPart]), 0, 10);
    reader.close();
    await expect(pending).rejects.toBeInstanceOf(SliceServiceGone);
    await expect(reader.read(new Blob([]), 0, 0)).rejects.toBeInstanceOf(SliceServiceGone);
    port2.close();
  });
});

describe('file reader with an off-thread slicer', () => {
  it('sends values reads of 1 MiB and more to the slicer; smaller ones and other reads stay on this thread', async () => {
    const bytes = patterned(2 << 20);
    const calls: Array<[number, number]> = [];
    const slicer: OffThreadSlicer = {
      read: async (file, offset, end) => {
        calls.push([offset, end]);
        return file.slice(offset, end).arrayBuffer();
      },
    };
    setOffThreadSlicer(slicer);
    const reader = createFileReader(new Blob([bytes as BlobPart]));
    const small = await reader.read(100, 1000, { purpose: 'values' });
    const header = await reader.read(0, 2 << 20);
    const large = await reader.read(7, 1 << 20, { purpose: 'values' });
    expect(calls).toEqual([[7, 7 + (1 << 20)]]);
    expect(Buffer.compare(header, bytes)).toBe(0);
    expect(Buffer.compare(small, bytes.subarray(100, 1100))).toBe(0);
    expect(Buffer.compare(large, bytes.subarray(7, 7 + (1 << 20)))).toBe(0);
  });

  it('a failing slicer leaves the read to this thread', async () => {
    const bytes = patterned(2 << 20);
    setOffThreadSlicer({ read: () => Promise.reject(new SliceServiceGone('gone')) });
    const reader = createFileReader(new Blob([bytes as BlobPart]));
    const got = await reader.read(0, 2 << 20, { purpose: 'values' });
    expect(Buffer.compare(got, bytes)).toBe(0);
  });
});
