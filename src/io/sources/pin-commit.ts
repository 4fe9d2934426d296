/**
 * Links that keep showing the same bytes: a Hub file or index opened on a branch (`main`, a tag, a PR ref) is
 * pinned to the commit it resolved to, so the share bar can offer `…/resolve/<sha>/…`.
 *
 * The commit comes from `X-Repo-Commit` when a Hub answer was readable (small files such as the index or
 * config.json are answered by huggingface.co itself). LFS files are not: their answer comes from the CDN after a
 * cross-origin 302, whose headers a page cannot read. Then one small API request asks the Hub which commit the
 * revision names (`GET /api/models/<id>/revision/<rev>` → `sha`), counted with the load's other requests.
 */
import type { SourceRef } from '../../core/result';
import { normalizeSourceUrl, resolveUrl, type HubRepo } from './hub';
import type { Meter } from './meter';
import { mayReceiveToken } from '../token-policy';
import { MAX_REVISION_ANSWER_BYTES, REVISION_LOOKUP_TIMEOUT_MS } from '../../core/limits';

/** A Hub commit id: the only revision form that never moves. */
const COMMIT_SHA = /^[0-9a-f]{40}$/;

/** `ref` with `commit` set when it is a Hub file or index on a moving revision whose commit could be learned. */
export async function pinToCommit(
  ref: SourceRef,
  meter: Meter,
  token: string | undefined,
  signal: AbortSignal,
): Promise<SourceRef> {
  if (ref.kind !== 'url') {
    return ref;
  }
  const normalized = normalizeSourceUrl(ref.url);
  if ('error' in normalized || (normalized.kind !== 'hf-file' && normalized.kind !== 'hf-index')) {
    return ref;
  }
  const repo = normalized.repo;
  if (!repo?.path || COMMIT_SHA.test(repo.revision)) {
    return ref;
  }
  const seen = meter.repoCommit();
  const sha = seen !== null && COMMIT_SHA.test(seen) ? seen : await revisionCommit(repo, meter, token, signal);
  if (sha === null) {
    return ref;
  }
  return { ...ref, commit: { sha, revision: repo.revision, url: resolveUrl({ ...repo, revision: sha }, repo.path) } };
}

async function revisionCommit(
  repo: HubRepo,
  meter: Meter,
  token: string | undefined,
  signal: AbortSignal,
): Promise<string | null> {
  const url = `${repo.base}/api/${repo.type}s/${repo.id}/revision/${encodeURIComponent(repo.revision)}`;
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(stop, REVISION_LOOKUP_TIMEOUT_MS);
  try {
    const headers: Record<string, string> = {};
    if (token && mayReceiveToken(url)) {
      headers.Authorization = `Bearer ${token}`;
    }
    const response = await fetch(url, { headers, signal: controller.signal, cache: 'no-store' });
    const text = response.ok ? await response.text() : '';
    meter.addDirect(1, text.length);
    if (!response.ok || text.length > MAX_REVISION_ANSWER_BYTES) {
      return null;
    }
    const sha = (JSON.parse(text) as { sha?: unknown }).sha;
    return typeof sha === 'string' && COMMIT_SHA.test(sha) ? sha : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  }
}
