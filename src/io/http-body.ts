/**
 * Moving the body of one ranged answer into the read's buffer: a 206 checked against the asked range, a 200 (the
 * server ignored Range) accepted only for a small whole file, and the stream pump that stops at the asked length.
 */
import { SourceError } from '../core/errors';
import { IGNORED_RANGE_SLACK_BYTES, MAX_SERVER_MESSAGE_CHARS } from '../core/limits';
import { formatBytes } from '../core/number-format';
import { compressedError, versionOf, type Attempt } from './http-answers';
import { discardBody, parseContentRange, parseLength } from './http-util';
import { ReadBuffer, type BodySink } from './read-buffer';
import type { SameFileGuard } from './same-file-guard';

/** One ranged request's bytes: where they go, and the hooks that re-arm its timeout, tell why it stopped and count. */
export interface Transfer {
  start: number;
  end: number;
  sink: BodySink;
  arm: () => void;
  interrupted: () => SourceError | null;
  count: (bytes: number) => void;
}

/** The reader's file: its URL, the guard every answer's validators are checked by, and the size once known. */
export interface TransferFile {
  url: string;
  guard: SameFileGuard;
  setSize: (size: number) => void;
}

/** The version check of an answer; a changed file also cancels the body, which nobody will read. */
function checkVersion(file: TransferFile, response: Response, total: number | null): void {
  try {
    file.guard.check(versionOf(response, total), file.url);
  } catch (error) {
    discardBody(response);
    throw error;
  }
}

/** A body that stopped early: the user's cancel or the silence timeout ends the read; anything else is retried. */
function dropped(file: TransferFile, transfer: Transfer, message: string): Attempt {
  const stopped = transfer.interrupted();
  if (stopped) {
    throw stopped;
  }
  return { kind: 'transient', error: new SourceError('network', message, { url: file.url }) };
}

/** A 206: the bytes go to the sink if the Content-Range is the one asked for. */
export async function readPartial(file: TransferFile, response: Response, transfer: Transfer): Promise<Attempt> {
  const { url } = file;
  const { start, end, sink, arm, count } = transfer;
  const header = response.headers.get('content-range');
  const range = parseContentRange(header);
  const asked = `${start}-${end}`;
  if (range === null || range.kind !== 'range') {
    discardBody(response);
    throw new SourceError(
      'range-mismatch',
      header === null
        ? `The server answered the range ${asked} with partial content but no readable Content-Range header, so ` +
            'the bytes cannot be placed. If the server is cross-origin it must list Content-Range in ' +
            'Access-Control-Expose-Headers.'
        : `The server answered the range ${asked} with an unreadable Content-Range “${header.slice(0, MAX_SERVER_MESSAGE_CHARS)}”.`,
      { url, status: 206 },
    );
  }
  if (range.start !== start || (range.total !== null && range.end >= range.total)) {
    discardBody(response);
    throw new SourceError(
      'range-mismatch',
      `Asked the server for bytes ${asked} but it sent bytes ${range.start}-${range.end}` +
        `${range.total === null ? '' : ` of ${range.total}`}. A cache or proxy in between may be broken; try again later.`,
      { url, status: 206 },
    );
  }
  const encoding = response.headers.get('content-encoding');
  if (encoding !== null && encoding.toLowerCase() !== 'identity') {
    discardBody(response);
    throw compressedError(encoding);
  }
  checkVersion(file, response, range.total);
  if (range.total !== null) {
    file.setSize(range.total);
  }
  // A longer range than asked (some CDNs round up) is fine: keep only what was asked and cancel the rest.
  const take = Math.min(range.end, end) - start + 1;
  const pumped = await pump(response, take, sink, arm, count, range.end <= end);
  if (pumped.error !== undefined || pumped.received < take) {
    // Connection reset or body cut short: the caller resumes from the last received byte.
    return dropped(
      file,
      transfer,
      'The connection kept dropping while downloading the header. Check your connection and try again.',
    );
  }
  const eof = range.total !== null && range.end + 1 >= range.total;
  return { kind: 'data', eof };
}

/**
 * A 200 means the server ignored Range and is sending the whole file. Accept it only when the whole file is
 * small (it ends within the asked bytes plus IGNORED_RANGE_SLACK_BYTES); otherwise cancel at once.
 */
export async function readIgnoredRange(file: TransferFile, response: Response, transfer: Transfer): Promise<Attempt> {
  const { url } = file;
  const { start, end, sink, arm, count } = transfer;
  const bound = end + 1 + IGNORED_RANGE_SLACK_BYTES;
  const declared = parseLength(response.headers.get('content-length'));
  // A 200 from a server that honoured earlier ranges usually means a stale validator: the file was replaced.
  checkVersion(file, response, declared);
  const refuse = (): SourceError =>
    new SourceError(
      'range-ignored',
      `This server ignores Range requests; refusing to download ${declared === null ? 'the whole file' : formatBytes(declared)} ` +
        `to read a ${formatBytes(end - start + 1)} header. Download the file and open it locally, or use a ` +
        'server that supports Range requests.',
      { url, status: 200 },
    );
  if (declared !== null && declared > bound) {
    discardBody(response);
    throw refuse();
  }
  const whole = new ReadBuffer(true);
  // One byte past the bound tells "the file ended within the bound" from "there is more".
  const pumped = await pump(response, bound + 1, whole, arm, count);
  if (pumped.error !== undefined) {
    return dropped(file, transfer, 'The connection dropped while downloading. Try again.');
  }
  if (pumped.received > bound) {
    throw refuse();
  }
  const body = whole.bytes();
  file.guard.check(versionOf(response, body.length), url);
  file.setSize(body.length);
  if (start < body.length) {
    sink.put(body.slice(start, Math.min(end + 1, body.length)), false);
  }
  return { kind: 'data', eof: true };
}

/**
 * How long a body that holds just the asked bytes may take to end before it is cancelled: its end normally comes
 * with its last bytes, and a server that never ends it must not hold the read.
 */
const BODY_END_WAIT_MS = 100;

/**
 * Streams at most `limit` bytes of the body into `sink`, re-arming the stall timer per chunk, then cancels the
 * body so nothing past the asked length is downloaded. Where the sink offers room and the body is a byte stream,
 * the bytes are read into that room (BYOB) rather than into fresh chunks. `limitIsWholeBody`: the body holds just
 * `limit` bytes, so its end is awaited (briefly) instead of cancelled: a cancelled request leaves no Resource
 * Timing entry in Chromium over HTTP/2, and that entry is how the next reads learn the protocol (io/connection.ts).
 */
async function pump(
  response: Response,
  limit: number,
  sink: BodySink,
  arm: () => void,
  count: (bytes: number) => void,
  limitIsWholeBody = false,
): Promise<{ received: number; error?: unknown }> {
  if (response.body === null) {
    return { received: 0 };
  }
  const reader = bodyReaderOf(response.body, sink);
  let received = 0;
  let done = false;
  try {
    while (received < limit) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read(limit - received);
      } catch (error) {
        if (reader.intoRoom) {
          sink.lost();
        }
        // Reset, stall timer or user abort; the caller tells them apart. Errors thrown by the sink propagate.
        return { received, error };
      }
      if (next.done) {
        done = true;
        break;
      }
      const value = next.value;
      count(value.byteLength);
      arm();
      // A read into room never overfills it; the stream's own chunks may run past the limit.
      const take = Math.min(value.byteLength, limit - received);
      received += take;
      sink.put(take === value.byteLength ? value : value.slice(0, take), reader.intoRoom);
    }
    if (limitIsWholeBody && !done) {
      const end = reader.readEnd().then(
        (next) => next.done,
        () => false,
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), BODY_END_WAIT_MS)));
      done = await Promise.race([end, late]);
      clearTimeout(timer);
    }
    return { received };
  } finally {
    if (!done) {
      void reader.cancel().catch(() => undefined);
    }
  }
}

/** A body's reader, reading into the sink's room where it can. */
interface BodyReader {
  /** Whether `read` fills the sink's room (else it gives the stream's own chunks). */
  readonly intoRoom: boolean;
  /** The next bytes, at most `max` of them when read into room. */
  read(max: number): Promise<ReadableStreamReadResult<Uint8Array>>;
  /** One more read, to see the body end; what it brings is dropped. */
  readEnd(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(): Promise<void>;
}

function bodyReaderOf(body: ReadableStream<Uint8Array>, sink: BodySink): BodyReader {
  const byob = sink.takesRoom ? byobReaderOf(body) : null;
  if (byob !== null) {
    return {
      intoRoom: true,
      read: (max) => byob.read(sink.room(max)),
      readEnd: () => byob.read(new Uint8Array(1)),
      cancel: () => byob.cancel(),
    };
  }
  const plain = body.getReader();
  return { intoRoom: false, read: () => plain.read(), readEnd: () => plain.read(), cancel: () => plain.cancel() };
}

/** A reader that fills given memory, when the body is a byte stream (fetch bodies are in Chromium and Node). */
function byobReaderOf(body: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | null {
  try {
    return body.getReader({ mode: 'byob' });
  } catch {
    // Not a byte stream (a test's own stream): the stream is left unlocked.
    return null;
  }
}
