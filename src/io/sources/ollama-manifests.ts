/**
 * The manifests of a dropped Ollama store, read whole and parsed so the grouping can name its blobs
 * (core/shards/ollama-store.ts). An unreadable, oversized or non-JSON manifest only costs the names it would give.
 */
import { ollamaBlobs, type OllamaBlob } from '../../core/shards/ollama-store';
import { MAX_OLLAMA_MANIFEST_BYTES, MAX_OLLAMA_MANIFESTS } from '../../core/shards/shard-limits';
import { readLocalJson } from './sidecars';

/** What the manifests among `paths` say of each blob, and the bytes read to learn it. */
export async function readOllamaManifests(
  paths: readonly string[],
  byPath: ReadonlyMap<string, Blob>,
): Promise<{ blobs: Map<string, OllamaBlob>; bytesRead: number }> {
  const manifests: Array<{ path: string; value: unknown }> = [];
  let bytesRead = 0;
  for (const path of paths.slice(0, MAX_OLLAMA_MANIFESTS)) {
    const file = byPath.get(path);
    if (!file || file.size > MAX_OLLAMA_MANIFEST_BYTES) {
      continue;
    }
    bytesRead += file.size;
    const value = await readLocalJson(file, MAX_OLLAMA_MANIFEST_BYTES);
    if (value !== undefined) {
      manifests.push({ path, value });
    }
  }
  return { blobs: ollamaBlobs(manifests), bytesRead };
}
