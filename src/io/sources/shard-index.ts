/**
 * Reads a shard index (`….safetensors.index.json`) into the scanner (core/shards/index-parser.ts): streamed over
 * HTTP and stopped as soon as the scanner knows it is not an index, or sliced from a dropped file so a 60 MB MoE
 * index reports progress as it is scanned.
 */
import { SourceError } from '../../core/errors';
import { ShardIndexScanner, type ShardIndexResult } from '../../core/shards/index-parser';
import { MAX_INDEX_BYTES } from '../../core/shards/shard-limits';
import { createHttpReader } from '../http-reader';
import { markStep } from '../../lib/perf-marks';
import type { Meter } from './meter';

/** Local index files are read in slices of this size, so a 60 MB MoE index reports progress as it is scanned. */
const LOCAL_INDEX_SLICE_BYTES = 4 * 1024 * 1024;

export type IndexProgress = (bytesRead: number, bytesTotal: number | null) => void;

/** The index at `url`, scanned as it arrives; `size` is what the server reported. */
export async function readRemoteIndex(
  url: string,
  name: string,
  options: { token: string | undefined; signal: AbortSignal; meter: Meter; progress: IndexProgress },
): Promise<{ result: ShardIndexResult; size: number | null }> {
  const { meter, signal } = options;
  const reader = meter.add(createHttpReader(url, { token: options.token, signal }), 'index');
  const scanner = new ShardIndexScanner({ fileName: name });
  // Stops the download as soon as the scanner knows the file is not an index (an HTML page, a binary).
  const stop = new AbortController();
  try {
    // One byte past the limit lets the scanner say "too large" instead of "cut short".
    await reader.read(0, MAX_INDEX_BYTES + 1, {
      signal: stop.signal,
      onChunk: (chunk, receivedSoFar) => {
        if (receivedSoFar === chunk.length) {
          markStep('index-first-bytes');
        }
        scanner.push(chunk);
        options.progress(meter.stats().bytesFetched, reader.size);
        if (scanner.failure && receivedSoFar > 0) {
          stop.abort();
        }
      },
    });
  } catch (error) {
    if (signal.aborted || !stop.signal.aborted) {
      throw error;
    }
  }
  return { result: scanner.finish(), size: reader.size };
}

/** A dropped index file, scanned slice by slice. */
export async function readLocalIndex(
  file: Blob,
  name: string,
  signal: AbortSignal,
  progress: IndexProgress,
): Promise<ShardIndexResult> {
  progress(0, file.size);
  const scanner = new ShardIndexScanner({ fileName: name, expectedBytes: file.size });
  const end = Math.min(file.size, MAX_INDEX_BYTES + 1);
  for (let offset = 0; offset < end && !scanner.failure; offset += LOCAL_INDEX_SLICE_BYTES) {
    if (signal.aborted) {
      throw new SourceError('aborted', 'Loading was cancelled.');
    }
    const slice = file.slice(offset, Math.min(end, offset + LOCAL_INDEX_SLICE_BYTES));
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await slice.arrayBuffer());
    } catch {
      throw new SourceError('file-unreadable', `Could not read “${name}”. Choose the files again.`);
    }
    scanner.push(bytes);
    progress(offset + bytes.length, file.size);
  }
  return scanner.finish();
}

/** Bytes a local index costs: the scanner reads at most one byte past the index limit. */
export function localIndexBytes(file: Blob): number {
  return Math.min(file.size, MAX_INDEX_BYTES + 1);
}
