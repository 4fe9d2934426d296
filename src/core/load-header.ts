/**
 * Drives a ByteReader through the two reads a header needs: the length prefix (plus, for remote sources, a
 * speculative prefix that usually holds the whole header) and then exactly the rest of the header.
 * The data region is never read. Memory for the header is allocated only once the source has proven its size.
 */
import type { ByteReader } from './bytes/byte-reader';
import { MAX_HEADER_LENGTH, MAX_HEADER_LENGTH_OVERRIDE } from './limits';
import type { ParseOutcome, TensorColumns } from './model';
import { parseFileHead, readLengthPrefix } from './parse/parse-header';
import { previewEntries } from './parse/prefix-preview';

/** Bytes read for content sniffing when the length prefix is implausible (LFS pointers, HTML, zip, GGUF…). */
export const SNIFF_BYTES = 512;

/** Rows sent ahead as a preview while a big header is still arriving or being parsed. */
export const PREVIEW_ROWS = 200;

/** Headers smaller than this parse faster than a preview round trip would paint, so no preview is sent. */
export const PREVIEW_MIN_HEADER_BYTES = 1_000_000;

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
  const size = reader.size;
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
    head = new Uint8Array(headLength);
    head.set(first);
    const alreadyHave = first.length;
    let lastPreviewAt = 0;
    const wantsPreview = options.onPreview !== undefined && prefix.length >= PREVIEW_MIN_HEADER_BYTES;
    const rest = await reader.read(alreadyHave, headLength - alreadyHave, {
      signal,
      onChunk: (chunk, receivedSoFar) => {
        // Copy as bytes arrive so the preview scan sees a growing prefix of the header.
        head.set(chunk, alreadyHave + receivedSoFar - chunk.length);
        options.onProgress?.(alreadyHave + receivedSoFar, headLength);
        if (wantsPreview && lastPreviewAt === 0 && receivedSoFar > 64 * 1024) {
          lastPreviewAt = receivedSoFar;
          options.onPreview?.(previewEntries(head.subarray(8, alreadyHave + receivedSoFar), PREVIEW_ROWS));
        }
      },
    });
    head.set(rest, alreadyHave);
    bytesRead += rest.length;
    if (wantsPreview && lastPreviewAt === 0) {
      options.onPreview?.(previewEntries(head.subarray(8), PREVIEW_ROWS));
    }
  }
  options.onProgress?.(bytesRead, headLength);
  const outcome = parseFileHead(head, size, { allowOversizedHeader: options.allowOversizedHeader });
  return { outcome, head, bytesRead };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
