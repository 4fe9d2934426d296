import { describe, expect, it } from 'vitest';
import { relatedRepoSource, repoIdOf } from './hub-repo';

describe('relatedRepoSource', () => {
  it("opens an adapter's base on the source's own Hub, else by repo id, and refuses local paths", () => {
    const base = 'meta-llama/Llama-3.1-8B';
    expect(relatedRepoSource(base, ['http://127.0.0.1:4173/hub/api/models/org/lora/tree/main'])).toBe(
      'http://127.0.0.1:4173/hub/api/models/meta-llama/Llama-3.1-8B/tree/main',
    );
    expect(relatedRepoSource(base, ['org/lora', 'http://127.0.0.1:4173/hub/org/lora/resolve/main/a.safetensors'])).toBe(
      'http://127.0.0.1:4173/hub/api/models/meta-llama/Llama-3.1-8B/tree/main',
    );
    expect(relatedRepoSource(base, ['https://huggingface.co/datasets/org/data/resolve/main/a.safetensors'])).toBe(
      'https://huggingface.co/api/models/meta-llama/Llama-3.1-8B/tree/main',
    );
    expect(relatedRepoSource(base, ['https://example.com/lora.safetensors'])).toBe(base);
    expect(relatedRepoSource(base, [])).toBe(base);
    for (const local of ['/models/llama', './base', 'llama', 'a/b/c', '../x/y', 'org/na me']) {
      expect(relatedRepoSource(local, []), local).toBeNull();
    }
  });
});

describe('repoIdOf', () => {
  it('reads the repo id from a listing display, a listing or file URL, or a typed repo id', () => {
    expect(repoIdOf({ display: 'meta-llama/Llama-3.1-8B @ 0123abc/original', urls: [] })).toBe(
      'meta-llama/Llama-3.1-8B',
    );
    expect(repoIdOf({ urls: ['http://127.0.0.1:4173/hub/api/models/org/base/tree/main'] })).toBe('org/base');
    expect(repoIdOf({ urls: ['https://huggingface.co/org/base/resolve/main/model.safetensors'] })).toBe('org/base');
    expect(repoIdOf({ urls: ['org/base'] })).toBe('org/base');
    expect(repoIdOf({ urls: ['https://example.com/files/model.safetensors'] })).toBeNull();
    expect(repoIdOf({ urls: [] })).toBeNull();
  });
});
