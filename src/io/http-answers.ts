/**
 * What an HTTP answer means for a ranged read, decided from the response alone: the status codes, and the errors
 * for failures the reader diagnoses (a compressed partial response, CORS, an unreachable server). Pure: no request
 * is sent here; the reader (http-reader.ts) acts on the outcome.
 */
import { SourceError } from '../core/errors';
import { MAX_RETRY_AFTER_MS, MAX_SERVER_MESSAGE_CHARS } from '../core/limits';
import { parseRetryAfter, serverMessage } from './http-util';
import type { FileVersion } from './same-file-guard';

/** What one HTTP attempt achieved; fatal problems are thrown as SourceError instead. */
export type Attempt =
  | { kind: 'data'; eof: boolean }
  | { kind: 'resized' }
  /** A redirected read was refused (an expired presigned URL): ask the front door for a fresh redirect. */
  | { kind: 're-resolve'; error: SourceError }
  | { kind: 'transient'; error: SourceError; retryAfterMs?: number };

/** What the messages depend on besides the response: where the request went and with which credentials. */
export interface AnswerContext {
  url: string;
  /** The token actually sent (only to Hugging Face), or undefined. */
  token: string | undefined;
  /** A token was given but not sent, because the URL is not Hugging Face's. */
  tokenWithheld: boolean;
  isHub: boolean;
  maxRetries: number;
  /** A fresh redirect was already fetched once after a refused presigned URL; a second refusal is final. */
  reResolved: boolean;
}

/** The validators of one answer; `total` is what its Content-Range (or whole body) said the size is. */
export function versionOf(response: Response, total: number | null): FileVersion {
  return { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified'), total };
}

export function compressedError(encoding: string): SourceError {
  return new SourceError(
    'compressed-response',
    `The server compresses its byte-range answers (Content-Encoding: ${encoding.slice(0, MAX_SERVER_MESSAGE_CHARS)}), ` +
      'so the bytes cannot be placed at their offsets in the file. This is a server setting, not a CORS problem: ' +
      'ask the host to serve .safetensors files uncompressed, or download the file and open it locally.',
  );
}

export function changedWithoutValidators(url: string): SourceError {
  return new SourceError(
    'source-changed',
    'The file changed on the server while it was being read (the server answered a conditional range request ' +
      'with the whole new file), so its parts may come from two different versions.',
    { url },
  );
}

export function redirectLoopError(url: string): SourceError {
  return new SourceError(
    'too-many-redirects',
    'The server redirected too many times (a redirect loop). Check the link; if it works in a browser tab, ' +
      'the site may need cookies this app does not send.',
    { url },
  );
}

/**
 * Why `fetch` failed before any header arrived, from two probes: `readable` (a CORS-mode HEAD the page may read)
 * and `reachable` (a no-cors HEAD that resolves whenever the server answers at all). Null `reachable`: not probed.
 */
export function fetchFailureOutcome(
  url: string,
  readable: { reached: boolean; encoding: string | null },
  reachable: boolean | null,
): Attempt {
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

/** The outcome of an answer that is neither 200, 206 nor 416: an error to show, a retry, or a fresh redirect. */
export function statusOutcome(response: Response, context: AnswerContext): Attempt {
  const { url, token, isHub } = context;
  const status = response.status;
  const extra = { url, status };
  const serverSays = serverMessage(response);
  if (status === 401) {
    const text = token
      ? 'The access token was rejected (HTTP 401). Check that it is valid, not expired, and has read access.'
      : isHub
        ? 'This repository is private or gated, or does not exist (HTTP 401). Add a Hugging Face access token ' +
          'with read access and try again.'
        : context.tokenWithheld
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
    if (context.reResolved) {
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
    throw new SourceError('http-404', notFoundMessage(isHub, response.headers.get('x-error-code')) + serverSays, extra);
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
    return {
      kind: 'transient',
      error: serverError(status, extra, context.maxRetries),
      retryAfterMs: waitMs ?? undefined,
    };
  }
  if (status >= 500) {
    return { kind: 'transient', error: serverError(status, extra, context.maxRetries) };
  }
  throw new SourceError(
    'http-other',
    `Unexpected answer from the server: HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}.${serverSays}`,
    extra,
  );
}

function serverError(status: number, extra: { url: string; status: number }, maxRetries: number): SourceError {
  return new SourceError(
    'http-5xx',
    `The server failed (HTTP ${status}; tried ${maxRetries + 1} time${maxRetries === 0 ? '' : 's'}). Try again later.`,
    extra,
  );
}

function notFoundMessage(isHub: boolean, errorCode: string | null): string {
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
