/**
 * ByteReader over an http(s) URL using single-range GET requests. Reads only the asked bytes (a header load is
 * one request for most files, two for big headers) and refuses servers that would send the whole file.
 *
 * Every request is `GET` with `Range: bytes=a-b` and nothing else (plus `Authorization` for Hugging Face when a
 * token is given). A single closed range is a CORS-safelisted header, so plain reads need no preflight (facts b7).
 */
import type { ByteReader, ReadOptions, ReadPurpose, RequestObserver, RequestTally } from '../core/bytes/byte-reader';
import { concatChunks } from '../core/bytes/concat';
import { SourceError } from '../core/errors';
import type { StallNotice } from '../core/result';
import { formatBytes } from '../core/number-format';
import {
  abortedError,
  backoff,
  discardBody,
  formatDuration,
  isRedirectLimit,
  linkSignals,
  nameFromUrl,
  parseContentRange,
  parseLength,
  parseRetryAfter,
  serverMessage,
  sleep,
} from './http-util';
import { createSameFileGuard, currentPageOrigin, ifRangeAllowed, type FileVersion } from './same-file-guard';
import { STALL_NOTICE_MS, watchRate } from './stall-watch';
import { isHuggingFaceUrl, mayReceiveToken } from './token-policy';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  IGNORED_RANGE_SLACK_BYTES,
  MAX_RETRY_AFTER_MS,
  MAX_SERVER_MESSAGE_CHARS,
  MAX_SHORT_RANGE_FOLLOWUPS,
} from '../core/limits';

export { parseContentRange } from './http-util';
export type { StallNotice } from '../core/result';

/**
 * Speculative first read. huggingface_hub asks for bytes=0-100000 because "97% of safetensors headers are
 * < 100 KB" (facts b2), and got the edge wrong for N in 99,994..100,000 (huggingface_hub#4602). We ask for
 * 128 KiB: 8 + 100,000 = 100,008 bytes fit with room to spare, so every header the Hub's client reads in one
 * request we also read in one, and the extra ~30 KB of tensor data costs nothing noticeable.
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

/** One ranged request's bytes: where they go, and the hooks that re-arm its timeout, tell why it stopped and count. */
interface Transfer {
  start: number;
  end: number;
  sink: (chunk: Uint8Array) => void;
  arm: () => void;
  interrupted: () => SourceError | null;
  count: (bytes: number) => void;
}

/** What one HTTP attempt achieved; fatal problems are thrown as SourceError instead. */
type Attempt =
  | { kind: 'data'; eof: boolean }
  | { kind: 'resized' }
  /** A redirected read was refused (an expired presigned URL): ask the front door for a fresh redirect. */
  | { kind: 're-resolve'; error: SourceError }
  | { kind: 'transient'; error: SourceError; retryAfterMs?: number };

export function createHttpReader(url: string, options: HttpReaderOptions = {}): HttpByteReader {
  const fetchImpl = options.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const retryBaseMs = options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  const firstRead = options.firstReadBytes ?? DEFAULT_FIRST_READ_BYTES;
  const stallNoticeMs = options.stallNoticeMs ?? STALL_NOTICE_MS;
  // The token is decided once, from the URL we were given. Browsers strip a script-set Authorization header on
  // cross-origin redirects (whatwg/fetch#1544), so it reaches huggingface.co but never the CDN it redirects to.
  const token = options.token && mayReceiveToken(url) ? options.token : undefined;
  const tokenWithheld = Boolean(options.token) && token === undefined;
  const isHub = isHuggingFaceUrl(url);
  const pageOrigin = options.pageOrigin === undefined ? currentPageOrigin() : options.pageOrigin;
  const guard = createSameFileGuard();

  let size: number | null = null;
  let finalUrl: string | null = null;
  let repoCommit: string | null = null;
  let requests = 0;
  let bytesFetched = 0;
  let stall: StallNotice | null = null;
  /** Set after one fresh redirect was fetched for a refused presigned URL; a second refusal is final. */
  let reResolved = false;
  /** The load's meter (io/sources/meter.ts), told of every request with what it was for. */
  let observer: RequestObserver | null = null;

  function report(nextStall: StallNotice | null = stall): void {
    stall = nextStall;
    options.onActivity?.({ requests, bytesFetched, stall });
  }

  function userAborted(readSignal: AbortSignal | undefined): boolean {
    return Boolean(options.signal?.aborted || readSignal?.aborted);
  }

  async function read(offset: number, length: number, readOptions: ReadOptions = {}): Promise<Uint8Array> {
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
      throw new SourceError('internal', `Invalid read range (offset ${offset}, length ${length}). This is a bug.`);
    }
    const readSignal = readOptions.signal;
    if (userAborted(readSignal)) {
      throw abortedError();
    }
    const chunks: Uint8Array[] = [];
    let filled = 0;
    const sink = (chunk: Uint8Array): void => {
      chunks.push(chunk);
      filled += chunk.length;
      readOptions.onChunk?.(chunk, filled);
    };
    let retries = 0;
    let followups = 0;
    let corsSuspected = false;

    // Recomputed each round: the first response (or a 416) may have taught us the size.
    const wanted = (): number => (size === null ? length : Math.min(length, Math.max(0, size - offset)));
    for (;;) {
      const want = wanted();
      if (filled >= want) {
        break;
      }
      const start = offset + filled;
      // After a shorter-than-asked range with an unknown total, a bare 416 for the rest means EOF.
      const continuing = followups > 0 && size === null;
      const outcome = await attempt(start, offset + want - 1, sink, readSignal, continuing, readOptions.purpose);
      if (outcome.kind === 'data') {
        if (outcome.eof) {
          break;
        }
        // A complete answer ends the loop above; a shorter range than asked (not at EOF) needs a follow-up.
        if (filled < wanted() && ++followups > MAX_SHORT_RANGE_FOLLOWUPS) {
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
        if (reResolved) {
          throw outcome.error;
        }
        reResolved = true;
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
      await sleep(outcome.retryAfterMs ?? backoff(retries, retryBaseMs), options.signal, readSignal);
    }
    return concatChunks(chunks, filled);
  }

  /**
   * One request for bytes `start..end` (inclusive). Bytes go to `sink` as they arrive, so a dropped connection
   * still keeps what was received and the caller resumes from there.
   */
  async function attempt(
    start: number,
    end: number,
    sink: (chunk: Uint8Array) => void,
    readSignal: AbortSignal | undefined,
    continuing: boolean,
    purpose: ReadPurpose | undefined,
  ): Promise<Attempt> {
    const controller = new AbortController();
    const unlink = linkSignals(controller, [options.signal, readSignal]);
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
    };
    const interrupted = (): SourceError | null => {
      if (userAborted(readSignal)) {
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
    if (token !== undefined) {
      headers.Authorization = `Bearer ${token}`;
    }
    // If-Range only where it needs no preflight (same origin, no cross-origin redirect seen): see same-file-guard.
    const ifRange =
      ifRangeAllowed(url, pageOrigin) && (finalUrl === null || ifRangeAllowed(finalUrl, pageOrigin))
        ? guard.ifRangeValue()
        : null;
    if (ifRange !== null) {
      headers['If-Range'] = ifRange;
    }
    const watch = watchRate(stallNoticeMs, report);
    let tally: RequestTally | null = null;
    const count = (bytes: number): void => {
      tally?.bytes(bytes);
      watch.count(bytes);
    };
    arm();
    try {
      let response: Response;
      try {
        requests++;
        tally = observer?.(purpose ?? null) ?? null;
        report();
        // Redirects are followed: a cross-origin 302 from huggingface.co to its CDN is the normal path. After a
        // refused presigned URL the redirect itself is fetched again, bypassing any cached copy.
        response = await fetchImpl(url, {
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
        return await classifyFetchFailure(error, readSignal);
      }
      finalUrl = response.url || url;
      repoCommit = response.headers.get('x-repo-commit') ?? repoCommit;

      const transfer: Transfer = { start, end, sink, arm, interrupted, count };
      if (response.status === 206) {
        return await readPartial(response, transfer);
      }
      if (response.status === 200) {
        if (ifRange !== null) {
          // RFC 9110 §13.1.5: a 200 to If-Range means the validator no longer matches: the file was replaced.
          discardBody(response);
          guard.check(versionOf(response, null), url);
          throw changedWithoutValidators();
        }
        return await readIgnoredRange(response, transfer);
      }
      discardBody(response);
      if (response.status === 416) {
        const range = parseContentRange(response.headers.get('content-range'));
        if (range?.kind === 'unsatisfied') {
          guard.check(versionOf(response, range.total), url);
          size = range.total;
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
      return statusOutcome(response);
    } finally {
      clearTimeout(timer);
      watch.stop();
      tally?.end();
      unlink();
    }
  }

  function changedWithoutValidators(): SourceError {
    return new SourceError(
      'source-changed',
      'The file changed on the server while it was being read (the server answered a conditional range request ' +
        'with the whole new file), so its parts may come from two different versions.',
      { url },
    );
  }

  /** The version check of an answer; a changed file also cancels the body, which nobody will read. */
  function checkVersion(response: Response, total: number | null): void {
    try {
      guard.check(versionOf(response, total), url);
    } catch (error) {
      discardBody(response);
      throw error;
    }
  }

  /** A body that stopped early: the user's cancel or the silence timeout ends the read; anything else is retried. */
  function dropped(transfer: Transfer, message: string): Attempt {
    const stopped = transfer.interrupted();
    if (stopped) {
      throw stopped;
    }
    return { kind: 'transient', error: new SourceError('network', message, { url }) };
  }

  async function readPartial(response: Response, transfer: Transfer): Promise<Attempt> {
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
    checkVersion(response, range.total);
    if (range.total !== null) {
      size = range.total;
    }
    // A longer range than asked (some CDNs round up) is fine: keep only what was asked and cancel the rest.
    const take = Math.min(range.end, end) - start + 1;
    const pumped = await pump(response, take, sink, arm, count);
    if (pumped.error !== undefined || pumped.received < take) {
      // Connection reset or body cut short: the caller resumes from the last received byte.
      return dropped(
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
  async function readIgnoredRange(response: Response, transfer: Transfer): Promise<Attempt> {
    const { start, end, sink, arm, count } = transfer;
    const bound = end + 1 + IGNORED_RANGE_SLACK_BYTES;
    const declared = parseLength(response.headers.get('content-length'));
    // A 200 from a server that honoured earlier ranges usually means a stale validator: the file was replaced.
    checkVersion(response, declared);
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
    const whole: Uint8Array[] = [];
    // One byte past the bound tells "the file ended within the bound" from "there is more".
    const pumped = await pump(response, bound + 1, (chunk) => whole.push(chunk), arm, count);
    if (pumped.error !== undefined) {
      return dropped(transfer, 'The connection dropped while downloading. Try again.');
    }
    if (pumped.received > bound) {
      throw refuse();
    }
    const body = concatChunks(whole, pumped.received);
    guard.check(versionOf(response, body.length), url);
    size = body.length;
    if (start < body.length) {
      sink(body.slice(start, Math.min(end + 1, body.length)));
    }
    return { kind: 'data', eof: true };
  }

  /**
   * Streams at most `limit` bytes of the body into `sink`, re-arming the stall timer per chunk, then cancels the
   * body so nothing past the asked length is downloaded.
   */
  async function pump(
    response: Response,
    limit: number,
    sink: (chunk: Uint8Array) => void,
    arm: () => void,
    count: (bytes: number) => void,
  ): Promise<{ received: number; error?: unknown }> {
    if (response.body === null) {
      return { received: 0 };
    }
    const reader = response.body.getReader();
    let received = 0;
    let done = false;
    try {
      while (received < limit) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          // Reset, stall timer or user abort; the caller tells them apart. Errors thrown by `sink` propagate.
          return { received, error };
        }
        if (next.done) {
          done = true;
          break;
        }
        const value = next.value;
        bytesFetched += value.byteLength;
        count(value.byteLength);
        arm();
        const take = Math.min(value.byteLength, limit - received);
        received += take;
        sink(take === value.byteLength ? value : value.slice(0, take));
      }
      return { received };
    } finally {
      if (!done) {
        void reader.cancel().catch(() => undefined);
      }
    }
  }

  /**
   * `fetch` rejects with the same bare TypeError for a CORS refusal and for a network failure. A `no-cors` HEAD
   * (no body, no custom headers, so no preflight) resolves with an opaque response whenever the server is
   * reachable: then the real request was blocked by CORS.
   */
  async function classifyFetchFailure(error: unknown, readSignal: AbortSignal | undefined): Promise<Attempt> {
    if (isRedirectLimit(error)) {
      throw new SourceError(
        'too-many-redirects',
        'The server redirected too many times (a redirect loop). Check the link; if it works in a browser tab, ' +
          'the site may need cookies this app does not send.',
        { url },
      );
    }
    // A CORS-mode HEAD carries no Range, so it needs no preflight either. If it is readable, CORS is not the
    // problem: Chromium fails a compressed 206 (Content-Encoding on a partial response) exactly like a CORS refusal.
    const readable = await probe(readSignal, 'cors');
    if (userAborted(readSignal)) {
      throw abortedError();
    }
    if (readable.reached) {
      const encoding = readable.encoding;
      if (encoding !== null && encoding.toLowerCase() !== 'identity') {
        throw compressedError(encoding);
      }
      return {
        kind: 'transient',
        error: new SourceError(
          'network',
          'The server answers this page, but every byte-range request failed before any byte arrived. The usual ' +
            'cause is a server that compresses partial responses (Content-Encoding: gzip on a 206), which browsers ' +
            'cannot decode; it is not a CORS problem. Ask the host to serve the file uncompressed, or download it ' +
            'and open it locally.',
          { url },
        ),
      };
    }
    const reachable = (await probe(readSignal, 'no-cors')).reached;
    if (userAborted(readSignal)) {
      throw abortedError();
    }
    if (reachable) {
      return {
        kind: 'transient',
        error: new SourceError(
          'cors',
          'The server is reachable but does not allow this page to read the file: it does not send ' +
            'Access-Control-Allow-Origin (and Access-Control-Expose-Headers: Content-Range) for Range requests. ' +
            'Download the file and drop it here, or use a mirror that allows cross-origin requests.',
          { url },
        ),
      };
    }
    return {
      kind: 'transient',
      error: new SourceError(
        'network',
        'Could not reach the server (network error, blocked request, or redirect loop). Check the address and ' +
          'your connection, then try again.',
        { url },
      ),
    };
  }

  /**
   * A HEAD without custom headers (no preflight). `cors` mode resolves only when the page may read the answer;
   * `no-cors` resolves with an opaque answer whenever the server is reachable at all.
   */
  async function probe(
    readSignal: AbortSignal | undefined,
    mode: 'cors' | 'no-cors',
  ): Promise<{ reached: boolean; encoding: string | null }> {
    const controller = new AbortController();
    const unlink = linkSignals(controller, [options.signal, readSignal]);
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let tally: RequestTally | null = null;
    try {
      requests++;
      tally = observer?.(null) ?? null;
      const response = await fetchImpl(url, { method: 'HEAD', mode, signal: controller.signal });
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

  function statusOutcome(response: Response): Attempt {
    const status = response.status;
    const extra = { url, status };
    const serverSays = serverMessage(response);
    if (status === 401) {
      const text = token
        ? 'The access token was rejected (HTTP 401). Check that it is valid, not expired, and has read access.'
        : isHub
          ? 'This repository is private or gated, or does not exist (HTTP 401). Add a Hugging Face access token ' +
            'with read access and try again.'
          : tokenWithheld
            ? 'The server requires authentication (HTTP 401). Your access token was not sent: tokens go only to ' +
              'huggingface.co. Download the file and open it locally.'
            : 'The server requires authentication (HTTP 401). Download the file and open it locally.';
      throw new SourceError('http-401', text + serverSays, extra);
    }
    if (status === 403 && response.redirected) {
      // Presigned CDN links expire (X-Amz-Expires=3600 on the Hub's bridge); the front door hands out a fresh one.
      const refused = new SourceError(
        'http-403',
        'The download link the server redirected to was refused twice (HTTP 403), even after asking for a fresh ' +
          'one. The file may have been made private or gated; open it on its site, or try again later.' +
          serverSays,
        extra,
      );
      if (reResolved) {
        throw refused;
      }
      return { kind: 're-resolve', error: refused };
    }
    if (status === 403) {
      const text = isHub
        ? 'Access denied (HTTP 403). This model is gated: open its page on huggingface.co and accept the ' +
          'license with your account' +
          (token
            ? ', and make sure the token can read gated repositories (fine-grained tokens need that scope).'
            : ', then add an access token.')
        : 'Access denied (HTTP 403). The link may have expired (signed links do) or need permissions this app ' +
          'does not have.';
      throw new SourceError('http-403', text + serverSays, extra);
    }
    if (status === 404) {
      throw new SourceError('http-404', notFoundMessage(response.headers.get('x-error-code')) + serverSays, extra);
    }
    if (status === 408) {
      return {
        kind: 'transient',
        error: new SourceError('timeout', 'The server timed out (HTTP 408). Try again later.', extra),
      };
    }
    if (status === 429 || status === 503) {
      const waitMs = parseRetryAfter(response.headers.get('retry-after'));
      if (waitMs !== null && waitMs > MAX_RETRY_AFTER_MS) {
        const seconds = Math.ceil(waitMs / 1000);
        throw new SourceError(
          status === 429 ? 'http-429' : 'http-5xx',
          `The server is ${status === 429 ? 'rate-limiting requests' : 'unavailable'} (HTTP ${status}) and asks to ` +
            `wait ${seconds} s. Try again then.`,
          extra,
        );
      }
      if (status === 429) {
        return {
          kind: 'transient',
          error: new SourceError('http-429', 'Too many requests (HTTP 429). Wait a minute and try again.', extra),
          retryAfterMs: waitMs ?? undefined,
        };
      }
      return { kind: 'transient', error: serverError(status, extra), retryAfterMs: waitMs ?? undefined };
    }
    if (status >= 500) {
      return { kind: 'transient', error: serverError(status, extra) };
    }
    throw new SourceError(
      'http-other',
      `Unexpected answer from the server: HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}.${serverSays}`,
      extra,
    );
  }

  function serverError(status: number, extra: { url: string; status: number }): SourceError {
    return new SourceError(
      'http-5xx',
      `The server failed (HTTP ${status}; tried ${maxRetries + 1} time${maxRetries === 0 ? '' : 's'}). Try again later.`,
      extra,
    );
  }

  function notFoundMessage(errorCode: string | null): string {
    if (!isHub) {
      return 'Not found (HTTP 404). Check the URL.';
    }
    // X-Error-Code is only readable when exposed to the page; without it, name everything that can be wrong.
    switch (errorCode) {
      case 'EntryNotFound':
        return 'The file was not found in this repository revision (HTTP 404, EntryNotFound). Check the file path and the revision.';
      case 'RevisionNotFound':
        return 'The revision (branch, tag or commit) does not exist (HTTP 404, RevisionNotFound).';
      case 'RepoNotFound':
        return 'The repository was not found (HTTP 404, RepoNotFound). Check the repo id; private repos also need an access token.';
      default:
        return 'Not found (HTTP 404). Check the repository id, the revision and the file path.';
    }
  }

  return {
    name: nameFromUrl(url),
    url,
    get size() {
      return size;
    },
    get finalUrl() {
      return finalUrl;
    },
    get version() {
      return guard.pinned;
    },
    get repoCommit() {
      return repoCommit;
    },
    preferredFirstRead: firstRead,
    read,
    stats: () => ({ requests, bytesFetched }),
    observe: (next) => {
      observer = next;
    },
  };
}

/** The validators of one answer; `total` is what its Content-Range (or whole body) said the size is. */
function versionOf(response: Response, total: number | null): FileVersion {
  return { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified'), total };
}

function compressedError(encoding: string): SourceError {
  return new SourceError(
    'compressed-response',
    `The server compresses its byte-range answers (Content-Encoding: ${encoding.slice(0, MAX_SERVER_MESSAGE_CHARS)}), ` +
      'so the bytes cannot be placed at their offsets in the file. This is a server setting, not a CORS problem: ' +
      'ask the host to serve .safetensors files uncompressed, or download the file and open it locally.',
  );
}
