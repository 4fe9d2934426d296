/**
 * Hugging Face repository ids (`org/name`), for the IO layer that turns links into requests (io/sources/hub.ts)
 * and for views that open a repository a file names (an adapter's base model).
 */
import { MAX_REPO_PART_LENGTH } from './limits';

/** One part of a repo id, as the Hub allows it: letters, digits, `_`, `.` and `-`, not starting with `.` or `-`. */
const REPO_PART = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function isRepoPart(part: string): boolean {
  return REPO_PART.test(part) && part.length <= MAX_REPO_PART_LENGTH && !part.includes('..');
}

/** `<base>/api/models/<org>/<name>/tree/…`: a repository listing on a Hub API. */
const LISTING_URL = /^(https?:\/\/[^?#]*?)\/api\/models\/[^/?#]+\/[^/?#]+\/tree\//;
/** `<base>[/datasets|/spaces]/<org>/<name>/(resolve|blob|raw)/…`: a file of a Hub repository. */
const FILE_URL = /^(https?:\/\/[^?#]*?)(?:\/(?:datasets|spaces))?\/[^/?#]+\/[^/?#]+\/(?:resolve|blob|raw)\//;

/**
 * What to open for the model repository `repoId` (`org/name`) that a file of the source names (an adapter's
 * `base_model_name_or_path`): the listing of that repository on the same Hub as the source when one of `sourceUrls`
 * (what was typed, what was fetched) is a Hub listing or file URL (huggingface.co, a mirror, a proxy, the tests'
 * fake Hub), else the repo id itself, which opens on huggingface.co. Null when `repoId` is no repo id (a local path
 * such as `/models/llama` or `./base`).
 */
export function relatedRepoSource(repoId: string, sourceUrls: readonly string[]): string | null {
  const parts = repoId.split('/');
  if (parts.length !== 2 || !parts.every(isRepoPart)) {
    return null;
  }
  for (const url of sourceUrls) {
    const hub = LISTING_URL.exec(url) ?? FILE_URL.exec(url);
    if (hub !== null) {
      return `${hub[1]}/api/models/${repoId}/tree/main`;
    }
  }
  return repoId;
}

/** `<base>/api/models/<org>/<name>/tree/…` or `<base>/<org>/<name>/(resolve|blob|raw)/…`: the repo id they name. */
const REPO_IN_URL =
  /\/api\/models\/([^/?#]+)\/([^/?#]+)\/tree\/|^https?:\/\/[^/?#]+(?:\/[^?#]*?)?\/([^/?#]+)\/([^/?#]+)\/(?:resolve|blob|raw)\//;

/**
 * The Hub repository a load came from, as `org/name`: from its listing's display (`org/name @ rev/folder`), else from
 * a listing or file URL, else from what was typed when that is a repo id. Null for anything else (a local file, a
 * plain server).
 */
export function repoIdOf(source: { display?: string; urls: readonly string[] }): string | null {
  const candidates: string[] = [];
  if (source.display) {
    candidates.push(source.display.split(' @ ')[0].split('/').slice(0, 2).join('/'));
  }
  for (const url of source.urls) {
    const match = REPO_IN_URL.exec(url);
    if (match) {
      candidates.push(match[1] !== undefined ? `${match[1]}/${match[2]}` : `${match[3]}/${match[4]}`);
    }
    candidates.push(url);
  }
  return candidates.find((candidate) => relatedRepoSource(candidate, []) !== null) ?? null;
}
