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

/** What a streaming index has said about one shard so far: its tensor names' count and UTF-8 bytes. */
export interface ShardNamesSoFar {
  tensors: number;
  nameBytes: number;
  /** The whole index is scanned: the figures are final. */
  complete: boolean;
}

/** A shard file's figures so far, or null while the index has not named it. */
export type ShardNamesLookup = (file: string) => ShardNamesSoFar | null;

/** The index at `url`, scanned as it arrives; `size` is what the server reported. */
export async function readRemoteIndex(
  url: string,
  name: string,
  options: {
    token: string | undefined;
    signal: AbortSignal;
    meter: Meter;
    progress: IndexProgress;
    /** Each shard file as the weight_map first names it, while the rest of the index is still arriving. */
    onShardNamed?: (file: string) => void;
    /** Given once, at the start: how to ask what the index has named in a shard so far (to size its read). */
    onLookup?: (lookup: ShardNamesLookup) => void;
  },
): Promise<{ result: ShardIndexResult; size: number | null }> {
  const { meter, signal, onShardNamed } = options;
  const reader = meter.add(createHttpReader(url, { token: options.token, signal }), 'index');
  let scanner: ShardIndexScanner | null = null;
  // Made with the first bytes, once the answer has told the index's size, so its tables are allocated once at about
  // the right size rather than doubled through the download (seven times for an 8.9 MB index, each a copy into
  // fresh memory while shard answers wait).
  const scannerNow = (): ShardIndexScanner =>
    (scanner ??= new ShardIndexScanner({ fileName: name, expectedBytes: reader.size ?? undefined }));
  // Stops the download as soon as the scanner knows the file is not an index (an HTML page, a binary).
  const stop = new AbortController();
  let announced = 0;
  let scanned = 0;
  let complete = false;
  const shardIds = new Map<string, number>();
  options.onLookup?.((file) => {
    if (scanner === null) {
      return null;
    }
    for (let id = shardIds.size; id < scanner.shardsNamed; id++) {
      shardIds.set(scanner.shardName(id), id);
    }
    const id = shardIds.get(file);
    return id === undefined ? null : { ...scanner.namedInShard(id), complete };
  });
  // Each chunk is scanned as it arrives, in the network task that brought it. Handing the scan to a later task
  // (postTask at any priority, or a MessageChannel round trip) lets the shard answers of an HTTP/2 load queue ahead
  // of it, about 100 ms per hand-off, so the index, which the load needs to finish, would be scanned after the last
  // shard header (docs/performance.md, "The 161-shard tail, third pass").
  const scan = (chunk: Uint8Array): void => {
    const scanner = scannerNow();
    if (scanner.failure) {
      return;
    }
    scanner.push(chunk);
    scanned += chunk.length;
    if (scanner.failure) {
      stop.abort();
      return;
    }
    // Only while more is to come: an index that arrived whole is read in the plan's shard order, as before.
    const more = reader.size === null || scanned < reader.size;
    for (; onShardNamed && more && announced < scanner.shardsNamed; announced++) {
      onShardNamed(scanner.shardName(announced));
    }
  };
  try {
    // One byte past the limit lets the scanner say "too large" instead of "cut short".
    await reader.read(0, MAX_INDEX_BYTES + 1, {
      signal: stop.signal,
      streamOnly: true,
      onChunk: (chunk, receivedSoFar) => {
        if (receivedSoFar === chunk.length) {
          markStep('index-first-bytes');
        }
        options.progress(meter.stats().bytesFetched, reader.size);
        scan(chunk);
      },
    });
  } catch (error) {
    if (signal.aborted || !stop.signal.aborted) {
      throw error;
    }
  }
  const result = scannerNow().finish();
  complete = result.ok;
  return { result, size: reader.size };
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
