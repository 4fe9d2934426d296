/**
 * Drives a ByteReader through the two reads a header needs: the length prefix (plus, for remote sources, a
 * speculative prefix that usually holds the whole header) and then exactly the rest of the header.
 * The data region is never read. Memory for the header grows only with the bytes the source actually delivers.
 */
import type { ByteReader } from './bytes/byte-reader';
import { MAX_HEADER_LENGTH, MAX_HEADER_LENGTH_OVERRIDE } from './limits';
import type { ParseOutcome, TensorColumns } from './model';
import { parseFileHead, readLengthPrefix } from './parse/parse-header';
import { previewEntries } from './parse/prefix-preview';

/** Bytes read for content sniffing when the length prefix is implausible (LFS pointers, HTML, zip, GGUF…). */
export const SNIFF_BYTES = 512;

/** Rows sent ahead as a preview while a big header is still arriving or being parsed: about two screens. */
export const PREVIEW_ROWS = 60;

/** Headers smaller than this parse faster than a preview round trip would paint, so no preview is sent. */
export const PREVIEW_MIN_HEADER_BYTES = 1_000_000;

/** For cheap (local) readers, the first slice of a big header read on its own, to paint its rows early. */
export const PREVIEW_SLICE_BYTES = 256 * 1024;

export interface LoadHeaderOptions {
  signal?: AbortSignal;
  allowOversizedHeader?: boolean;
  onProgress?: (bytesRead: number, bytesTotal: number | null) => void;
  onPreview?: (rows: TensorColumns) => void;
}

export interface LoadedHeader {
  outcome: ParseOutcome;
  /** The 8 + N header bytes actually used (for "download raw header"), or what was read of a rejected file. */
  head: Uint8Array;
  /** Bytes this load read from the source (8 + N for a valid local file). */
  bytesRead: number;
}

export async function loadHeader(reader: ByteReader, options: LoadHeaderOptions = {}): Promise<LoadedHeader> {
  const { signal } = options;
  const first = await reader.read(0, reader.preferredFirstRead, { signal });
  let bytesRead = first.length;
  // A reader returns fewer bytes than asked only at the end of the source: a short first read is the whole file,
  // so a source that never said its size cannot claim a header it does not have.
  let size = reader.size ?? (first.length < reader.preferredFirstRead ? first.length : null);
  options.onProgress?.(bytesRead, null);

  if (first.length < 8) {
    return { outcome: parseFileHead(first, size ?? first.length), head: first, bytesRead };
  }
  const prefix = readLengthPrefix(first);
  const limit = options.allowOversizedHeader ? MAX_HEADER_LENGTH_OVERRIDE : MAX_HEADER_LENGTH;
  const fitsFile = size === null || prefix.length + 8 <= size;
  if (!prefix.exact || prefix.length > limit || !fitsFile) {
    // Not a header we will read: look at a few more bytes so the finding can say what the file really is.
    let sniffed = first;
    if (first.length < SNIFF_BYTES && (size === null || size > first.length)) {
      const more = await reader.read(first.length, SNIFF_BYTES - first.length, { signal });
      sniffed = concat(first, more);
      bytesRead += more.length;
    }
    return {
      outcome: parseFileHead(sniffed, size ?? sniffed.length, { allowOversizedHeader: options.allowOversizedHeader }),
      head: sniffed,
      bytesRead,
    };
  }

  const headLength = 8 + prefix.length;
  let head: Uint8Array;
  if (first.length >= headLength) {
    head = first.subarray(0, headLength);
  } else {
    // The buffer grows with the bytes that actually arrive, never ahead of them: a server (or a remote size it
    // claimed) that promises a 100 MB header and then sends 16 bytes costs 16 bytes, not 100 MB.
    const growing = new GrowingBytes(first, headLength);
    let alreadyHave = first.length;
    let previewSent = false;
    const wantsPreview = options.onPreview !== undefined && prefix.length >= PREVIEW_MIN_HEADER_BYTES;
    if (wantsPreview && reader.cheapReads) {
      // Still exactly 8 + N bytes in total: the header is read in two slices, and the first one paints rows.
      const slice = await reader.read(alreadyHave, PREVIEW_SLICE_BYTES, { signal });
      growing.write(alreadyHave, slice);
      alreadyHave += slice.length;
      bytesRead += slice.length;
      previewSent = true;
      options.onPreview?.(previewEntries(growing.bytes().subarray(8), PREVIEW_ROWS));
    }
    const restStart = alreadyHave;
    const rest = await reader.read(restStart, headLength - restStart, {
      signal,
      onChunk: (chunk, receivedSoFar) => {
        // Copy as bytes arrive so the preview scan sees a growing prefix of the header.
        growing.write(restStart + receivedSoFar - chunk.length, chunk);
        options.onProgress?.(restStart + receivedSoFar, headLength);
        if (wantsPreview && !previewSent && receivedSoFar > 64 * 1024) {
          previewSent = true;
          options.onPreview?.(previewEntries(growing.bytes().subarray(8), PREVIEW_ROWS));
        }
      },
    });
    growing.write(restStart, rest);
    bytesRead += rest.length;
    // Fewer bytes than N when the source ended early: the parser then reports the header as running past the end,
    // and a source that never said its size has now shown it.
    head = growing.bytes(restStart + rest.length);
    if (head.length < headLength && size === null) {
      size = head.length;
    }
    if (wantsPreview && !previewSent) {
      options.onPreview?.(previewEntries(head.subarray(8), PREVIEW_ROWS));
    }
  }
  options.onProgress?.(bytesRead, headLength);
  const outcome = parseFileHead(head, reader.size ?? size, { allowOversizedHeader: options.allowOversizedHeader });
  return { outcome, head, bytesRead };
}

/**
 * A byte buffer that is written at increasing offsets and grows (doubling, capped at `limit`) only as far as the
 * bytes written so far, so its memory is at most twice what the source has delivered.
 */
class GrowingBytes {
  private buffer: Uint8Array;
  private written: number;

  constructor(
    initial: Uint8Array,
    private readonly limit: number,
  ) {
    this.buffer = initial.slice();
    this.written = initial.length;
  }

  write(at: number, chunk: Uint8Array): void {
    const end = Math.min(this.limit, at + chunk.length);
    if (end <= at) {
      return;
    }
    if (end > this.buffer.length) {
      const grown = new Uint8Array(Math.min(this.limit, Math.max(end, this.buffer.length * 2)));
      grown.set(this.buffer.subarray(0, this.written));
      this.buffer = grown;
    }
    this.buffer.set(end - at === chunk.length ? chunk : chunk.subarray(0, end - at), at);
    this.written = Math.max(this.written, end);
  }

  /** The first `length` bytes written (all of them by default), without a copy. */
  bytes(length = this.written): Uint8Array {
    return this.buffer.subarray(0, Math.min(length, this.written));
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
