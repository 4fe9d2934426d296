/**
 * Where a shard named by a remote index lives: its name resolved against the index's folder URL, as transformers
 * and huggingface_hub do with the index's folder on disk. Names that could leave that folder are never resolved.
 */
import { validateShardName } from '../core/shards/shard-names';

/**
 * The shard's URL, or null when the name is unsafe (validateShardName: `..`, absolute paths, URLs, backslashes,
 * control characters) or would resolve outside the index's folder. Each path segment is percent-encoded, so `#`,
 * `?`, `%` and spaces in a name stay part of the path. The index URL's query and fragment are not carried over.
 */
export function resolveShardUrl(indexUrl: string, shardName: string): string | null {
  if (!validateShardName(shardName).ok) {
    return null;
  }
  let folder: URL;
  try {
    folder = new URL('.', indexUrl);
  } catch {
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
