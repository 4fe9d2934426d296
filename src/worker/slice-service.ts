/**
 * Reads of local File slices on a thread of their own. In Chromium a `Blob.arrayBuffer()` copies its bytes in on the
 * thread that asked, in tasks that wait while that thread computes, so the parser worker cannot read the next slice
 * of a tensor while it counts the current one. A second worker (slice.worker.ts) reads instead and transfers each
 * slice's buffer, which costs no copy; the parser worker's statistics and the reads then overlap on two cores.
 *
 * Both ends speak over one MessagePort that the page connects (worker/client.ts): `serveSlices` in the slice worker,
 * `sliceReaderOverPort` in the parser worker, where io/file-reader.ts uses it for large reads.
 */
import type { OffThreadSlicer } from '../io/file-reader';

export type SliceRequest = { id: number; file: Blob; offset: number; end: number };
export type SliceReply = { id: number; buffer: ArrayBuffer } | { id: number; error: string };

/** The slice worker's side: every request read and answered, its buffer transferred. */
export function serveSlices(port: MessagePort): void {
  port.onmessage = async (event: MessageEvent<SliceRequest>) => {
    const { id, file, offset, end } = event.data;
    try {
      const buffer = await file.slice(offset, end).arrayBuffer();
      port.postMessage({ id, buffer } satisfies SliceReply, [buffer]);
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies SliceReply);
    }
  };
}

/** Raised when the slice worker cannot answer; the file reader then reads on its own thread. */
export class SliceServiceGone extends Error {}

/** The parser worker's side. `close` rejects what is pending, so no read waits on a thread that is gone. */
export function sliceReaderOverPort(port: MessagePort): OffThreadSlicer & { close(): void } {
  const pending = new Map<number, { resolve: (buffer: ArrayBuffer) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let closed = false;
  port.onmessage = (event: MessageEvent<SliceReply>) => {
    const reply = event.data;
    const entry = pending.get(reply.id);
    if (!entry) {
      return;
    }
    pending.delete(reply.id);
    if ('buffer' in reply) {
      entry.resolve(reply.buffer);
    } else {
      entry.reject(new Error(reply.error));
    }
  };
  return {
    read(file, offset, end) {
      if (closed) {
        return Promise.reject(new SliceServiceGone('The slice reader is closed.'));
      }
      const id = nextId++;
      return new Promise<ArrayBuffer>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        port.postMessage({ id, file, offset, end } satisfies SliceRequest);
      });
    },
    close() {
      closed = true;
      for (const entry of pending.values()) {
        entry.reject(new SliceServiceGone('The slice reader stopped.'));
      }
      pending.clear();
      port.close();
    },
  };
}
