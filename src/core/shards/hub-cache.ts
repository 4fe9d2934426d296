/**
 * The Hugging Face cache (`~/.cache/huggingface/hub`, huggingface_hub's layout) dropped as a folder:
 * `models--<org>--<name>/snapshots/<commit>/…` holds each revision's files, and `models--<org>--<name>/refs/<branch>`
 * is a text file holding the commit a branch (`main`, `refs/pr/1`) last resolved to. A snapshot is shown as the
 * repository and revision it holds, with the branches that point at it, and `main`'s snapshot opens first. Pure.
 */

/** A snapshot folder: its repository and commit; the rest of the path is kept. */
const HUB_CACHE_SNAPSHOT = /^(?:.*\/)?models--([^/]+?)--([^/]+)\/snapshots\/([0-9a-f]{7})[0-9a-f]*\//;

/** A ref file: `models--<org>--<name>/refs/<branch>` (a branch name may hold slashes: `refs/pr/1`). */
const HUB_CACHE_REF = /^((?:.*\/)?models--[^/]+?--[^/]+\/)refs\/(.+)$/;

/** A full commit id, as a ref file holds it. */
const COMMIT = /^[0-9a-f]{40}$/;

/** Snapshot folder path (`…/models--org--name/snapshots/<commit>/`) → the branches that point at it. */
export type HubCacheRefs = ReadonlyMap<string, readonly string[]>;

export function isHubCacheRefPath(path: string): boolean {
  return HUB_CACHE_REF.test(path);
}

/** The refs the ref files say, from their paths and texts; a file that holds no commit id says nothing. */
export function hubCacheRefsOf(files: ReadonlyArray<{ path: string; text: string }>): HubCacheRefs {
  const refs = new Map<string, string[]>();
  for (const { path, text } of files) {
    const match = HUB_CACHE_REF.exec(path);
    const commit = text.trim();
    if (match === null || !COMMIT.test(commit)) {
      continue;
    }
    const snapshot = `${match[1]}snapshots/${commit}/`;
    refs.set(snapshot, [...(refs.get(snapshot) ?? []), match[2]].sort(mainFirst));
  }
  return refs;
}

function mainFirst(a: string, b: string): number {
  return a === 'main' ? -1 : b === 'main' ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

/** The branches pointing at the snapshot that holds `path`; empty outside a snapshot or when none does. */
export function refsOfPath(path: string, refs: HubCacheRefs): readonly string[] {
  const match = HUB_CACHE_SNAPSHOT.exec(path);
  return match === null ? [] : (refs.get(match[0]) ?? []);
}

/**
 * A path as a choice shows it: a Hugging Face cache snapshot (and the cache folders above it) as
 * `org/name@abc1234/…`, with the branches that point at it (`org/name@abc1234 (main)/…`).
 */
export function displayPath(path: string, refs: HubCacheRefs = new Map()): string {
  return path.replace(HUB_CACHE_SNAPSHOT, (prefix: string, org: string, name: string, commit: string) => {
    const branches = refs.get(prefix) ?? [];
    return `${org}/${name}@${commit}${branches.length > 0 ? ` (${branches.join(', ')})` : ''}/`;
  });
}
