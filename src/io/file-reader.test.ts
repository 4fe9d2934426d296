import { openAsBlob } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileReader } from './file-reader';
import { firstDifference, headerFile, patternBytes } from '../testing/fixture-dir';
import { sourceErrorOf } from '../testing/test-server-setup';

describe('createFileReader', () => {
  it('reads exactly 8 + N bytes for a header load', async () => {
    const bytes = headerFile(1000, 50_000);
    const reader = createFileReader(new File([bytes], 'model.safetensors'));
    expect(reader.name).toBe('model.safetensors');
    expect(reader.size).toBe(bytes.length);
    expect(reader.preferredFirstRead).toBe(8);
    const first = await reader.read(0, reader.preferredFirstRead);
    expect(first).toEqual(bytes.subarray(0, 8));
    const n = Number(new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true));
    const rest = await reader.read(8, n);
    expect(rest).toEqual(bytes.subarray(8, 8 + n));
    expect(reader.stats()).toEqual({ requests: 2, bytesFetched: 8 + 1000 });
  });

  it('returns fewer bytes only at EOF, and nothing past it', async () => {
    const reader = createFileReader(new Blob([patternBytes(0, 16)]));
    expect(reader.name).toBe('file');
    expect(await reader.read(10, 100)).toEqual(patternBytes(10, 6));
    expect(await reader.read(16, 10)).toEqual(new Uint8Array(0));
    expect(await reader.read(0, 0)).toEqual(new Uint8Array(0));
    expect(reader.stats().requests).toBe(1);
  });

  it('reports the read as one chunk with its running total', async () => {
    const reader = createFileReader(new Blob([patternBytes(0, 100)]));
    const calls: Array<[number, number]> = [];
    await reader.read(20, 30, { onChunk: (chunk, soFar) => calls.push([chunk.length, soFar]) });
    expect(calls).toEqual([[30, 30]]);
  });

  it('with streamOnly, hands the bytes to onChunk and resolves to none', async () => {
    const reader = createFileReader(new Blob([patternBytes(0, 100)]));
    let seen: Uint8Array = new Uint8Array(0);
    const bytes = await reader.read(20, 30, { streamOnly: true, onChunk: (chunk) => (seen = chunk) });
    expect(bytes.length).toBe(0);
    expect(firstDifference(seen, patternBytes(20, 30))).toBe(-1);
  });

  it('maps a file deleted after it was chosen to file-unreadable', async () => {
    const file = path.join(os.tmpdir(), `st-lens-file-reader-${process.pid}-${Date.now()}.safetensors`);
    await writeFile(file, headerFile(100, 100));
    const blob = await openAsBlob(file);
    const reader = createFileReader(Object.assign(blob, { name: 'gone.safetensors' }));
    expect((await reader.read(0, 8)).length).toBe(8);
    await unlink(file);
    const error = await sourceErrorOf(reader.read(8, 100));
    expect(error.code).toBe('file-unreadable');
    expect(error.message).toContain('gone.safetensors');
    expect(error.message).toMatch(/moved, deleted or changed/);
  });

  it('honours an abort signal before and during a read', async () => {
    const controller = new AbortController();
    controller.abort();
    const reader = createFileReader(new Blob([patternBytes(0, 100)]));
    expect((await sourceErrorOf(reader.read(0, 8, { signal: controller.signal }))).code).toBe('aborted');

    // A Blob whose read never completes: only the signal can end the wait.
    const hanging = {
      size: 100,
      slice: () => ({ arrayBuffer: () => new Promise<ArrayBuffer>(() => undefined) }),
    } as unknown as Blob;
    const live = new AbortController();
    const pending = createFileReader(hanging).read(0, 8, { signal: live.signal });
    setTimeout(() => live.abort(), 20);
    expect((await sourceErrorOf(pending)).code).toBe('aborted');
  });

  it('rejects invalid ranges as a bug', async () => {
    const reader = createFileReader(new Blob([]));
    expect((await sourceErrorOf(reader.read(-1, 8))).code).toBe('internal');
    expect((await sourceErrorOf(reader.read(0, 1.5))).code).toBe('internal');
  });
});
