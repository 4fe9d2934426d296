/**
 * The ref files of a dropped Hugging Face cache (`models--<org>--<name>/refs/main`), read whole so the choices can
 * name the snapshots the branches point at (core/shards/hub-cache.ts). An unreadable or oversized one only costs the
 * branch name it would give.
 */
import { hubCacheRefsOf, type HubCacheRefs } from '../../core/shards/hub-cache';
import { MAX_HUB_REF_BYTES, MAX_HUB_REFS } from '../../core/shards/shard-limits';
import { readLocalText } from './sidecars';

/** What the ref files among `paths` say, and the bytes read to learn it. */
export async function readHubCacheRefs(
  paths: readonly string[],
  byPath: ReadonlyMap<string, Blob>,
): Promise<{ refs: HubCacheRefs; bytesRead: number }> {
  const files: Array<{ path: string; text: string }> = [];
  let bytesRead = 0;
  for (const path of paths.slice(0, MAX_HUB_REFS)) {
    const file = byPath.get(path);
    const text = await readLocalText(file, MAX_HUB_REF_BYTES);
    if (file && text !== undefined) {
      bytesRead += file.size;
      files.push({ path, text });
    }
  }
  return { refs: hubCacheRefsOf(files), bytesRead };
}
