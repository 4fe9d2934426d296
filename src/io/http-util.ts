/** Small helpers of the HTTP reader: header parsing, signals, sleeping, buffers. Pure except for timers. */
import { SourceError } from '../core/errors';
import { MAX_BACKOFF_MS, MAX_SERVER_MESSAGE_CHARS } from '../core/limits';

export type ContentRange =
  { kind: 'range'; start: number; end: number; total: number | null } | { kind: 'unsatisfied'; total: number };

/** Parses `bytes a-b/total`, `bytes a-b/*` and `bytes * /total` (416); anything else is null. */
export function parseContentRange(header: string | null): ContentRange | null {
  if (header === null) {
    return null;
  }
  const satisfied = /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(header);
  if (satisfied) {
    const start = Number(satisfied[1]);
    const end = Number(satisfied[2]);
    const total = satisfied[3] === '*' ? null : Number(satisfied[3]);
    if (!Number.isSafeInteger(end) || end < start || (total !== null && !Number.isSafeInteger(total))) {
      return null;
    }
    return { kind: 'range', start, end, total };
  }
  const unsatisfied = /^\s*bytes\s+\*\/(\d+)\s*$/i.exec(header);
  if (unsatisfied) {
    const total = Number(unsatisfied[1]);
    return Number.isSafeInteger(total) ? { kind: 'unsatisfied', total } : null;
  }
  return null;
}

export function parseLength(header: string | null): number | null {
  if (header === null || !/^\s*\d+\s*$/.test(header)) {
    return null;
  }
  const value = Number(header);
  return Number.isSafeInteger(value) ? value : null;
}

/** `Retry-After` as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(header: string | null): number | null {
  if (header === null) {
    return null;
  }
  if (/^\s*\d+\s*$/.test(header)) {
    return Number(header) * 1000;
  }
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

export function serverMessage(response: Response): string {
  const text = response.headers.get('x-error-message');
  return text ? ` The server says: “${text.slice(0, MAX_SERVER_MESSAGE_CHARS)}”.` : '';
}

/** undici (Node) reports the redirect limit as the cause; browsers give a bare TypeError, classed as network. */
export function isRedirectLimit(error: unknown): boolean {
  const cause = error instanceof Error ? (error as Error & { cause?: unknown }).cause : undefined;
  return cause instanceof Error && /redirect count exceeded/i.test(cause.message);
}

export function formatDuration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

export function backoff(retry: number, baseMs: number): number {
  return Math.min(MAX_BACKOFF_MS, baseMs * 2 ** (retry - 1) + Math.random() * baseMs);
}

export function abortedError(): SourceError {
  return new SourceError('aborted', 'Loading was cancelled.');
}

export function linkSignals(controller: AbortController, signals: Array<AbortSignal | undefined>): () => void {
  const onAbort = (): void => controller.abort();
  const linked: AbortSignal[] = [];
  for (const signal of signals) {
    if (!signal) {
      continue;
    }
    if (signal.aborted) {
      controller.abort();
      continue;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    linked.push(signal);
  }
  return () => linked.forEach((signal) => signal.removeEventListener('abort', onAbort));
}

export function sleep(ms: number, ...signals: Array<AbortSignal | undefined>): Promise<void> {
  return new Promise((resolve, reject) => {
    const controller = new AbortController();
    const unlink = linkSignals(controller, signals);
    if (controller.signal.aborted) {
      unlink();
      reject(abortedError());
      return;
    }
    const timer = setTimeout(() => {
      unlink();
      resolve();
    }, ms);
    controller.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      unlink();
      reject(abortedError());
    });
  });
}

/** `new URL(text, base)`, or null where that throws (not a URL, or relative without a base). */
export function parseUrl(text: string, base?: string): URL | null {
  try {
    return new URL(text, base);
  } catch {
    return null;
  }
}

/** Cancels a body nobody will read, so the connection stops downloading it; a failed cancel changes nothing. */
export function discardBody(response: Response): void {
  void response.body?.cancel().catch(() => undefined);
}

export function nameFromUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const last = parsed.pathname
      .split('/')
      .filter((part) => part !== '')
      .pop();
    if (last === undefined) {
      return parsed.host;
    }
    try {
      return decodeURIComponent(last);
    } catch {
      return last;
    }
  } catch {
    return url;
  }
}
