/**
 * ByteReader over an http(s) URL using single-range GET requests. Reads only the asked bytes (a header load is
 * one request for most files, two for big headers) and refuses servers that would send the whole file.
 * What an answer means is decided in http-answers.ts, and its body is moved in http-body.ts; this module holds the
 * reader's state (the size and validators it learned, its counters) and the retry loop.
 *
 * Every request is `GET` with `Range: bytes=a-b` and nothing else (plus `Authorization` for Hugging Face when a
 * token is given). A single closed range is a CORS-safelisted header, so plain reads need no preflight
 * (Fetch standard, CORS-safelisted request-header; docs/format-notes.md#hugging-face-resolve-urls-in-a-browser).
 */
import type { ByteReader, ReadOptions, ReadPurpose, RequestObserver, RequestTally } from '../core/bytes/byte-reader';
import { SourceError } from '../core/errors';
import type { StallNotice } from '../core/result';
import {
  changedWithoutValidators,
  fetchFailureOutcome,
  redirectLoopError,
  statusOutcome,
  versionOf,
  type Attempt,
} from './http-answers';
import { readIgnoredRange, readPartial, type Transfer, type TransferFile } from './http-body';
import { ReadBuffer, type BodySink } from './read-buffer';
import {
  abortedError,
  backoff,
  discardBody,
  formatDuration,
  isRedirectLimit,
  linkSignals,
  nameFromUrl,
  parseContentRange,
  sleep,
} from './http-util';
import {
  createSameFileGuard,
  currentPageOrigin,
  ifRangeAllowed,
  type FileVersion,
  type SameFileGuard,
} from './same-file-guard';
import { STALL_NOTICE_MS, watchRate } from './stall-watch';
import { isHuggingFaceUrl, mayReceiveToken } from './token-policy';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, MAX_SHORT_RANGE_FOLLOWUPS } from '../core/limits';

export { parseContentRange } from './http-util';
export type { StallNotice } from '../core/result';

/**
 * Speculative first read. huggingface_hub asks for bytes=0-100000 because "97% of safetensors headers are
 * < 100 KB" (docs/format-notes.md#huggingface_hubs-first-header-read), and got the edge wrong for N in 99,994..100,000
 * (huggingface_hub#4602). We ask for 128 KiB: 8 + 100,000 = 100,008 bytes fit with room to spare, so every header the
 * Hub's client reads in one request we also read in one, and the extra ~30 KB of tensor data costs nothing noticeable.
 */
export const DEFAULT_FIRST_READ_BYTES = 128 * 1024;

/** First backoff step; doubles per retry, plus up to the same again of random jitter. */
const DEFAULT_RETRY_BASE_MS = 500;

export interface HttpReaderOptions {
  /** Hugging Face access token; attached only when `mayReceiveToken(url)` (https huggingface.co / hf.co). */
  token?: string;
  fetchImpl?: typeof fetch;
  /** Cancels every read of this reader. */
  signal?: AbortSignal;
  firstReadBytes?: number;
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseMs?: number;
  /** Bytes as they arrive, and a notice while a request crawls (see STALL_NOTICE_MS). */
  onActivity?: (activity: ReaderActivity) => void;
  /** Defaults to STALL_NOTICE_MS; unit tests shorten it to keep their drip servers quick. */
  stallNoticeMs?: number;
  /** The page's origin, for the same-origin `If-Range` rule; defaults to `location.origin` (none in Node). */
  pageOrigin?: string | null;
}

export interface ReaderActivity {
  requests: number;
  bytesFetched: number;
  /** Set while the current request crawls; null once it finishes or speeds up. */
  stall: StallNotice | null;
}

export interface HttpByteReader extends ByteReader {
  readonly url: string;
  /** `response.url` of the latest response: where the redirects ended (e.g. the CDN), or null before any. */
  readonly finalUrl: string | null;
  /** The first answer's validators (ETag, Last-Modified, size) that every later answer was checked against. */
  readonly version: FileVersion | null;
  /** `X-Repo-Commit` when the Hub answered it readably (same-origin answers, or exposed), else null. */
  readonly repoCommit: string | null;
}

/**
 * One reader's settings and what it has learned and counted across its requests: the size, where redirects ended,
 * the commit, the request and byte counters, the stall notice, and whether a refused presigned URL was re-resolved.
 */
interface HttpSession extends TransferFile {
  readonly options: HttpReaderOptions;
  readonly fetchImpl: typeof fetch;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly retryBaseMs: number;
  readonly stallNoticeMs: number;
  /** The token actually sent: decided once, from the URL we were given (see createHttpReader). */
  readonly token: string | undefined;
  readonly tokenWithheld: boolean;
  readonly isHub: boolean;
  readonly pageOrigin: string | null;
  readonly guard: SameFileGuard;
  size: number | null;
  finalUrl: string | null;
  repoCommit: string | null;
  requests: number;
  bytesFetched: number;
  stall: StallNotice | null;
  /** Set after one fresh redirect was fetched for a refused presigned URL; a second refusal is final. */
  reResolved: boolean;
  /** The load's meter (io/sources/meter.ts), told of every request with what it was for. */
  observer: RequestObserver | null;
}

function report(session: HttpSession, nextStall: StallNotice | null = session.stall): void {
  session.stall = nextStall;
  session.options.onActivity?.({ requests: session.requests, bytesFetched: session.bytesFetched, stall: nextStall });
}

function userAborted(session: HttpSession, readSignal: AbortSignal | undefined): boolean {
  return Boolean(session.options.signal?.aborted || readSignal?.aborted);
}

/** The retry loop of one read: attempts until the asked bytes are in, an answer is final, or retries run out. */
async function readRange(
  session: HttpSession,
  offset: number,
  length: number,
  readOptions: ReadOptions = {},
): Promise<Uint8Array> {
  const { url, maxRetries } = session;
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new SourceError('internal', `Invalid read range (offset ${offset}, length ${length}). This is a bug.`);
  }
  const readSignal = readOptions.signal;
  if (userAborted(session, readSignal)) {
    throw abortedError();
  }
  const buffer = new ReadBuffer(!readOptions.streamOnly, readOptions.onChunk);
  let retries = 0;
  let followups = 0;
  let corsSuspected = false;

  // Recomputed each round: the first response (or a 416) may have taught us the size.
  const wanted = (): number => (session.size === null ? length : Math.min(length, Math.max(0, session.size - offset)));
  for (;;) {
    const want = wanted();
    if (buffer.filled >= want) {
      break;
    }
    const start = offset + buffer.filled;
    // After a shorter-than-asked range with an unknown total, a bare 416 for the rest means EOF.
    const continuing = followups > 0 && session.size === null;
    const outcome = await attempt(
      session,
      start,
      offset + want - 1,
      buffer,
      readSignal,
      continuing,
      readOptions.purpose,
    );
    if (outcome.kind === 'data') {
      if (outcome.eof) {
        break;
      }
      // A complete answer ends the loop above; a shorter range than asked (not at EOF) needs a follow-up.
      if (buffer.filled < wanted() && ++followups > MAX_SHORT_RANGE_FOLLOWUPS) {
        throw new SourceError(
          'range-mismatch',
          `The server keeps answering with shorter byte ranges than asked (${followups} times); giving up.`,
          { url },
        );
      }
      continue;
    }
    if (outcome.kind === 'resized') {
      // A 416 taught us the size; re-plan. Counted so a server that keeps answering 416 cannot loop forever.
      if (++followups > MAX_SHORT_RANGE_FOLLOWUPS) {
        throw new SourceError('http-416', 'The server keeps refusing the byte range (HTTP 416).', {
          url,
          status: 416,
        });
      }
      continue;
    }
    if (outcome.kind === 're-resolve') {
      if (session.reResolved) {
        throw outcome.error;
      }
      session.reResolved = true;
      continue;
    }
    const { error } = outcome;
    if (error.code === 'cors') {
      // A no-cors probe reached the server, so the failure looks like CORS. Confirm once straight away: a
      // connection dropped before the headers looks identical and deserves a normal retry.
      if (corsSuspected || retries >= maxRetries) {
        throw error;
      }
      corsSuspected = true;
      retries++;
      continue;
    }
    if (retries >= maxRetries) {
      throw error;
    }
    retries++;
    await sleep(outcome.retryAfterMs ?? backoff(retries, session.retryBaseMs), session.options.signal, readSignal);
  }
  return buffer.bytes();
}

/**
 * One request for bytes `start..end` (inclusive). Bytes go to `sink` as they arrive, so a dropped connection
 * still keeps what was received and the caller resumes from there.
 */
async function attempt(
  session: HttpSession,
  start: number,
  end: number,
  sink: BodySink,
  readSignal: AbortSignal | undefined,
  continuing: boolean,
  purpose: ReadPurpose | undefined,
): Promise<Attempt> {
  const { url, guard, timeoutMs, pageOrigin } = session;
  const controller = new AbortController();
  const unlink = linkSignals(controller, [session.options.signal, readSignal]);
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastActivity = 0;
  // One timer per request, pushed back only when it fires early: re-arming a timer for every chunk cost a timer
  // clear and a timer task per chunk, thousands in a 163-shard load on a busy worker.
  const expire = (): void => {
    const quiet = Date.now() - lastActivity;
    if (quiet >= timeoutMs) {
      timedOut = true;
      controller.abort();
      return;
    }
    timer = setTimeout(expire, timeoutMs - quiet);
  };
  const arm = (): void => {
    lastActivity = Date.now();
    timer ??= setTimeout(expire, timeoutMs);
  };
  const interrupted = (): SourceError | null => {
    if (userAborted(session, readSignal)) {
      return abortedError();
    }
    if (timedOut) {
      return new SourceError(
        'timeout',
        `The server sent nothing for ${formatDuration(timeoutMs)}, so the request was abandoned. ` +
          'Check your connection and try again.',
        { url },
      );
    }
    return null;
  };

  const headers: Record<string, string> = { Range: `bytes=${start}-${end}` };
  if (session.token !== undefined) {
    headers.Authorization = `Bearer ${session.token}`;
  }
  // If-Range only where it needs no preflight (same origin, no cross-origin redirect seen): see same-file-guard.
  const ifRange =
    ifRangeAllowed(url, pageOrigin) && (session.finalUrl === null || ifRangeAllowed(session.finalUrl, pageOrigin))
      ? guard.ifRangeValue()
      : null;
  if (ifRange !== null) {
    headers['If-Range'] = ifRange;
  }
  const watch = watchRate(session.stallNoticeMs, (stall) => report(session, stall));
  let tally: RequestTally | null = null;
  const count = (bytes: number): void => {
    session.bytesFetched += bytes;
    tally?.bytes(bytes);
    watch.count(bytes);
  };
  arm();
  try {
    let response: Response;
    try {
      session.requests++;
      tally = session.observer?.(purpose ?? null) ?? null;
      report(session);
      // Redirects are followed: a cross-origin 302 from huggingface.co to its CDN is the normal path. After a
      // refused presigned URL the redirect itself is fetched again, bypassing any cached copy.
      response = await session.fetchImpl(url, {
        method: 'GET',
        headers,
        signal: controller.signal,
        redirect: 'follow',
        // Not from the HTTP cache: Chromium assembles range requests from cached pieces and revalidates them
        // with its own If-Range, so one answer could mix versions behind the validators the guard checks.
        // `no-store` also makes a refused presigned link's redirect be fetched afresh. Costs nothing that
        // matters: a header is read once per load.
        cache: 'no-store',
      });
    } catch (error) {
      const stopped = interrupted();
      if (stopped) {
        throw stopped;
      }
      return await classifyFetchFailure(session, error, readSignal);
    }
    session.finalUrl = response.url || url;
    session.repoCommit = response.headers.get('x-repo-commit') ?? session.repoCommit;

    const transfer: Transfer = { start, end, sink, arm, interrupted, count };
    if (response.status === 206) {
      return await readPartial(session, response, transfer);
    }
    if (response.status === 200) {
      if (ifRange !== null) {
        // RFC 9110 section 13.1.5: a 200 to If-Range means the validator no longer matches: the file was replaced.
        discardBody(response);
        guard.check(versionOf(response, null), url);
        throw changedWithoutValidators(url);
      }
      return await readIgnoredRange(session, response, transfer);
    }
    discardBody(response);
    if (response.status === 416) {
      const range = parseContentRange(response.headers.get('content-range'));
      if (range?.kind === 'unsatisfied') {
        guard.check(versionOf(response, range.total), url);
        session.size = range.total;
        return { kind: 'resized' };
      }
      if (continuing) {
        // A server that gave a shorter range with an unknown total and now refuses the rest: that was EOF.
        return { kind: 'data', eof: true };
      }
      throw new SourceError(
        'http-416',
        `The server refused the byte range ${start}-${end} (HTTP 416) without saying how big the file is. ` +
          'The file may be empty or shorter than 8 bytes.',
        { url, status: 416 },
      );
    }
    return statusOutcome(response, session);
  } finally {
    clearTimeout(timer);
    watch.stop();
    tally?.end();
    unlink();
  }
}

/**
 * `fetch` rejects with the same bare TypeError for a CORS refusal and for a network failure. A `no-cors` HEAD
 * (no body, no custom headers, so no preflight) resolves with an opaque response whenever the server is
 * reachable: then the real request was blocked by CORS.
 */
async function classifyFetchFailure(
  session: HttpSession,
  error: unknown,
  readSignal: AbortSignal | undefined,
): Promise<Attempt> {
  if (isRedirectLimit(error)) {
    throw redirectLoopError(session.url);
  }
  // A CORS-mode HEAD carries no Range, so it needs no preflight either. If it is readable, CORS is not the
  // problem: Chromium fails a compressed 206 (Content-Encoding on a partial response) exactly like a CORS refusal.
  const readable = await probe(session, readSignal, 'cors');
  if (userAborted(session, readSignal)) {
    throw abortedError();
  }
  if (readable.reached) {
    return fetchFailureOutcome(session.url, readable, null);
  }
  const reachable = (await probe(session, readSignal, 'no-cors')).reached;
  if (userAborted(session, readSignal)) {
    throw abortedError();
  }
  return fetchFailureOutcome(session.url, readable, reachable);
}

/**
 * A HEAD without custom headers (no preflight). `cors` mode resolves only when the page may read the answer;
 * `no-cors` resolves with an opaque answer whenever the server is reachable at all.
 */
async function probe(
  session: HttpSession,
  readSignal: AbortSignal | undefined,
  mode: 'cors' | 'no-cors',
): Promise<{ reached: boolean; encoding: string | null }> {
  const controller = new AbortController();
  const unlink = linkSignals(controller, [session.options.signal, readSignal]);
  const timer = setTimeout(() => controller.abort(), session.timeoutMs);
  let tally: RequestTally | null = null;
  try {
    session.requests++;
    tally = session.observer?.(null) ?? null;
    const response = await session.fetchImpl(session.url, { method: 'HEAD', mode, signal: controller.signal });
    discardBody(response);
    // An opaque (no-cors) answer has status 0 and no headers; a cors answer with an error status still counts.
    return { reached: true, encoding: response.headers.get('content-encoding') };
  } catch {
    return { reached: false, encoding: null };
  } finally {
    tally?.end();
    clearTimeout(timer);
    unlink();
  }
}

export function createHttpReader(url: string, options: HttpReaderOptions = {}): HttpByteReader {
  // The token is decided once, from the URL we were given. Browsers strip a script-set Authorization header on
  // cross-origin redirects (whatwg/fetch#1544), so it reaches huggingface.co but never the CDN it redirects to.
  const token = options.token && mayReceiveToken(url) ? options.token : undefined;
  const session: HttpSession = {
    url,
    options,
    fetchImpl: options.fetchImpl ?? globalThis.fetch.bind(globalThis),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    retryBaseMs: options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS,
    stallNoticeMs: options.stallNoticeMs ?? STALL_NOTICE_MS,
    token,
    tokenWithheld: Boolean(options.token) && token === undefined,
    isHub: isHuggingFaceUrl(url),
    pageOrigin: options.pageOrigin === undefined ? currentPageOrigin() : options.pageOrigin,
    guard: createSameFileGuard(),
    setSize: (size) => {
      session.size = size;
    },
    size: null,
    finalUrl: null,
    repoCommit: null,
    requests: 0,
    bytesFetched: 0,
    stall: null,
    reResolved: false,
    observer: null,
  };
  return {
    name: nameFromUrl(url),
    url,
    get size() {
      return session.size;
    },
    get finalUrl() {
      return session.finalUrl;
    },
    get version() {
      return session.guard.pinned;
    },
    get repoCommit() {
      return session.repoCommit;
    },
    preferredFirstRead: options.firstReadBytes ?? DEFAULT_FIRST_READ_BYTES,
    read: (offset, length, readOptions) => readRange(session, offset, length, readOptions),
    stats: () => ({ requests: session.requests, bytesFetched: session.bytesFetched }),
    observe: (next) => {
      session.observer = next;
    },
  };
}
