/**
 * What the main load and compare source B share: how a set of dropped or picked files becomes one source.
 */
import type { LocalFileEntry, SourceSpec } from '../core/result';

/**
 * A lone model file opens as itself; anything else (several files, a folder, a lone index or sidecar, which only
 * makes sense with its shards) opens as a group the worker sorts into models. Null for an empty drop.
 */
export function sourceForFiles(files: readonly LocalFileEntry[]): SourceSpec | null {
  if (files.length === 0) {
    return null;
  }
  const [first] = files;
  if (files.length === 1 && !first.path.toLowerCase().endsWith('.json')) {
    const name = first.path.slice(first.path.lastIndexOf('/') + 1);
    return { kind: 'file', file: first.blob instanceof File ? first.blob : new File([first.blob], name) };
  }
  return { kind: 'files', files: [...files] };
}
