/**
 * Turns what the user drops or picks (files, whole folders) into a flat list of files with their folder-relative
 * paths, so shards, their index and config.json can be grouped by folder. Folders are walked with
 * `DataTransferItem.webkitGetAsEntry()` (every current browser), or `getAsFileSystemHandle()` where only that
 * exists; `<input webkitdirectory>` gives `File.webkitRelativePath` directly. Nothing is read here but names.
 */
import type { LocalFileEntry } from '../../core/result';
import { MAX_DROPPED_FILES } from '../../core/limits';

/**
 * Hidden folders (`.git`, `.cache/huggingface` in a downloaded snapshot) hold thousands of bookkeeping files and
 * never the model, so they are not walked.
 */
function isHidden(name: string): boolean {
  return name.startsWith('.');
}

/** Files from `<input type="file" multiple>` or `<input webkitdirectory>`. */
export function filesFromInput(list: FileList | readonly File[]): LocalFileEntry[] {
  const entries: LocalFileEntry[] = [];
  for (const file of Array.from(list)) {
    const path = file.webkitRelativePath || file.name;
    // The first folder is the one the user chose (`.ollama`, say): only hidden folders inside it are skipped, as
    // when a folder is dropped.
    if (path.split('/').slice(1, -1).some(isHidden)) {
      continue;
    }
    entries.push({ blob: file, path });
    if (entries.length >= MAX_DROPPED_FILES) {
      break;
    }
  }
  return entries;
}

interface DirectoryHandleLike {
  kind: 'directory';
  name: string;
  values(): AsyncIterable<FileHandleLike | DirectoryHandleLike>;
}

interface FileHandleLike {
  kind: 'file';
  name: string;
  getFile(): Promise<File>;
}

type ItemWithHandle = DataTransferItem & {
  getAsFileSystemHandle?: () => Promise<FileHandleLike | DirectoryHandleLike | null>;
};

/**
 * Everything a drop holds. Must be called synchronously inside the `drop` handler: the items (and their entries)
 * are only readable during the event; the walk itself then runs asynchronously.
 */
export function collectDrop(transfer: DataTransfer): Promise<LocalFileEntry[]> {
  const entries: FileSystemEntry[] = [];
  const handles: Array<Promise<FileHandleLike | DirectoryHandleLike | null>> = [];
  const loose: File[] = [];
  for (const item of Array.from(transfer.items)) {
    if (item.kind !== 'file') {
      continue;
    }
    // Captured now: a synthetic or platform file without an entry still arrives as a plain File.
    const file = item.getAsFile();
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry && (entry.isDirectory || file === null)) {
      entries.push(entry);
      continue;
    }
    const withHandle = item as ItemWithHandle;
    if (entry === null && file === null && typeof withHandle.getAsFileSystemHandle === 'function') {
      handles.push(withHandle.getAsFileSystemHandle());
      continue;
    }
    if (file) {
      loose.push(file);
    }
  }
  if (entries.length === 0 && handles.length === 0 && loose.length === 0) {
    loose.push(...Array.from(transfer.files));
  }
  return (async () => {
    const result: LocalFileEntry[] = loose.map((file) => ({ blob: file, path: file.name }));
    for (const entry of entries) {
      await walkEntry(entry, result);
    }
    for (const pending of handles) {
      const handle = await pending.catch(() => null);
      if (handle) {
        await walkHandle(handle, '', result);
      }
    }
    return result.slice(0, MAX_DROPPED_FILES);
  })();
}

async function walkEntry(entry: FileSystemEntry, out: LocalFileEntry[]): Promise<void> {
  if (out.length >= MAX_DROPPED_FILES) {
    return;
  }
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ blob: file, path: entry.fullPath.replace(/^\/+/, '') });
    return;
  }
  if (!entry.isDirectory) {
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries returns at most 100 entries per call (Chromium); an empty batch means the folder is done.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) {
      return;
    }
    for (const child of batch) {
      if (child.isDirectory && isHidden(child.name)) {
        continue;
      }
      await walkEntry(child, out);
      if (out.length >= MAX_DROPPED_FILES) {
        return;
      }
    }
  }
}

async function walkHandle(
  handle: FileHandleLike | DirectoryHandleLike,
  prefix: string,
  out: LocalFileEntry[],
): Promise<void> {
  if (out.length >= MAX_DROPPED_FILES) {
    return;
  }
  if (handle.kind === 'file') {
    out.push({ blob: await handle.getFile(), path: `${prefix}${handle.name}` });
    return;
  }
  for await (const child of handle.values()) {
    if (child.kind === 'directory' && isHidden(child.name)) {
      continue;
    }
    await walkHandle(child, `${prefix}${handle.name}/`, out);
    if (out.length >= MAX_DROPPED_FILES) {
      return;
    }
  }
}
