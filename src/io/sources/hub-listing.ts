/**
 * The Hugging Face Hub's file-listing API: which files a repository holds at a revision, with their sizes, so a
 * pasted repo id can open its model (`GET {base}/api/models/{id}/tree/{rev}?recursive=true`, a JSON array of
 * `{type, path, size, lfs?}` paginated through the `Link: <…>; rel="next"` header). The token policy is checked per
 * request, pagination included, and pagination never leaves its origin. The addresses themselves: hub.ts.
 */
import { SourceError } from '../../core/errors';
import type { RepoFile } from '../../core/result';
import { validateShardName } from '../../core/shards/shard-names';
import { discardBody } from '../http-util';
import { mayReceiveToken } from '../token-policy';
import { repoDisplay, treeUrl, type HubRepo } from './hub';
import { MAX_LISTING_PAGES, MAX_LISTING_PAGE_BYTES, MAX_LISTING_RETRIES, MAX_REPO_FILES } from '../../core/limits';

/** First backoff step; doubles per retry. */
const RETRY_BASE_MS = 500;

export interface RepoListing {
  files: RepoFile[];
  /** True when the listing had more than MAX_REPO_FILES files (or pages) and the rest were not read. */
  truncated: boolean;
  /** Entries skipped because their path could escape the repository (`..`, absolute, URL-like). */
  unsafePaths: number;
  requests: number;
  bytesFetched: number;
}

export interface ListOptions {
  /** Sent only where `mayReceiveToken` allows (https huggingface.co / hf.co). */
  token?: string;
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
  maxRetries?: number;
  /** Test hook: how to wait between retries. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Lists every file of the repository (or of `repo.path`), following pagination. Throws SourceError. */
export async function listRepoFiles(repo: HubRepo, options: ListOptions = {}): Promise<RepoListing> {
  const fetchImpl = options.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const first = treeUrl(repo);
  const origin = new URL(first).origin;
  const listing: RepoListing = { files: [], truncated: false, unsafePaths: 0, requests: 0, bytesFetched: 0 };
  let url: string | null = first;
  for (let page = 0; url !== null; page++) {
    if (page >= MAX_LISTING_PAGES) {
      listing.truncated = true;
      break;
    }
    const { body, link } = await fetchPage(url, repo, options, fetchImpl, listing);
    if (!addEntries(listing, body, url)) {
      break;
    }
    const next = nextLink(link, url);
    if (next !== null && new URL(next).origin !== origin) {
      throw new SourceError(
        'http-other',
        `The Hub API pointed its next page at another host (${new URL(next).host}); the listing was stopped there.`,
        { url },
      );
    }
    url = next;
  }
  return listing;
}

/** Adds one page's files; false when MAX_REPO_FILES was reached. */
function addEntries(listing: RepoListing, body: unknown, url: string): boolean {
  if (!Array.isArray(body)) {
    throw new SourceError(
      'http-other',
      'The Hub API answered with something other than a file list. Check the repository id and revision.',
      { url },
    );
  }
  for (const entry of body) {
    if (!isRecord(entry) || entry.type !== 'file' || typeof entry.path !== 'string') {
      continue;
    }
    if (!validateShardName(entry.path).ok) {
      listing.unsafePaths++;
      continue;
    }
    if (listing.files.length >= MAX_REPO_FILES) {
      listing.truncated = true;
      return false;
    }
    const lfsSize = isRecord(entry.lfs) ? sizeOf(entry.lfs.size) : null;
    listing.files.push({ path: entry.path, size: lfsSize ?? sizeOf(entry.size) });
  }
  return true;
}

function sizeOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `rel="next"` target of a Link header, resolved against the page URL; null when there is none. */
export function nextLink(header: string | null, pageUrl: string): string | null {
  if (!header) {
    return null;
  }
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>\s*(.*)$/.exec(part);
    if (!match) {
      continue;
    }
    const rels = /(?:^|;)\s*rel\s*=\s*"?([^";]*)"?/i.exec(match[2]);
    if (rels && rels[1].split(/\s+/).includes('next')) {
      try {
        return new URL(match[1], pageUrl).href;
      } catch {
        return null;
      }
    }
  }
  return null;
}

async function fetchPage(
  url: string,
  repo: HubRepo,
  options: ListOptions,
  fetchImpl: typeof fetch,
  listing: RepoListing,
): Promise<{ body: unknown; link: string | null }> {
  const maxRetries = options.maxRetries ?? MAX_LISTING_RETRIES;
  const sleep = options.sleep ?? defaultSleep;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.token && mayReceiveToken(url)) {
    headers.Authorization = `Bearer ${options.token}`;
  }
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted) {
      throw aborted();
    }
    let response: Response;
    try {
      listing.requests++;
      response = await fetchImpl(url, { headers, signal: options.signal, redirect: 'follow' });
    } catch (error) {
      if (options.signal?.aborted) {
        throw aborted();
      }
      if (attempt < maxRetries) {
        await sleep(RETRY_BASE_MS * 2 ** attempt, options.signal);
        continue;
      }
      throw new SourceError(
        'network',
        `Could not reach the Hub API at ${new URL(url).host} (network error, or the server does not allow ` +
          `cross-origin requests). Check your connection and try again.${error instanceof Error && error.message ? ` (${error.message})` : ''}`,
        { url },
      );
    }
    if (response.ok) {
      const text = await readCapped(response, url, options.signal, listing);
      try {
        return { body: JSON.parse(text) as unknown, link: response.headers.get('link') };
      } catch {
        throw new SourceError('http-other', 'The Hub API answered with text that is not JSON.', { url });
      }
    }
    discardBody(response);
    const transient = response.status === 429 || response.status >= 500;
    if (transient && attempt < maxRetries) {
      await sleep(RETRY_BASE_MS * 2 ** attempt, options.signal);
      continue;
    }
    throw statusError(response.status, url, repo, Boolean(headers.Authorization));
  }
}

function statusError(status: number, url: string, repo: HubRepo, sentToken: boolean): SourceError {
  const extra = { url, status };
  const name = repoDisplay(repo);
  switch (status) {
    case 401:
      return new SourceError(
        'http-401',
        sentToken
          ? `The access token was rejected while listing ${name} (HTTP 401). Check that it is valid and can read the repository.`
          : `${name} is private, gated or does not exist (HTTP 401). Add a Hugging Face access token with read access and try again.`,
        extra,
      );
    case 403:
      return new SourceError(
        'http-403',
        `Access to ${name} was denied (HTTP 403). If the model is gated, accept its license on huggingface.co with your account and add an access token.`,
        extra,
      );
    case 404:
      return new SourceError(
        'http-404',
        `The Hub has no ${repo.type} repository ${repo.id} with revision “${repo.revision}”${repo.path ? ` and folder “${repo.path}”` : ''} (HTTP 404). Check the repo id, the revision and the folder; private repos also need an access token.`,
        extra,
      );
    case 429:
      return new SourceError(
        'http-429',
        'The Hub is rate-limiting requests (HTTP 429). Wait a minute and try again.',
        extra,
      );
    default:
      return status >= 500
        ? new SourceError('http-5xx', `The Hub API failed (HTTP ${status}). Try again later.`, extra)
        : new SourceError('http-other', `Unexpected answer from the Hub API: HTTP ${status}.`, extra);
  }
}

async function readCapped(
  response: Response,
  url: string,
  signal: AbortSignal | undefined,
  listing: RepoListing,
): Promise<string> {
  const tooBig = (): SourceError =>
    new SourceError(
      'http-other',
      `The Hub API sent more than ${MAX_LISTING_PAGE_BYTES / (1024 * 1024)} MB for one page of the listing; that is not a file list.`,
      { url },
    );
  if (response.body === null) {
    return '';
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        if (signal?.aborted) {
          throw aborted();
        }
        throw new SourceError(
          'network',
          `The connection dropped while reading the Hub listing${error instanceof Error ? ` (${error.message})` : ''}.`,
          { url },
        );
      }
      if (next.done) {
        break;
      }
      total += next.value.byteLength;
      listing.bytesFetched += next.value.byteLength;
      if (total > MAX_LISTING_PAGE_BYTES) {
        void reader.cancel().catch(() => undefined);
        throw tooBig();
      }
      chunks.push(next.value);
    }
  } finally {
    reader.releaseLock();
  }
  const joined = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(joined);
}

function aborted(): SourceError {
  return new SourceError('aborted', 'Loading was cancelled.');
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(aborted());
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
