/**
 * What to call a sharded model: its repository (`org/name`) or its folder, not `model.safetensors.index.json`,
 * which every sharded model shares. Single files keep their file name.
 */
import type { LoadResult } from '../../core/result';

/** Hub-style URL paths: `/org/name/resolve/rev/…`, `/org/name/blob/…`, `/org/name/raw/…`. */
const HUB_REPO_PATH = /^\/(?:(?:api\/)?models\/)?([^/]+\/[^/]+)\/(?:resolve|blob|raw|tree)\//;

export function modelTitle(result: LoadResult): string | null {
  if (!result.shards) {
    return null;
  }
  if (result.repo) {
    return result.repo.display;
  }
  const chosen = result.choices?.items.find((item) => item.key === result.choices?.selected);
  const folder = chosen?.folder.replace(/\/+$/, '') ?? '';
  if (folder !== '') {
    return folder;
  }
  if (result.source.kind === 'url') {
    return repoOrFolderOfUrl(result.source.url);
  }
  return null;
}

/** `org/name` of a Hub-style URL, else the last folder of its path; null when there is none. */
export function repoOrFolderOfUrl(url: string): string | null {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return null;
  }
  const hub = HUB_REPO_PATH.exec(path);
  if (hub) {
    return hub[1];
  }
  const segments = path.split('/').filter(Boolean);
  return segments.length >= 2 ? segments[segments.length - 2] : null;
}
