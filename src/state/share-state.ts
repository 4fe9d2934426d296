/**
 * Pure encode/decode of the shareable view state ⇄ URL query parameters. Versioned, and tolerant per parameter:
 * a bad `sort` does not spoil a good `url` (the Perfetto route-schema approach). Tokens never appear here.
 */
import { SORT_KEYS, type SortKey } from '../core/table-query';
import { PANELS, type Panel } from './view-slice';

const SHARE_STATE_VERSION = 1;

/** Long filters are almost certainly pasted garbage; capping keeps share links usable. */
const MAX_FILTER_CHARS = 500;

/** URLs longer than this are not share links anyone typed; browsers and servers cut them off anyway. */
const MAX_URL_CHARS = 4_000;

export interface ShareState {
  url?: string;
  /** For a repository or folder-like source: which of its models is open (a ModelChoice key, a path in the repo). */
  select?: string;
  compare?: string;
  filter?: string;
  sortKey?: SortKey;
  descending?: boolean;
  row?: number;
  panel?: Panel;
  dtype?: string;
  /** Open the selected tensor's values (read within the default budget; a larger read needs a click). */
  values?: boolean;
}

export interface DecodedShareState {
  state: ShareState;
  /** Parameters that were present but invalid, with why, so the UI can say what it ignored. */
  rejected: Array<{ param: string; reason: string }>;
}

const ALLOWED_SCHEMES = new Set(['http:', 'https:']);

function validateSourceUrl(value: string): string | null {
  if (value.length > MAX_URL_CHARS) {
    return `longer than ${MAX_URL_CHARS} characters`;
  }
  // Bare repo ids (org/name) are allowed; anything with a scheme must be http(s).
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value.trim());
  if (scheme && !ALLOWED_SCHEMES.has(`${scheme[1].toLowerCase()}:`)) {
    return `the ${scheme[1].toLowerCase()}: scheme is not allowed; only http(s) URLs and Hugging Face repo ids load`;
  }
  return null;
}

/** Repository paths are short; control characters never belong in one. */
const MAX_MODEL_KEY_CHARS = 1_000;

function validateModelKey(value: string): string | null {
  if (value === '' || value.length > MAX_MODEL_KEY_CHARS) {
    return value === '' ? 'empty' : `longer than ${MAX_MODEL_KEY_CHARS} characters`;
  }
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point.
  return /[\u0000-\u001f\u007f]/.test(value) ? 'contains control characters' : null;
}

export function decodeShareState(search: string): DecodedShareState {
  const params = new URLSearchParams(search);
  const state: ShareState = {};
  const rejected: DecodedShareState['rejected'] = [];
  const version = params.get('v');
  if (version !== null && version !== String(SHARE_STATE_VERSION)) {
    // A future version may mean something else by the same names; only the source survives that.
    rejected.push({ param: 'v', reason: `unknown version ${version}; only the source URL was kept` });
  }
  const futureVersion = version !== null && version !== String(SHARE_STATE_VERSION);

  for (const name of ['url', 'compare'] as const) {
    const value = params.get(name);
    if (value === null) {
      continue;
    }
    const problem = value.trim() === '' ? 'empty' : validateSourceUrl(value);
    if (problem) {
      rejected.push({ param: name, reason: problem });
    } else {
      state[name] = value.trim();
    }
  }
  const select = params.get('model');
  if (select !== null) {
    const problem = validateModelKey(select);
    if (problem) {
      rejected.push({ param: 'model', reason: problem });
    } else {
      state.select = select;
    }
  }
  if (futureVersion) {
    return { state, rejected };
  }

  const filter = params.get('q');
  if (filter !== null) {
    if (filter.length > MAX_FILTER_CHARS) {
      rejected.push({ param: 'q', reason: `longer than ${MAX_FILTER_CHARS} characters` });
    } else {
      state.filter = filter;
    }
  }
  const sort = params.get('sort');
  if (sort !== null) {
    const match = /^([a-z]+)(?::(asc|desc))?$/.exec(sort);
    if (match && (SORT_KEYS as readonly string[]).includes(match[1])) {
      state.sortKey = match[1] as SortKey;
      state.descending = match[2] === 'desc';
    } else {
      rejected.push({ param: 'sort', reason: `expected one of ${SORT_KEYS.join(', ')} with :asc or :desc` });
    }
  }
  const row = params.get('row');
  if (row !== null) {
    if (/^\d{1,9}$/.test(row)) {
      state.row = Number(row);
    } else {
      rejected.push({ param: 'row', reason: 'expected a row number' });
    }
  }
  const panel = params.get('panel');
  if (panel !== null) {
    if ((PANELS as readonly string[]).includes(panel)) {
      state.panel = panel as Panel;
    } else {
      rejected.push({ param: 'panel', reason: `expected one of ${PANELS.join(', ')}` });
    }
  }
  const dtype = params.get('dtype');
  if (dtype !== null) {
    if (/^[A-Z0-9_]{1,32}$/.test(dtype)) {
      state.dtype = dtype;
    } else {
      rejected.push({ param: 'dtype', reason: 'not a dtype name' });
    }
  }
  const values = params.get('values');
  if (values !== null) {
    if (values === '1' && state.row !== undefined) {
      state.values = true;
    } else {
      rejected.push({ param: 'values', reason: 'expected values=1 with a row' });
    }
  }
  return { state, rejected };
}

/** Only non-default values go into the link, so links stay short. */
export function encodeShareState(state: ShareState): string {
  const params = new URLSearchParams();
  if (!state.url) {
    return '';
  }
  params.set('v', String(SHARE_STATE_VERSION));
  params.set('url', state.url);
  if (state.select) {
    params.set('model', state.select);
  }
  if (state.compare) {
    params.set('compare', state.compare);
  }
  if (state.filter) {
    params.set('q', state.filter);
  }
  if (state.sortKey && state.sortKey !== 'index') {
    params.set('sort', `${state.sortKey}:${state.descending ? 'desc' : 'asc'}`);
  }
  if (state.row !== undefined) {
    params.set('row', String(state.row));
  }
  if (state.panel && state.panel !== 'tensors') {
    params.set('panel', state.panel);
  }
  if (state.dtype) {
    params.set('dtype', state.dtype);
  }
  if (state.values && state.row !== undefined) {
    params.set('values', '1');
  }
  return `?${params.toString()}`;
}

/** The link that opens `state` on the page at `page` (an absolute URL; its own query and hash are replaced). */
export function shareLink(page: string, state: ShareState): string {
  const link = new URL(page);
  link.search = encodeShareState(state);
  link.hash = '';
  return link.href;
}
