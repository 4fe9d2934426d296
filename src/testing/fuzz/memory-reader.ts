/**
 * Test-only ByteReaders over in-memory (or synthesized) bytes that behave like the app's two real readers, and
 * record every read, so tests can drive `loadHeader` through the length-prefix, sniff and streaming paths without
 * a browser, and assert what was asked for.
 */
import type { ByteReader, ReadOptions } from '../../core/bytes/byte-reader';
import { SourceError } from '../../core/errors';

/**
 * - `local`: a File — size known up front, first read 8 bytes (io/file-reader.ts).
 * - `remote`: a Range server — size learned from the first response's Content-Range, 128 KiB first read.
 * - `remote-unknown`: a Range server answering `bytes a-b/*` — the size is never known.
 */
export type ReaderMode = 'local' | 'remote' | 'remote-unknown';

/** The remote reader's speculative first read (io/http-reader.ts DEFAULT_FIRST_READ_BYTES). */
export const REMOTE_FIRST_READ = 128 * 1024;

/** Bytes per onChunk call for remote modes: about what a network stream delivers at once. */
const REMOTE_CHUNK_BYTES = 64 * 1024;

export interface ByteSource {
  readonly size: number;
  /** Bytes [start, end), end ≤ size. */
  slice(start: number, end: number): Uint8Array;
}

function bytesSource(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, slice: (start, end) => bytes.slice(start, end) };
}

/** A sparse file: `head` followed by zeros up to `size`, without allocating the zeros. */
export function sparseSource(head: Uint8Array, size: number): ByteSource {
  return {
    size,
    slice: (start, end) => {
      const out = new Uint8Array(end - start);
      if (start < head.length) {
        out.set(head.subarray(start, Math.min(end, head.length)));
      }
      return out;
    },
  };
}

export interface RecordedRead {
  offset: number;
  length: number;
  returned: number;
}

export interface RecordingReader extends ByteReader {
  readonly reads: RecordedRead[];
}

export interface MemoryReaderOptions {
  /** The size a remote source claims once it has answered (a lying Content-Range total); defaults to the truth. */
  claimedSize?: number;
  /** Called before each read is served (e.g. to sample memory use). */
  beforeRead?: (offset: number, length: number) => void;
  /** The file name the reader reports (a format is picked by name when its content does not say). */
  name?: string;
}

export function memoryReader(
  source: ByteSource | Uint8Array,
  mode: ReaderMode,
  options: MemoryReaderOptions = {},
): RecordingReader {
  const src = source instanceof Uint8Array ? bytesSource(source) : source;
  const reads: RecordedRead[] = [];
  let answered = false;
  let bytesFetched = 0;

  async function read(offset: number, length: number, readOptions: ReadOptions = {}): Promise<Uint8Array> {
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
      throw new SourceError('internal', `Invalid read range (offset ${offset}, length ${length}).`);
    }
    if (readOptions.signal?.aborted) {
      throw new SourceError('aborted', 'Loading was cancelled.');
    }
    options.beforeRead?.(offset, length);
    await Promise.resolve();
    answered = true;
    const end = Math.min(src.size, offset + length);
    const bytes = end > offset ? src.slice(offset, end) : new Uint8Array(0);
    reads.push({ offset, length, returned: bytes.length });
    bytesFetched += bytes.length;
    if (readOptions.onChunk) {
      const step = mode === 'local' ? Math.max(1, bytes.length) : REMOTE_CHUNK_BYTES;
      for (let at = 0; at < bytes.length; at += step) {
        const chunk = bytes.subarray(at, Math.min(bytes.length, at + step));
        readOptions.onChunk(chunk, at + chunk.length);
      }
    }
    return readOptions.streamOnly ? new Uint8Array(0) : bytes;
  }

  return {
    name: options.name ?? 'memory.safetensors',
    get size() {
      if (mode === 'local') {
        return src.size;
      }
      if (mode === 'remote' && answered) {
        return options.claimedSize ?? src.size;
      }
      return null;
    },
    preferredFirstRead: mode === 'local' ? 8 : REMOTE_FIRST_READ,
    cheapReads: mode === 'local',
    read,
    stats: () => ({ requests: reads.length, bytesFetched }),
    reads,
  };
}
