/**
 * Reading a zip archive's records by range: a cache that fetches each byte once, and one record's local header and
 * data, inflated when deflated (torch.save stores its records; torch.jit.save deflates its code records).
 */
import type { ByteReader } from '../../bytes/byte-reader';
import { concatChunks } from '../../bytes/concat';
import { MAX_PICKLE_BYTES } from './checkpoint-limits';
import { LOCAL_HEADER_SIZE, readLocalHeader, ZipError, type LocalHeader, type ZipEntry } from './zip-directory';

/** Byte ranges of one source, each fetched once: later reads inside an earlier range cost nothing. */
export class RangeCache {
  private readonly chunks: Array<{ start: number; bytes: Uint8Array }> = [];
  bytesRead = 0;
  readonly cheap: boolean;

  constructor(
    private readonly reader: ByteReader,
    first: Uint8Array,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.chunks.push({ start: 0, bytes: first });
    this.cheap = reader.cheapReads === true;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    for (const chunk of this.chunks) {
      if (offset >= chunk.start && offset + length <= chunk.start + chunk.bytes.length) {
        return chunk.bytes.subarray(offset - chunk.start, offset - chunk.start + length);
      }
    }
    if (offset <= this.chunks[0].bytes.length) {
      // Overlaps the bytes held from 0: extend those.
      return (await this.prefix(offset + length)).subarray(offset, offset + length);
    }
    const bytes = await this.gather(offset, offset + length);
    this.chunks.push({ start: offset, bytes });
    return bytes;
  }

  /** Bytes from 0, as many as are already held contiguously (the first read, possibly extended). */
  held(): Uint8Array {
    return this.chunks[0].bytes;
  }

  /** Extends the bytes held from 0 to `length` (fewer at the end of the source), reading only what is missing. */
  async prefix(length: number): Promise<Uint8Array> {
    const have = this.chunks[0].bytes;
    if (have.length >= length) {
      return have.subarray(0, length);
    }
    const joined = await this.gather(0, length);
    this.chunks[0] = { start: 0, bytes: joined };
    return joined;
  }

  /**
   * Bytes [start, end) (fewer at the end of the source): what the held chunks cover is copied from them, and only
   * the gaps between them are read, so no byte of the source is fetched (or counted) twice.
   */
  private async gather(start: number, end: number): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let total = 0;
    let at = start;
    while (at < end) {
      const holding = this.chunks.find((chunk) => chunk.start <= at && at < chunk.start + chunk.bytes.length);
      if (holding) {
        const stop = Math.min(end, holding.start + holding.bytes.length);
        parts.push(holding.bytes.subarray(at - holding.start, stop - holding.start));
        total += stop - at;
        at = stop;
        continue;
      }
      const gapEnd = this.chunks.reduce(
        (nearest, chunk) => (chunk.start > at && chunk.start < nearest ? chunk.start : nearest),
        end,
      );
      const bytes = await this.reader.read(at, gapEnd - at, { signal: this.signal });
      this.bytesRead += bytes.length;
      parts.push(bytes);
      total += bytes.length;
      if (bytes.length < gapEnd - at) {
        break; // The end of the source.
      }
      at = gapEnd;
    }
    return concatChunks(parts, total);
  }
}

/**
 * Bytes that hold a record's local header and its data: torch pads the local extra to a 64-byte boundary, so
 * 30 + name + 128 covers it; a longer extra costs one more read.
 */
export function recordReadGuess(entry: ZipEntry): number {
  return LOCAL_HEADER_SIZE + entry.name.length * 3 + 128 + entry.compressedSize;
}

/**
 * A record's local header and data (inflated when deflated), read through the cache from `span` bytes at its local
 * header, more when its extra field is longer than guessed.
 */
export async function readRecord(
  cache: RangeCache,
  entry: ZipEntry,
  size: number,
  span = recordReadGuess(entry),
  inflateLimit = MAX_PICKLE_BYTES,
): Promise<{ local: LocalHeader; bytes: Uint8Array }> {
  const at = entry.localHeaderOffset;
  let record = await cache.read(at, Math.min(size - at, span));
  const local = readLocalHeader(record);
  // A local header whose name or extra length is a lie puts the data past the file: refused before any read there.
  if (at + local.dataOffset + entry.compressedSize > size) {
    throw new ZipError(`${entry.name} runs past the end of the file`);
  }
  if (local.dataOffset + entry.compressedSize > record.length) {
    record = await cache.read(at, local.dataOffset + entry.compressedSize);
  }
  if (local.dataOffset + entry.compressedSize > record.length) {
    throw new ZipError(`${entry.name} runs past the end of the file`);
  }
  if (entry.method !== 0 && entry.method !== 8) {
    throw new ZipError(`${entry.name} uses compression method ${entry.method}, which torch cannot read`);
  }
  const stored = record.subarray(local.dataOffset, local.dataOffset + entry.compressedSize);
  return { local, bytes: entry.method === 8 ? await inflate(stored, entry.name, inflateLimit) : stored };
}

/** A deflated record's bytes, up to `limit` (a deflate bomb stops there, its stream cancelled). */
async function inflate(bytes: Uint8Array, name: string, limit: number): Promise<Uint8Array> {
  if (typeof DecompressionStream === 'undefined') {
    throw new ZipError(`${name} is deflate-compressed and this browser cannot decompress it`);
  }
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  const chunks: Uint8Array[] = [];
  let total = 0;
  const streamReader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await streamReader.read();
      if (done) {
        break;
      }
      total += value.length;
      if (total > limit) {
        void streamReader.cancel();
        throw new ZipError(`${name} inflates past ${limit} bytes`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ZipError) {
      throw error;
    }
    throw new ZipError(`${name} does not inflate: ${(error as Error).message}`);
  }
  return concatChunks(chunks, total);
}
