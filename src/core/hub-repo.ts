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

/** `org/name`, as the Hub allows a repo id. */
export function isRepoId(text: string): boolean {
  const parts = text.split('/');
  return parts.length === 2 && parts.every(isRepoPart);
}

/** `<base>/api/models/<org>/<name>/tree/…`: a repository listing on a Hub API. */
const LISTING_URL = /^(https?:\/\/[^?#]*?)\/api\/models\/([^/?#]+\/[^/?#]+)\/tree\//;
/** `<base>[/datasets|/spaces]/<org>/<name>/(resolve|blob|raw)/…`: a file of a Hub repository. */
const FILE_URL = /^(https?:\/\/[^?#]*?)(?:\/(?:datasets|spaces))?\/([^/?#]+\/[^/?#]+)\/(?:resolve|blob|raw)\//;

/** The Hub a listing or file URL is on, and the repo id it names; null for any other URL. */
function hubUrl(url: string): { base: string; repoId: string } | null {
  const match = LISTING_URL.exec(url) ?? FILE_URL.exec(url);
  return match === null ? null : { base: match[1], repoId: match[2] };
}

/**
 * What to open for the model repository `repoId` (`org/name`) that a file of the source names (an adapter's
 * `base_model_name_or_path`): the listing of that repository on the same Hub as the source when one of `sourceUrls`
 * (what was typed, what was fetched) is a Hub listing or file URL (huggingface.co, a mirror, a proxy, the tests'
 * fake Hub), else the repo id itself, which opens on huggingface.co. Null when `repoId` is no repo id (a local path
 * such as `/models/llama` or `./base`).
 */
export function relatedRepoSource(repoId: string, sourceUrls: readonly string[]): string | null {
  if (!isRepoId(repoId)) {
    return null;
  }
  const hub = sourceUrls.map(hubUrl).find((found) => found !== null);
  return hub ? `${hub.base}/api/models/${repoId}/tree/main` : repoId;
}

/**
 * The Hub repository a load came from, as `org/name`: from its listing's display (`org/name @ rev/folder`), else from
 * a listing or file URL, else from what was typed when that is a repo id. Null for anything else (a local file, a
 * plain server).
 */
export function repoIdOf(source: { display?: string; urls: readonly string[] }): string | null {
  const candidates = [
    ...(source.display ? [source.display.split(' @ ')[0].split('/').slice(0, 2).join('/')] : []),
    ...source.urls.flatMap((url) => [hubUrl(url)?.repoId ?? '', url]),
  ];
  return candidates.find(isRepoId) ?? null;
}
