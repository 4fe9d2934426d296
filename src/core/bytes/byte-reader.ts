/**
 * The one byte-source shape the header loader reads from: a local File (io/file-reader.ts) or an HTTP URL read
 * with Range requests (io/http-reader.ts). Defined here so core code can drive reads without knowing the source.
 */
export interface ReadOptions {
  signal?: AbortSignal;
  /**
   * Called as bytes arrive (streaming parse and progress): `chunk` holds only the newly received bytes, and
   * `receivedSoFar` counts every byte of this read so far, `chunk` included.
   */
  onChunk?: (chunk: Uint8Array, receivedSoFar: number) => void;
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
}
