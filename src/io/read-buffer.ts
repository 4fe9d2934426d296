/**
 * Where one read's bytes land. Fetch bodies are byte streams, so a read can hand the stream the memory to fill
 * (a BYOB reader, WHATWG Streams `ReadableStreamBYOBReader`) instead of taking a fresh buffer per chunk: a kept
 * read fills its result in place (no chunk list, no copy at the end) and a streamed read refills one scratch
 * buffer. Fresh memory costs a page fault per 4 KiB on first touch, and in the VM the bench runs in each fault
 * took about 15 µs: an 8.9 MB index streamed as fresh chunks, then copied, cost the worker thousands of faults
 * (docs/performance.md, "Fresh memory per load").
 *
 * A BYOB read moves the view's buffer: the bytes come back in a new ArrayBuffer over the same memory, and a read
 * that fails never gives the buffer back.
 */
import { concatChunks } from '../core/bytes/concat';
import { MAX_IN_PLACE_READ_BYTES, STREAM_READ_BYTES } from '../core/limits';

export interface BodySink {
  /** Whether bytes may be read into `room`; if not, the stream's own chunks go to `put`. */
  readonly takesRoom: boolean;
  /** A view for the next at most `max` (> 0) bytes, when `takesRoom`. */
  room(max: number): Uint8Array;
  /** Bytes received: a view `room` gave, filled by the read (`inRoom`), or a chunk of the stream's own. */
  put(chunk: Uint8Array, inRoom: boolean): void;
  /** A read into `room` failed and took the view's buffer with it. */
  lost(): void;
}

/**
 * One read's bytes: kept (the read's result) or only streamed through `onChunk`, which must not hold on to a chunk
 * after it returns when the read streams only: the next read refills the same memory. A kept read's first read
 * goes straight into the result, sized by the range the answer holds (up to MAX_IN_PLACE_READ_BYTES; a bigger
 * result grows as its bytes arrive); later ones (the rest of a body that came in pieces) go through a scratch and
 * are copied in, so a read that fails takes no received byte with it and the caller resumes where the bytes
 * stopped.
 */
export class ReadBuffer implements BodySink {
  /** Bytes of this read received so far (and, when kept, held). */
  filled = 0;
  private target: Uint8Array | null = null;
  private readonly chunks: Uint8Array[] = [];
  private scratch: ArrayBuffer | null = null;
  /** Whether the view `room` last gave is the result's own memory (else the scratch). */
  private roomIsTarget = false;

  constructor(
    private readonly keep: boolean,
    private readonly onChunk?: (chunk: Uint8Array, receivedSoFar: number) => void,
  ) {}

  get takesRoom(): boolean {
    // One that took the stream's own chunks before goes on taking them.
    return this.chunks.length === 0;
  }

  room(max: number): Uint8Array {
    this.roomIsTarget = this.keep && this.target === null && this.filled + max <= MAX_IN_PLACE_READ_BYTES;
    if (this.roomIsTarget) {
      this.target = new Uint8Array(this.filled + max);
      return this.target.subarray(this.filled);
    }
    if (this.scratch === null || this.scratch.byteLength === 0) {
      this.scratch = new ArrayBuffer(this.keep ? Math.min(max, STREAM_READ_BYTES) : STREAM_READ_BYTES);
    }
    return new Uint8Array(this.scratch, 0, Math.min(max, this.scratch.byteLength));
  }

  put(chunk: Uint8Array, inRoom: boolean): void {
    if (inRoom && this.roomIsTarget) {
      this.target = new Uint8Array(chunk.buffer);
    } else {
      if (inRoom) {
        this.scratch = chunk.buffer as ArrayBuffer;
      }
      if (this.keep) {
        if (this.target === null && !inRoom) {
          this.chunks.push(chunk);
        } else {
          this.targetFor(this.filled + chunk.length).set(chunk, this.filled);
        }
      }
    }
    this.filled += chunk.length;
    this.onChunk?.(chunk, this.filled);
  }

  lost(): void {
    // The result's memory is only lent to a read while it holds no byte yet.
    if (this.roomIsTarget) {
      this.target = null;
    } else {
      this.scratch = null;
    }
  }

  /** The kept bytes (an empty array for a read that only streams). */
  bytes(): Uint8Array {
    if (!this.keep) {
      return new Uint8Array(0);
    }
    if (this.target === null) {
      return concatChunks(this.chunks, this.filled);
    }
    return this.filled === this.target.length ? this.target : this.target.slice(0, this.filled);
  }

  private targetFor(length: number): Uint8Array {
    let target = this.target;
    if (target === null) {
      target = new Uint8Array(length);
    } else if (target.length < length) {
      const grown = new Uint8Array(Math.max(length, target.length * 2));
      grown.set(target.subarray(0, this.filled));
      target = grown;
    }
    this.target = target;
    return target;
  }
}
