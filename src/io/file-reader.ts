/**
 * ByteReader over a local File/Blob. `Blob.slice` is lazy, so a read touches only the asked bytes: a header load
 * reads 8 bytes, then exactly N more, whatever the file's size (a 70 GB shard costs 8 + N bytes of IO).
 */
import type { ByteReader, ReadOptions, ReadPurpose, RequestObserver } from '../core/bytes/byte-reader';
import { SourceError } from '../core/errors';

/** The length prefix: the first read asks for exactly it, so a local load reads 8 + N bytes and nothing more. */
const LOCAL_FIRST_READ = 8;

/** Values reads at least this large go to the off-thread slicer when there is one; a smaller one costs less than the hop. */
const OFF_THREAD_MIN_BYTES = 1024 * 1024;

/** Reads `[offset, end)` of a File on another thread (worker/slice-service.ts), resolving with its own buffer. */
export interface OffThreadSlicer {
  read(file: Blob, offset: number, end: number): Promise<ArrayBuffer>;
}

let offThreadSlicer: OffThreadSlicer | null = null;

/** Installed by the parser worker when the page gave it a slice worker; null reads on this thread again. */
export function setOffThreadSlicer(slicer: OffThreadSlicer | null): void {
  offThreadSlicer = slicer;
}

/**
 * A slice read: tensor values (the reads the statistics overlap) through the slicer, everything else on this thread,
 * where a header read has nothing to overlap with and a third busy thread would only crowd the page's own work. A
 * slicer that fails leaves the read to this thread.
 */
async function sliceBytes(
  file: Blob,
  offset: number,
  end: number,
  purpose: ReadPurpose | undefined,
): Promise<ArrayBuffer> {
  const slicer = offThreadSlicer;
  if (slicer !== null && purpose === 'values' && end - offset >= OFF_THREAD_MIN_BYTES) {
    try {
      return await slicer.read(file, offset, end);
    } catch {
      // The same read below either succeeds or fails with the File's own error.
    }
  }
  return file.slice(offset, end).arrayBuffer();
}

export function createFileReader(file: Blob & { name?: string }): ByteReader {
  const name = file.name && file.name !== '' ? file.name : 'file';
  let requests = 0;
  let bytesFetched = 0;
  let observer: RequestObserver | null = null;

  async function read(offset: number, length: number, options: ReadOptions = {}): Promise<Uint8Array> {
    checkRange(offset, length);
    const { signal, onChunk } = options;
    throwIfAborted(signal);
    const end = Math.min(file.size, offset + length);
    if (end <= offset) {
      return new Uint8Array(0);
    }
    requests++;
    // The load's meter counts the bytes by what they were read for, as a remote reader's requests are.
    const tally = observer?.(options.purpose ?? null) ?? null;
    let buffer: ArrayBuffer;
    try {
      buffer = await abortable(sliceBytes(file, offset, end, options.purpose), signal);
    } catch (error) {
      if (error instanceof SourceError) {
        throw error;
      }
      throw unreadable(name, error);
    } finally {
      tally?.end();
    }
    const bytes = new Uint8Array(buffer);
    bytesFetched += bytes.length;
    tally?.bytes(bytes.length);
    if (bytes.length !== end - offset) {
      // The file shrank after it was chosen; Blob reads of a changed file normally fail, but be explicit.
      throw unreadable(name, new Error(`expected ${end - offset} bytes, got ${bytes.length}`));
    }
    onChunk?.(bytes, bytes.length);
    return options.streamOnly ? new Uint8Array(0) : bytes;
  }

  return {
    name,
    size: file.size,
    preferredFirstRead: LOCAL_FIRST_READ,
    cheapReads: true,
    read,
    stats: () => ({ requests, bytesFetched }),
    observe: (next) => {
      observer = next;
    },
  };
}

function checkRange(offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new SourceError('internal', `Invalid read range (offset ${offset}, length ${length}). This is a bug.`);
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SourceError('aborted', 'Loading was cancelled.');
  }
}

/**
 * A Blob read (or any work that cannot be cancelled) need not be waited for: reject as soon as the signal fires, or
 * at once when it already has, and let the work finish unobserved.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) {
    return promise;
  }
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new SourceError('aborted', 'Loading was cancelled.'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new SourceError('aborted', 'Loading was cancelled.'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function unreadable(name: string, cause: unknown): SourceError {
  const detail = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
  return new SourceError(
    'file-unreadable',
    `Could not read “${name}”${detail}. The file may have been moved, deleted or changed since it was chosen, ` +
      'or permission to read it was revoked. Choose the file again.',
  );
}
