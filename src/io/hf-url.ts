/**
 * Turns whatever a user pastes (a Hub page link, a `blob/` or `raw/` link, a repo id, a model page with
 * `?show_file_info=`, any https URL) into the one URL the reader fetches. Pure: no network, no globals.
 *
 * Why normalize: Hub HTML pages have no CORS headers and `raw/` serves the LFS pointer instead of the file, so a
 * pasted page link would fail in confusing ways (facts b7, huggingface-estimate#2). `resolve/` is the only form
 * that answers Range requests with the file's bytes (through a redirect to the CDN).
 */

export type HfRepoType = 'model' | 'dataset' | 'space';

export interface HfRepoRef {
  type: HfRepoType;
  /** `org/name`, or a legacy single-segment id such as `gpt2`. */
  id: string;
  /** Branch, tag, 40-hex commit, or `refs/pr/N` / `refs/convert/<name>`; unencoded. */
  revision: string;
  /** File path (hf-file, hf-index) or optional subfolder (hf-repo); unencoded, `/`-separated. */
  path?: string;
}

export type SourceUrlKind = 'hf-file' | 'hf-repo' | 'hf-index' | 'generic';

export interface NormalizedSourceUrl {
  url: string;
  kind: SourceUrlKind;
  repo?: HfRepoRef;
  /** Short human label: `org/name/model.safetensors @ v1.0`, or host + path for other URLs. */
  display: string;
}

export type NormalizeResult = NormalizedSourceUrl | { error: string };

/** Canonical origin every Hub URL is rewritten to (hf.co and www. redirect there anyway). */
const HF_ORIGIN = 'https://huggingface.co';

/** Host names that serve the Hub's repo pages and resolve endpoints (CDN hosts are deliberately absent). */
const HF_HOSTS: ReadonlySet<string> = new Set(['huggingface.co', 'www.huggingface.co', 'hf.co', 'www.hf.co']);

/** The Hub's default branch; used when a link names no revision. */
const DEFAULT_REVISION = 'main';

/** Longer input is not a link anyone pastes; the bound keeps parsing cheap on a pasted blob of text. */
const MAX_INPUT_LENGTH = 8_192;

/** The Hub's repo-name limit (huggingface_hub `validate_repo_id`); longer parts cannot be a repo id. */
const MAX_REPO_PART_LENGTH = 96;

/** Quoted user input in error messages is cut here so a pasted paragraph does not flood the message. */
const MAX_QUOTED_CHARS = 80;

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

const REPO_PART = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
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
  let parsed: URL;
  try {
    parsed = new URL(absolute.url);
  } catch {
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
  if (!text.includes('/') && /\.(safetensors|json)$/i.test(text)) {
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
  return { url: `${HF_ORIGIN}/${text}` };
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
    if (!REPO_PART.test(part) || part.length > MAX_REPO_PART_LENGTH || part.includes('..')) {
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
  const kind: SourceUrlKind = path.toLowerCase().endsWith('.safetensors.index.json') ? 'hf-index' : 'hf-file';
  return {
    url: `${HF_ORIGIN}/${typePrefix(type)}${id}/resolve/${encodeURIComponent(revision)}/${encodePath(parts)}`,
    kind,
    repo: { type, id, revision, path },
    display: hubDisplay(type, id, revision, path),
  };
}

function repoResult(type: HfRepoType, id: string, revision: string, pathSegments: string[]): NormalizeResult {
  const parts = cleanPath(pathSegments);
  if ('error' in parts) {
    return parts;
  }
  const path = parts.length > 0 ? parts.join('/') : undefined;
  const tail = path === undefined ? '' : `/${encodePath(parts)}`;
  const repo: HfRepoRef = path === undefined ? { type, id, revision } : { type, id, revision, path };
  return {
    url: `${HF_ORIGIN}/${typePrefix(type)}${id}/tree/${encodeURIComponent(revision)}${tail}`,
    kind: 'hf-repo',
    repo,
    display: hubDisplay(type, id, revision, path),
  };
}

function typePrefix(type: HfRepoType): string {
  return type === 'dataset' ? 'datasets/' : type === 'space' ? 'spaces/' : '';
}

/** Each segment fully percent-encoded (spaces, `#`, `?`, `%`, `+`), joined by literal slashes. */
function encodePath(parts: string[]): string {
  return parts.map((part) => encodeURIComponent(part)).join('/');
}

function hubDisplay(type: HfRepoType, id: string, revision: string, path: string | undefined): string {
  const base = `${typePrefix(type)}${id}${path === undefined ? '' : `/${path}`}`;
  if (revision === DEFAULT_REVISION) {
    return base;
  }
  return `${base} @ ${SHA40.test(revision) ? revision.slice(0, SHORT_SHA_LENGTH) : revision}`;
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
