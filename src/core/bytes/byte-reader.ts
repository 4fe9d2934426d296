/**
 * The one byte-source shape the header loader reads from: a local File (io/file-reader.ts) or an HTTP URL read
 * with Range requests (io/http-reader.ts). Defined here so core code can drive reads without knowing the source.
 */
/**
 * What a request was for, so the remote figures can say it (io/sources/meter.ts): the model's header, a shard
 * index, sidecars (config.json, adapter_config.json), the analyses' data reads, the Hub's API (repository listing,
 * commit lookup), a first attempt abandoned because the file changed mid-load, and tensor values read on a click.
 */
export type ReadPurpose = 'header' | 'index' | 'sidecars' | 'analysis' | 'hub-api' | 'restart' | 'values';

/** One request as a meter sees it: bytes as they arrive, then its end (answered, failed or cancelled). */
export interface RequestTally {
  bytes(count: number): void;
  end(): void;
}

/** Told of every request a reader sends: `purpose` is the read's own, or null for the reader's default. */
export type RequestObserver = (purpose: ReadPurpose | null) => RequestTally;

export interface ReadOptions {
  signal?: AbortSignal;
  /** What this read is for when it differs from the reader's own purpose (an analysis reading tensor data). */
  purpose?: ReadPurpose;
  /**
   * Called as bytes arrive (streaming parse and progress): `chunk` holds only the newly received bytes, and
   * `receivedSoFar` counts every byte of this read so far, `chunk` included. `chunk` is lent: a remote reader
   * refills its memory with the next bytes (io/read-buffer.ts), so copy what must outlive the call.
   */
  onChunk?: (chunk: Uint8Array, receivedSoFar: number) => void;
  /**
   * The bytes go to `onChunk` only and the read resolves to an empty array: a streaming parse that keeps its own
   * state need not have the whole body held beside it and copied once more at the end (a 60 MB index, say).
   */
  streamOnly?: boolean;
}

export interface ByteReader {
  /** Display name (file name or last URL path segment). */
  readonly name: string;
  /** Total size in bytes; null until a remote source has answered its first request. */
  readonly size: number | null;
  /**
   * How many bytes the first read should ask for: 8 for local files (so exactly 8 + N bytes are read), a
   * speculative prefix for remote files (so most headers arrive in one request).
   */
  readonly preferredFirstRead: number;
  /**
   * True when an extra read costs nothing worth counting (a local slice), so the loader may split a big header
   * read in two to paint the first rows early. Remote readers stream instead and leave this unset.
   */
  readonly cheapReads?: boolean;
  /**
   * Reads `length` bytes from `offset`. Returns fewer bytes only when the source ends first.
   * Rejects with a SourceError (core/errors.ts) on IO failures.
   */
  read(offset: number, length: number, options?: ReadOptions): Promise<Uint8Array>;
  /** Requests made and bytes received so far. */
  stats(): { requests: number; bytesFetched: number };
  /** Reports each request (a local file's each slice) to `observer` (one observer; a later call replaces it). */
  observe?(observer: RequestObserver): void;
}

/**
 * `length` bytes of `reader` from `start`, as a reader of their own (a Distributed Checkpoint's chunk or bytes entry,
 * each a torch.save archive), each read counted under `purpose`.
 */
export function sliceReader(reader: ByteReader, start: number, length: number, purpose: ReadPurpose): ByteReader {
  return {
    name: reader.name,
    size: length,
    preferredFirstRead: reader.preferredFirstRead,
    ...(reader.cheapReads !== undefined && { cheapReads: reader.cheapReads }),
    read: (offset, count, options) => {
      const end = Math.min(length, offset + count);
      return end <= offset
        ? Promise.resolve(new Uint8Array(0))
        : reader.read(start + offset, end - offset, { ...options, purpose });
    },
    stats: () => reader.stats(),
  };
}
