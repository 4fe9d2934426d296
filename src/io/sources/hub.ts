/**
 * Everything about Hugging Face Hub addresses, in one place and pure (no network, no globals): turning whatever a
 * user pastes (a Hub page link, a `blob/` or `raw/` link, a repo id, a model page with `?show_file_info=`, a listing
 * URL `…/api/models/<org>/<name>/tree/<rev>`, any https URL) into the one URL the reader fetches; the `HubRepo` a
 * repository link names; the listing and `resolve/` URLs of a repository; its display name; and where the shards an
 * index names live.
 *
 * Why normalize: Hub HTML pages have no CORS headers and `raw/` serves the LFS pointer instead of the file, so a
 * pasted page link would fail in confusing ways (docs/format-notes.md#hugging-face-resolve-urls-in-a-browser).
 * `resolve/` is the only form that answers Range requests with the file's bytes (through a redirect to the CDN).
 *
 * The Hub's address is a field (`HubRepo.base`), so tests point the same code at a fake Hub. In the app the base is
 * never taken from a query parameter: it is `https://huggingface.co` for Hub links and repo ids, or, for a pasted
 * URL whose path is itself a listing, the part of that URL before `/api/`. Such a URL is just another URL the user
 * chose to open: it gets no token unless it is on huggingface.co (io/token-policy.ts, checked per request).
 */
import { isPickableFileName } from '../../core/formats/format-readers';
import { indexStem, validateShardName } from '../../core/shards/shard-names';
import { parseUrl } from '../http-util';
import { MAX_INPUT_LENGTH, MAX_QUOTED_CHARS } from '../../core/limits';
import { isRepoPart } from '../../core/hub-repo';

export type HfRepoType = 'model' | 'dataset' | 'space';

/** A repository at a revision, optionally one folder or file of it. */
export interface HubRepo {
  /** Where the Hub answers: `https://huggingface.co`, or a fake Hub's base in tests. No trailing slash. */
  base: string;
  type: HfRepoType;
  /** `org/name`, or a legacy single-segment id such as `gpt2`. */
  id: string;
  /** Branch, tag, 40-hex commit, or `refs/pr/N` / `refs/convert/<name>`; unencoded. */
  revision: string;
  /** File path (hf-file, hf-index) or optional subfolder (hf-repo, listings); unencoded, `/`-separated. */
  path?: string;
}

export type SourceUrlKind = 'hf-file' | 'hf-repo' | 'hf-index' | 'generic';

export interface NormalizedSourceUrl {
  url: string;
  kind: SourceUrlKind;
  repo?: HubRepo;
  /** Short human label: repoDisplay for Hub links, host + path for other URLs. */
  display: string;
}

export type NormalizeResult = NormalizedSourceUrl | { error: string };

/** Canonical origin every Hub URL is rewritten to (hf.co and www. redirect there anyway). */
export const HF_HUB_BASE = 'https://huggingface.co';
/** Host names that serve the Hub's repo pages and resolve endpoints (CDN hosts are deliberately absent). */
const HF_HOSTS: ReadonlySet<string> = new Set(['huggingface.co', 'www.huggingface.co', 'hf.co', 'www.hf.co']);

/** The Hub's default branch; used when a link names no revision. */
const DEFAULT_REVISION = 'main';

/** Shown digits of a commit SHA in `display`, as the Hub UI does. */
const SHORT_SHA_LENGTH = 7;

/** Path actions that name a file at a revision; all are rewritten to `resolve/`. */
const FILE_ACTIONS: ReadonlySet<string> = new Set(['blob', 'resolve', 'raw']);

/** First path segments that are site pages, not repos (a repo cannot be named like these). */
const SITE_PAGES: ReadonlySet<string> = new Set([
  'models',
  'datasets',
  'spaces',
  'docs',
  'settings',
  'login',
  'join',
  'logout',
  'organizations',
  'collections',
  'papers',
  'blog',
  'pricing',
  'posts',
  'learn',
  'tasks',
  'chat',
  'enterprise',
  'new',
  'new-dataset',
  'new-space',
  'search',
  'notifications',
  'inference-endpoints',
  'changelog',
  'terms-of-service',
  'privacy',
]);

/** `refs/<kind>/<name>` revisions whose name is one more segment (PR heads and the dataset converter branches). */
const REF_KINDS: ReadonlySet<string> = new Set(['pr', 'convert']);

const SHA40 = /^[0-9a-f]{40}$/i;
// Control characters never belong in a link; rejecting them avoids header-injection-looking input.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const HOST_AND_PORT = /^[^/?#]+:\d+(?:[/?#]|$)/;

const HINT = 'Paste an https:// link to a .safetensors file, a Hugging Face link, or a repo id like org/name.';

export function normalizeSourceUrl(input: string): NormalizeResult {
  const text = input.trim();
  if (text === '') {
    return { error: `The address is empty. ${HINT}` };
  }
  if (text.length > MAX_INPUT_LENGTH) {
    return { error: `The address is longer than ${MAX_INPUT_LENGTH} characters, so it is not a link. ${HINT}` };
  }
  if (CONTROL_CHARS.test(text)) {
    return { error: `The address contains control characters (line breaks, tabs…). ${HINT}` };
  }

  const absolute = toAbsolute(text);
  if ('error' in absolute) {
    return absolute;
  }
  const parsed = parseUrl(absolute.url);
  if (parsed === null) {
    return { error: `“${shorten(text)}” is not a valid address. ${HINT}` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return schemeError(parsed.protocol.slice(0, -1));
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return {
      error:
        'Links with a user name or password (user:pass@host) are refused: the credentials would be sent to the ' +
        'server and kept in history. For gated Hugging Face repos, use the access-token field instead.',
    };
  }
  if (HF_HOSTS.has(parsed.hostname) && parsed.port === '') {
    return normalizeHubUrl(parsed);
  }
  return { url: parsed.href, kind: 'generic', display: genericDisplay(parsed) };
}

/** Adds the scheme a user left out: hosts get `https://`, anything else is read as a Hub path or repo id. */
function toAbsolute(text: string): { url: string } | { error: string } {
  const scheme = SCHEME.exec(text);
  if (scheme) {
    const name = scheme[1].toLowerCase();
    if (name === 'http' || name === 'https') {
      return { url: text };
    }
    // `localhost:8080/x` parses as scheme "localhost"; say what is missing instead of "unsupported scheme".
    if (HOST_AND_PORT.test(text)) {
      return { error: `Add http:// or https:// in front of “${shorten(text)}”.` };
    }
    return schemeError(name);
  }
  if (text.startsWith('//')) {
    return { url: `https:${text}` };
  }
  const firstSegment = text.split(/[/?#]/, 1)[0];
  if (!text.includes('/') && (isPickableFileName(text) || /\.json$/i.test(text))) {
    return {
      error: `“${shorten(text)}” looks like a file name, not a link. Drop the file on the page, or paste its full URL.`,
    };
  }
  if (firstSegment.includes('.')) {
    return { url: `https://${text}` };
  }
  if (firstSegment.toLowerCase() === 'localhost') {
    // A local dev server almost never has TLS.
    return { url: `http://${text}` };
  }
  // `org/name`, `datasets/org/name/blob/main/x.safetensors`, `gpt2`: Hub paths without the host.
  return { url: `${HF_HUB_BASE}/${text}` };
}

function schemeError(scheme: string): { error: string } {
  const local =
    scheme === 'file' || scheme === 'blob' || scheme === 'content'
      ? ' To open a file on this computer, drop it on the page or use “Choose file”.'
      : '';
  return { error: `Only http:// and https:// links can be opened (this one starts with “${scheme}:”).${local}` };
}

function normalizeHubUrl(parsed: URL): NormalizeResult {
  const decoded = decodeSegments(parsed.pathname.split('/').filter((segment) => segment !== ''));
  if ('error' in decoded) {
    return decoded;
  }
  const segments = decoded.segments;
  if (segments.length === 0) {
    return { error: `That is the Hugging Face home page, not a repository or file. ${HINT}` };
  }
  if (segments[0] === 'api') {
    // API URLs (e.g. /api/resolve-cache/…) are already fetchable as they are; keep them untouched.
    return { url: parsed.href, kind: 'generic', display: genericDisplay(parsed) };
  }

  let type: HfRepoType = 'model';
  let index = 0;
  if (segments[0] === 'datasets' || segments[0] === 'spaces') {
    type = segments[0] === 'datasets' ? 'dataset' : 'space';
    index = 1;
  } else if (SITE_PAGES.has(segments[0])) {
    return { error: `“${shorten(parsed.href)}” is a Hugging Face site page, not a repository or file. ${HINT}` };
  }
  if (segments.length <= index) {
    return { error: `“${shorten(parsed.href)}” lists ${type} repositories; open one repository first. ${HINT}` };
  }

  // A repo id is `org/name`, except legacy single-segment ids (`gpt2`) that are followed directly by an action.
  const single = segments.length === index + 1 || isAction(segments[index + 1]);
  const idParts = single ? [segments[index]] : [segments[index], segments[index + 1]];
  for (const part of idParts) {
    if (!isRepoPart(part)) {
      return { error: `“${shorten(part)}” is not a valid Hugging Face repository name.` };
    }
  }
  const id = idParts.join('/');
  const rest = segments.slice(index + idParts.length);
  const showFileInfo = parsed.searchParams.get('show_file_info');

  if (rest.length === 0) {
    if (showFileInfo) {
      return fileResult(type, id, DEFAULT_REVISION, showFileInfo.split('/'));
    }
    return repoResult(type, id, DEFAULT_REVISION, []);
  }

  const action = rest[0];
  if (FILE_ACTIONS.has(action)) {
    const revision = takeRevision(rest.slice(1));
    if ('error' in revision) {
      return revision;
    }
    if (revision.rest.length === 0) {
      return {
        error: `The link names revision “${revision.revision}” of ${id} but no file. Add the file path, e.g. …/${action}/${revision.revision}/model.safetensors.`,
      };
    }
    return fileResult(type, id, revision.revision, revision.rest);
  }
  if (action === 'tree') {
    if (rest.length === 1) {
      return repoResult(type, id, DEFAULT_REVISION, []);
    }
    const revision = takeRevision(rest.slice(1));
    if ('error' in revision) {
      return revision;
    }
    if (showFileInfo) {
      return fileResult(type, id, revision.revision, showFileInfo.split('/'));
    }
    return repoResult(type, id, revision.revision, revision.rest);
  }
  if ((action === 'commit' || action === 'commits') && rest.length >= 2) {
    const revision = takeRevision(rest.slice(1));
    return 'error' in revision ? revision : repoResult(type, id, revision.revision, []);
  }
  // Other repo tabs (discussions, settings, edit…): the repository itself is what the user means.
  return repoResult(type, id, DEFAULT_REVISION, []);
}

function isAction(segment: string | undefined): boolean {
  return segment !== undefined && (FILE_ACTIONS.has(segment) || segment === 'tree');
}

function decodeSegments(raw: string[]): { segments: string[] } | { error: string } {
  const segments: string[] = [];
  for (const segment of raw) {
    try {
      segments.push(decodeURIComponent(segment));
    } catch {
      return { error: `The link has a broken %-escape in “${shorten(segment)}”.` };
    }
  }
  return { segments };
}

/**
 * Reads a revision from decoded path segments. `refs/pr/3` arrives either as one segment (the Hub's own
 * `refs%2Fpr%2F3` form, decoded) or as three (`refs/pr/3`, which the Hub also accepts).
 */
function takeRevision(segments: string[]): { revision: string; rest: string[] } | { error: string } {
  if (segments.length === 0) {
    return { error: 'The link names no revision (branch, tag or commit).' };
  }
  let revision = segments[0];
  let rest = segments.slice(1);
  if (revision === 'refs' && segments.length >= 3 && REF_KINDS.has(segments[1])) {
    if (segments[1] === 'pr' && !/^\d+$/.test(segments[2])) {
      return { error: `“refs/pr/${shorten(segments[2])}” is not a pull-request revision (expected refs/pr/<number>).` };
    }
    revision = segments.slice(0, 3).join('/');
    rest = segments.slice(3);
  }
  if (revision.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    return { error: `“${shorten(revision)}” is not a valid revision.` };
  }
  return { revision, rest };
}

/** Splits decoded segments again on `/` (a pasted `%2F` inside a file path) and refuses `.`/`..` segments. */
function cleanPath(segments: string[]): string[] | { error: string } {
  const parts = segments.flatMap((segment) => segment.split('/')).filter((part) => part !== '');
  if (parts.some((part) => part === '.' || part === '..')) {
    return { error: 'File paths with “.” or “..” segments are refused.' };
  }
  return parts;
}

function fileResult(type: HfRepoType, id: string, revision: string, pathSegments: string[]): NormalizeResult {
  const parts = cleanPath(pathSegments);
  if ('error' in parts) {
    return parts;
  }
  if (parts.length === 0) {
    return { error: `The link names no file in ${id}.` };
  }
  const path = parts.join('/');
  const kind: SourceUrlKind = indexStem(path) !== null ? 'hf-index' : 'hf-file';
  const repo: HubRepo = { base: HF_HUB_BASE, type, id, revision, path };
  return { url: resolveUrl(repo, path), kind, repo, display: repoDisplay(repo) };
}

function repoResult(type: HfRepoType, id: string, revision: string, pathSegments: string[]): NormalizeResult {
  const parts = cleanPath(pathSegments);
  if ('error' in parts) {
    return parts;
  }
  const repo: HubRepo = { base: HF_HUB_BASE, type, id, revision };
  if (parts.length > 0) {
    repo.path = parts.join('/');
  }
  const tail = repo.path === undefined ? '' : `/${encodePath(repo.path)}`;
  return {
    url: `${HF_HUB_BASE}/${typePrefix(type)}${id}/tree/${encodeURIComponent(revision)}${tail}`,
    kind: 'hf-repo',
    repo,
    display: repoDisplay(repo),
  };
}

function genericDisplay(parsed: URL): string {
  let path = parsed.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Keep the encoded form; the display is cosmetic.
  }
  return `${parsed.host}${path === '/' ? '' : path}`;
}

/** Keeps quoted user input short in messages. */
function shorten(text: string): string {
  return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS - 1)}…` : text;
}

// ---------------------------------------------------------------------------------------------------------------
// Repositories: listing URLs, file URLs, display names.

const TYPE_SEGMENTS: Readonly<Record<string, HfRepoType>> = { models: 'model', datasets: 'dataset', spaces: 'space' };

/**
 * Recognises a listing URL: any http(s) URL whose path ends in `/api/<models|datasets|spaces>/<org>/<name>/tree/
 * <rev>` (optionally followed by a subfolder). Returns null for anything else.
 */
export function parseHubApiTreeUrl(url: string): HubRepo | null {
  const parsed = parseUrl(url);
  if (parsed === null) {
    return null;
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.username || parsed.password) {
    return null;
  }
  const raw = parsed.pathname.split('/').filter((segment) => segment !== '');
  let segments: string[];
  try {
    segments = raw.map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
  for (let at = 0; at < segments.length; at++) {
    if (segments[at] !== 'api' || !(segments[at + 1] in TYPE_SEGMENTS)) {
      continue;
    }
    const type = TYPE_SEGMENTS[segments[at + 1]];
    // `org/name/tree/…` is preferred; a legacy single-segment id reads `name/tree/…`.
    for (const idLength of [2, 1]) {
      const treeAt = at + 2 + idLength;
      if (segments[treeAt] !== 'tree' || segments.length <= treeAt + 1) {
        continue;
      }
      const idParts = segments.slice(at + 2, treeAt);
      if (!idParts.every(isRepoPart)) {
        return null;
      }
      const revision = segments[treeAt + 1];
      const pathParts = segments.slice(treeAt + 2).flatMap((segment) => segment.split('/'));
      if (revision === '' || revision.split('/').some((part) => part === '' || part === '.' || part === '..')) {
        return null;
      }
      if (pathParts.some((part) => part === '' || part === '.' || part === '..')) {
        return null;
      }
      const prefix = raw.slice(0, at).join('/');
      const repo: HubRepo = {
        base: `${parsed.origin}${prefix === '' ? '' : `/${prefix}`}`,
        type,
        id: idParts.join('/'),
        revision,
      };
      if (pathParts.length > 0) {
        repo.path = pathParts.join('/');
      }
      return repo;
    }
    return null;
  }
  return null;
}

function typeSegment(type: HfRepoType): string {
  return `${type}s`;
}

function typePrefix(type: HfRepoType): string {
  return type === 'model' ? '' : `${type}s/`;
}

function encodePath(path: string): string {
  return path
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/');
}

/** The first listing page: recursive, without the expensive per-file commit details (`expand=false`). */
export function treeUrl(repo: HubRepo): string {
  const folder = repo.path ? `/${encodePath(repo.path)}` : '';
  return (
    `${repo.base}/api/${typeSegment(repo.type)}/${repo.id}/tree/${encodeURIComponent(repo.revision)}${folder}` +
    '?recursive=true&expand=false'
  );
}

/** Where a file of the repository is downloaded: the `resolve/` endpoint, which answers Range requests. */
export function resolveUrl(repo: HubRepo, filePath: string): string {
  return `${repo.base}/${typePrefix(repo.type)}${repo.id}/resolve/${encodeURIComponent(repo.revision)}/${encodePath(filePath)}`;
}

/**
 * The one display name of a repository, folder or file: `org/name`, then `/path` when there is one, then
 * ` @ revision` when it is not `main` (a commit shortened to 7 digits, as the Hub UI does).
 */
export function repoDisplay(repo: HubRepo): string {
  const base = `${typePrefix(repo.type)}${repo.id}${repo.path ? `/${repo.path}` : ''}`;
  if (repo.revision === DEFAULT_REVISION) {
    return base;
  }
  return `${base} @ ${SHA40.test(repo.revision) ? repo.revision.slice(0, SHORT_SHA_LENGTH) : repo.revision}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Shards named by a remote index: resolved against the index's folder, as transformers and huggingface_hub do.

/**
 * The shard's URL, or null when the name is unsafe (validateShardName: `..`, absolute paths, URLs, backslashes,
 * control characters) or would resolve outside the index's folder. Each path segment is percent-encoded, so `#`,
 * `?`, `%` and spaces in a name stay part of the path. The index URL's query and fragment are not carried over.
 */
export function resolveShardUrl(indexUrl: string, shardName: string): string | null {
  if (!validateShardName(shardName).ok) {
    return null;
  }
  const folder = parseUrl('.', indexUrl);
  if (folder === null) {
    return null;
  }
  const encoded = shardName
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/');
  const resolved = new URL(encoded, folder);
  // Defence in depth: whatever the name, the result stays under the index's folder on the same origin.
  if (resolved.origin !== folder.origin || !resolved.pathname.startsWith(folder.pathname)) {
    return null;
  }
  return resolved.href;
}

/** Whether a URL names a shard index (`….index.json`), judged by its path alone. */
export function isIndexUrl(url: string): boolean {
  try {
    return new URL(url).pathname.toLowerCase().endsWith('.index.json');
  } catch {
    return false;
  }
}
