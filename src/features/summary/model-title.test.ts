import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../core/result';
import { modelTitle, repoOrFolderOfUrl } from './model-title';

const sharded = { report: {}, shardOfRow: new Uint16Array() };

describe('the title of a sharded model', () => {
  it('is the repository for a Hub repo', () => {
    const result = { shards: sharded, repo: { display: 'deepseek-ai/DeepSeek-V3' }, source: { kind: 'url' } };
    expect(modelTitle(result as unknown as LoadResult)).toBe('deepseek-ai/DeepSeek-V3');
  });

  it('is the folder for a dropped folder', () => {
    const result = {
      shards: sharded,
      source: { kind: 'files', name: 'model.safetensors.index.json', count: 6 },
      choices: {
        selected: 'llama/model.safetensors.index.json',
        items: [{ key: 'llama/model.safetensors.index.json', folder: 'llama/' }],
      },
    };
    expect(modelTitle(result as unknown as LoadResult)).toBe('llama');
  });

  it('is the repo or folder of an index URL', () => {
    expect(repoOrFolderOfUrl('https://huggingface.co/org/name/resolve/main/model.safetensors.index.json')).toBe(
      'org/name',
    );
    expect(repoOrFolderOfUrl('https://huggingface.co/org/name/blob/main/transformer/x.index.json')).toBe('org/name');
    expect(repoOrFolderOfUrl('http://127.0.0.1:8000/models/llama-70b/model.safetensors.index.json')).toBe('llama-70b');
    expect(repoOrFolderOfUrl('http://127.0.0.1:8000/model.safetensors.index.json')).toBeNull();
  });

  it('is null for a single file, which keeps its file name', () => {
    expect(modelTitle({ source: { kind: 'file', name: 'a.safetensors' } } as unknown as LoadResult)).toBeNull();
  });
});
