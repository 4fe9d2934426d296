/**
 * One load's view of a ByteReader for a format reader: the bytes already held from offset 0, ranges read once and
 * served again for free, reads at the end of the file once its size is known, and the count of bytes this load
 * read. Every byte still goes through the ByteReader, so the reader's request and byte counters stay exact.
 */
import type { ByteReader, ReadOptions } from '../bytes/byte-reader';
import { SourceError } from '../errors';

export class SourceBytes {
  private held: Uint8Array;
  private readonly ranges: Array<{ start: number; bytes: Uint8Array }> = [];
  private read_ = 0;
  private learnedSize: number | null;

  constructor(
    readonly reader: ByteReader,
    first: Uint8Array,
    readonly signal: AbortSignal | undefined,
  ) {
    this.held = first;
    this.read_ = first.length;
    // A reader returns fewer bytes than asked only at the end of the source: a short first read is the whole file,
    // so a source that never said its size cannot claim more than it has.
    this.learnedSize = reader.size ?? (first.length < reader.preferredFirstRead ? first.length : null);
  }

  /** Reads the first bytes of `reader` (its preferred first read) and wraps them. */
  static async open(reader: ByteReader, signal?: AbortSignal): Promise<SourceBytes> {
    const first = await reader.read(0, reader.preferredFirstRead, { signal });
    return new SourceBytes(reader, first, signal);
  }

  /** The bytes held from offset 0 (the first read, and whatever `prefix` added). */
  get head(): Uint8Array {
    return this.held;
  }

  /** The file's size: what the reader reported, or learned from a read that ended early; null while unknown. */
  get size(): number | null {
    return this.reader.size ?? this.learnedSize;
  }

  /** Bytes this load has read from the source so far. */
  get bytesRead(): number {
    return this.read_;
  }

  /** True when an extra read costs nothing worth counting (a local slice). */
  get cheapReads(): boolean {
    return this.reader.cheapReads === true;
  }

  /** Records that the source ended at `size` (a read came back short and the reader never said its size). */
  learnSize(size: number): void {
    if (this.reader.size === null) {
      this.learnedSize = size;
    }
  }

  /** Extends the bytes held from 0 to `length` (fewer at the end of the source), reading only what is missing. */
  async prefix(length: number): Promise<Uint8Array> {
    const have = this.held;
    if (have.length >= length) {
      return have.subarray(0, length);
    }
    const more = await this.fetch(have.length, length - have.length);
    const joined = new Uint8Array(have.length + more.length);
    joined.set(have);
    joined.set(more, have.length);
    this.held = joined;
    return joined;
  }

  /** `length` bytes from `offset` (fewer at the end of the source); ranges inside bytes already held cost nothing. */
  async read(offset: number, length: number): Promise<Uint8Array> {
    for (const range of [{ start: 0, bytes: this.held }, ...this.ranges]) {
      if (offset >= range.start && offset + length <= range.start + range.bytes.length) {
        return range.bytes.subarray(offset - range.start, offset - range.start + length);
      }
    }
    const bytes = await this.fetch(offset, length);
    this.ranges.push({ start: offset, bytes });
    return bytes;
  }

  /**
   * `length` bytes from `offset`, streamed through `onChunk` and not kept: for one big read the caller copies as it
   * arrives (a safetensors header), so the bytes are not held twice.
   */
  async stream(offset: number, length: number, onChunk: ReadOptions['onChunk']): Promise<Uint8Array> {
    return this.fetch(offset, length, onChunk);
  }

  /** The last `length` bytes of the file (all of it when shorter); the size must be known (it is after `open`). */
  async readTail(length: number): Promise<Uint8Array> {
    const size = this.size;
    if (size === null) {
      throw new SourceError('internal', 'The file size is unknown, so its end cannot be read. This is a bug.');
    }
    const start = Math.max(0, size - length);
    return this.read(start, size - start);
  }

  private async fetch(offset: number, length: number, onChunk?: ReadOptions['onChunk']): Promise<Uint8Array> {
    const bytes = await this.reader.read(offset, length, { signal: this.signal, onChunk });
    this.read_ += bytes.length;
    return bytes;
  }
}
