/** Folder walking for drops and pickers, with fake DataTransfer items and FileSystem entries (no DOM in Node). */
import { describe, expect, it } from 'vitest';
import { MAX_DROPPED_FILES } from '../../core/limits';
import { collectDrop, filesFromInput } from './dropped-files';

type FakeEntry = {
  name: string;
  fullPath: string;
  isFile: boolean;
  isDirectory: boolean;
  file?: (resolve: (file: File) => void) => void;
  createReader?: () => { readEntries: (resolve: (entries: FakeEntry[]) => void) => void };
};

function fileEntry(fullPath: string): FakeEntry {
  const name = fullPath.slice(fullPath.lastIndexOf('/') + 1);
  return { name, fullPath, isFile: true, isDirectory: false, file: (resolve) => resolve(new File(['x'], name)) };
}

/** A folder whose reader hands out children in batches of `batch`, like Chromium's 100. */
function dirEntry(fullPath: string, children: FakeEntry[], batch = 2): FakeEntry {
  return {
    name: fullPath.slice(fullPath.lastIndexOf('/') + 1),
    fullPath,
    isFile: false,
    isDirectory: true,
    createReader: () => {
      let at = 0;
      return {
        readEntries: (resolve) => {
          const next = children.slice(at, at + batch);
          at += next.length;
          resolve(next);
        },
      };
    },
  };
}

function transfer(items: Array<{ entry: FakeEntry | null; file: File | null }>): DataTransfer {
  return {
    items: items.map(({ entry, file }) => ({
      kind: 'file',
      getAsFile: () => file,
      webkitGetAsEntry: () => entry,
    })),
    files: items.map((item) => item.file).filter((file): file is File => file !== null),
  } as unknown as DataTransfer;
}

describe('collectDrop', () => {
  it('walks dropped folders (every batch), keeps loose files, and skips hidden folders', async () => {
    const folder = dirEntry('/model', [
      fileEntry('/model/model-00001-of-00002.safetensors'),
      fileEntry('/model/model-00002-of-00002.safetensors'),
      fileEntry('/model/model.safetensors.index.json'),
      dirEntry('/model/.cache', [fileEntry('/model/.cache/huggingface/x.metadata')]),
      dirEntry('/model/sub', [fileEntry('/model/sub/config.json')]),
    ]);
    const loose = new File(['y'], 'vae.safetensors');
    const files = await collectDrop(
      transfer([
        { entry: folder, file: null },
        { entry: fileEntry('/vae.safetensors'), file: loose },
      ]),
    );
    expect(files.map((entry) => entry.path).sort()).toEqual([
      'model/model-00001-of-00002.safetensors',
      'model/model-00002-of-00002.safetensors',
      'model/model.safetensors.index.json',
      'model/sub/config.json',
      'vae.safetensors',
    ]);
    expect(files.find((entry) => entry.path === 'vae.safetensors')?.blob).toBe(loose);
  });

  it('falls back to the plain file list when items give nothing', async () => {
    const file = new File(['z'], 'a.safetensors');
    const dropped = { items: [], files: [file] } as unknown as DataTransfer;
    expect(await collectDrop(dropped)).toEqual([{ blob: file, path: 'a.safetensors' }]);
  });

  it(`stops at ${MAX_DROPPED_FILES} files`, async () => {
    const many = Array.from({ length: MAX_DROPPED_FILES + 10 }, (_, i) => fileEntry(`/big/f${i}.json`));
    const files = await collectDrop(transfer([{ entry: dirEntry('/big', many, 100), file: null }]));
    expect(files).toHaveLength(MAX_DROPPED_FILES);
  });
});

/** A file as a folder picker gives it: with its path under the chosen folder. */
function withPath(name: string, path: string): File {
  const file = new File(['x'], name);
  Object.defineProperty(file, 'webkitRelativePath', { value: path });
  return file;
}

describe('filesFromInput', () => {
  it('uses webkitRelativePath from a folder picker and skips hidden folders', () => {
    const files = filesFromInput([
      withPath('a.safetensors', 'm/a.safetensors'),
      withPath('HEAD', 'm/.git/HEAD'),
      new File(['x'], 'loose.safetensors'),
    ]);
    expect(files.map((entry) => entry.path)).toEqual(['m/a.safetensors', 'loose.safetensors']);
  });

  it('keeps a chosen folder that is itself hidden (~/.ollama), and skips hidden folders inside it', () => {
    const files = filesFromInput([
      withPath('latest', '.ollama/models/manifests/registry.ollama.ai/library/tiny/latest'),
      withPath('id_ed25519', '.ollama/.keys/id_ed25519'),
    ]);
    expect(files.map((entry) => entry.path)).toEqual([
      '.ollama/models/manifests/registry.ollama.ai/library/tiny/latest',
    ]);
  });
});
