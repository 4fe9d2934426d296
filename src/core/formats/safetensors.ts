/**
 * The safetensors reader: the 8-byte length prefix (plus, for remote sources, a speculative prefix that usually
 * holds the whole header), then exactly the rest of the header. The data region is never read. Memory for the
 * header grows only with the bytes the source actually delivers.
 */
import { MAX_HEADER_LENGTH, MAX_HEADER_LENGTH_OVERRIDE, PREVIEW_ROWS } from '../limits';
import { parseFileHead } from '../parse/parse-header';
import { readLengthPrefix } from '../parse/length-prefix';
import { previewEntries } from '../parse/prefix-preview';
import type { SourceBytes } from './source-bytes';
import type { FormatReader, LoadedHeader, LoadHeaderOptions } from './format-reader';

/** Headers smaller than this parse faster than a preview round trip would paint, so no preview is sent. */
const PREVIEW_MIN_HEADER_BYTES = 1_000_000;

/** For cheap (local) readers, the first slice of a big header read on its own, to paint its rows early. */
const PREVIEW_SLICE_BYTES = 256 * 1024;

/** Streamed bytes after which a remote header paints its preview without waiting for the rest. */
const PREVIEW_STREAM_BYTES = 64 * 1024;

/** The length prefix: a u64 read before anything else. */
const PREFIX_BYTES = 8;

export const safetensorsFormat: FormatReader = {
  id: 'safetensors',
  extensions: ['.safetensors', '.sft'],
  // The Hugging Face convention (huggingface_hub's `{prefix}-{n:05d}-of-{total:05d}`, huggingface.js's
  // RE_SAFETENSORS_SHARD_FILE also takes `_` and six digits), with transformers' index beside the shards.
  shardNaming: [{ extension: 'safetensors', separators: '-_', digits: [5, 6], indexSuffix: '.safetensors.index.json' }],
  sniffBytes: PREFIX_BYTES,
  sniff: (head, size, options) => claimsHeader(head, size, options.allowOversizedHeader === true),
  read: readSafetensors,
};

/**
 * Whether the first 8 bytes give a header length this reader will read: exact, within the cap (the larger
 * "parse anyway" cap when the user asked for it), and inside the file when its size is known.
 */
function claimsHeader(head: Uint8Array, size: number | null, allowOversized = false): boolean {
  if (head.length < PREFIX_BYTES) {
    return false;
  }
  const prefix = readLengthPrefix(head);
  const limit = allowOversized ? MAX_HEADER_LENGTH_OVERRIDE : MAX_HEADER_LENGTH;
  return prefix.exact && prefix.length <= limit && (size === null || prefix.length + PREFIX_BYTES <= size);
}

async function readSafetensors(source: SourceBytes, options: LoadHeaderOptions): Promise<LoadedHeader> {
  const first = source.head;
  const headLength = PREFIX_BYTES + readLengthPrefix(first).length;
  let head: Uint8Array;
  if (first.length >= headLength) {
    head = first.subarray(0, headLength);
  } else {
    // The buffer grows with the bytes that actually arrive, never ahead of them: a server (or a remote size it
    // claimed) that promises a 100 MB header and then sends 16 bytes costs 16 bytes, not 100 MB.
    const growing = new GrowingBytes(first, headLength);
    let alreadyHave = first.length;
    let previewSent = false;
    const wantsPreview = options.onPreview !== undefined && headLength - PREFIX_BYTES >= PREVIEW_MIN_HEADER_BYTES;
    const sendPreview = (bytes: Uint8Array) => {
      previewSent = true;
      options.onPreview?.(previewEntries(bytes.subarray(PREFIX_BYTES), PREVIEW_ROWS));
    };
    if (wantsPreview && source.cheapReads) {
      // Still exactly 8 + N bytes in total: the header is read in two slices, and the first one paints rows.
      const slice = await source.stream(alreadyHave, PREVIEW_SLICE_BYTES, undefined);
      growing.write(alreadyHave, slice);
      alreadyHave += slice.length;
      sendPreview(growing.bytes());
    }
    const restStart = alreadyHave;
    const rest = await source.stream(restStart, headLength - restStart, (chunk, receivedSoFar) => {
      // Copy as bytes arrive so the preview scan sees a growing prefix of the header.
      growing.write(restStart + receivedSoFar - chunk.length, chunk);
      options.onProgress?.(restStart + receivedSoFar, headLength);
      if (wantsPreview && !previewSent && receivedSoFar > PREVIEW_STREAM_BYTES) {
        sendPreview(growing.bytes());
      }
    });
    growing.write(restStart, rest);
    // Fewer bytes than N when the source ended early: the parser then reports the header as running past the end,
    // and a source that never said its size has now shown it.
    head = growing.bytes(restStart + rest.length);
    if (head.length < headLength && source.size === null) {
      source.learnSize(head.length);
    }
    if (wantsPreview && !previewSent) {
      sendPreview(head);
    }
  }
  options.onProgress?.(source.bytesRead, headLength);
  const outcome = parseFileHead(head, source.size, { allowOversizedHeader: options.allowOversizedHeader });
  return { outcome, head, bytesRead: source.bytesRead };
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
