/**
 * Large buffers whose pages were touched ahead of need. A fresh ArrayBuffer's pages are mapped on first write, and
 * in a virtual machine each 4 KiB page fault costs microseconds: copying 9 MB into fresh memory took 26 ms where
 * the same copy into touched memory took 0.5 ms (docs/performance.md). Warming while the worker waits on the
 * network moves that cost out of the load's critical path.
 */

/** A warmed buffer serves a request of at least this fraction of its size; smaller ones would strand memory. */
const MIN_USE_FRACTION = 0.5;
/** Bytes between writes when touching a buffer: the smallest page size of the platforms we run on. */
const PAGE_BYTES = 4096;

export class WarmBuffers {
  private readonly buffers: ArrayBuffer[] = [];

  /** Allocates a buffer of `byteLength` and writes one byte per page, so later writes find its pages mapped. */
  warm(byteLength: number): void {
    if (!(byteLength > 0)) {
      return;
    }
    const buffer = new ArrayBuffer(byteLength);
    const bytes = new Uint8Array(buffer);
    for (let at = 0; at < byteLength; at += PAGE_BYTES) {
      bytes[at] = 0;
    }
    this.buffers.push(buffer);
  }

  /** The smallest warmed buffer that holds `byteLength` bytes without stranding most of itself, else a fresh one. */
  take(byteLength: number): ArrayBuffer {
    let best = -1;
    this.buffers.forEach((buffer, index) => {
      const fits = buffer.byteLength >= byteLength && byteLength >= buffer.byteLength * MIN_USE_FRACTION;
      if (fits && (best < 0 || buffer.byteLength < this.buffers[best].byteLength)) {
        best = index;
      }
    });
    return best < 0 ? new ArrayBuffer(byteLength) : this.buffers.splice(best, 1)[0];
  }

  /** Sizes of the warmed buffers not taken yet. */
  get sizes(): number[] {
    return this.buffers.map((buffer) => buffer.byteLength);
  }

  /** Lets go of every warmed buffer not taken. */
  clear(): void {
    this.buffers.length = 0;
  }
}
