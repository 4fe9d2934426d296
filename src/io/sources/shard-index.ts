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

/** Index bytes are scanned in slices of about this long before other work (arriving shard headers) gets a turn. */
const INDEX_SCAN_SLICE_MS = 8;
/**
 * Bytes scanned between two looks at the clock. An HTTP/2 body can arrive in chunks of a megabyte or more, and one
 * such chunk scanned whole held the worker for 100+ ms while shard headers waited; 64 KiB scan in well under 8 ms.
 */
const INDEX_SCAN_PIECE_BYTES = 64 * 1024;

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
  const scanner = new ShardIndexScanner({ fileName: name });
  // Stops the download as soon as the scanner knows the file is not an index (an HTML page, a binary).
  const stop = new AbortController();
  // Chunks are scanned apart from their arrival, yielding every few ms: a buffered body's chunks otherwise arrive
  // as one unbroken run of microtasks, and the shard headers read meanwhile could not be parsed until the end.
  const pending: Uint8Array[] = [];
  let announced = 0;
  let scanned = 0;
  let complete = false;
  const shardIds = new Map<string, number>();
  options.onLookup?.((file) => {
    for (let id = shardIds.size; id < scanner.shardsNamed; id++) {
      shardIds.set(scanner.shardName(id), id);
    }
    const id = shardIds.get(file);
    return id === undefined ? null : { ...scanner.namedInShard(id), complete };
  });
  let draining = false;
  let drained = Promise.resolve();
  const drain = async (): Promise<void> => {
    try {
      let sliceStart = performance.now();
      while (pending.length > 0 && !scanner.failure) {
        const chunk = pending[0];
        const piece = chunk.length > INDEX_SCAN_PIECE_BYTES ? chunk.subarray(0, INDEX_SCAN_PIECE_BYTES) : chunk;
        if (piece === chunk) {
          pending.shift();
        } else {
          pending[0] = chunk.subarray(INDEX_SCAN_PIECE_BYTES);
        }
        scanner.push(piece);
        scanned += piece.length;
        if (scanner.failure) {
          stop.abort();
          break;
        }
        // Only while more is to come: an index that arrived whole is read in the plan's shard order, as before.
        const more = reader.size === null || scanned < reader.size;
        for (; onShardNamed && more && announced < scanner.shardsNamed; announced++) {
          onShardNamed(scanner.shardName(announced));
        }
        if (performance.now() - sliceStart > INDEX_SCAN_SLICE_MS) {
          await yieldToEventLoop();
          sliceStart = performance.now();
        }
      }
      pending.length = 0;
    } finally {
      draining = false;
    }
  };
  try {
    // One byte past the limit lets the scanner say "too large" instead of "cut short".
    await reader.read(0, MAX_INDEX_BYTES + 1, {
      signal: stop.signal,
      onChunk: (chunk, receivedSoFar) => {
        if (receivedSoFar === chunk.length) {
          markStep('index-first-bytes');
        }
        pending.push(chunk);
        options.progress(meter.stats().bytesFetched, reader.size);
        if (!draining) {
          draining = true;
          drained = drain();
        }
      },
    });
  } catch (error) {
    if (signal.aborted || !stop.signal.aborted) {
      throw error;
    }
  }
  await drained;
  const result = scanner.finish();
  complete = result.ok;
  return { result, size: reader.size };
}

interface TaskScheduler {
  postTask(callback: () => void, options: { priority: 'background' }): Promise<void>;
}

/**
 * Lets queued tasks run first. Where the Prioritized Task Scheduling API exists (Chromium), the scan resumes as a
 * background task, after every arriving answer was handled; elsewhere after one MessageChannel round trip (nested
 * setTimeout calls are clamped to 4 ms).
 */
function yieldToEventLoop(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: Partial<TaskScheduler> }).scheduler;
  if (typeof scheduler?.postTask === 'function') {
    return scheduler.postTask(() => undefined, { priority: 'background' });
  }
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
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
