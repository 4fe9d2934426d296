import { describe, expect, it } from 'vitest';
import { decodeShareState, encodeShareState, shareLink } from './share-state';

describe('share state', () => {
  it('round-trips every field', () => {
    const state = {
      url: 'https://huggingface.co/org/model/resolve/main/model.safetensors',
      filter: '/layers\\.1\\./',
      sortKey: 'bytes' as const,
      descending: true,
      row: 12,
      panel: 'metadata' as const,
      dtype: 'BF16',
    };
    expect(decodeShareState(encodeShareState(state))).toEqual({ state, rejected: [] });
  });

  it('keeps good parameters when one is bad', () => {
    const decoded = decodeShareState(
      '?v=1&url=https%3A%2F%2Fexample.com%2Fa.safetensors&sort=nonsense&row=abc&panel=tensors',
    );
    expect(decoded.state).toEqual({ url: 'https://example.com/a.safetensors', panel: 'tensors' });
    expect(decoded.rejected.map((r) => r.param)).toEqual(['sort', 'row']);
  });

  it.each([
    ['javascript:alert(1)', 'javascript'],
    ['data:text/html,<script>1</script>', 'data'],
    ['file:///etc/passwd', 'file'],
    ['ftp://example.com/x.safetensors', 'ftp'],
    ['blob:http://x/y', 'blob'],
  ])('refuses %s', (url, scheme) => {
    const decoded = decodeShareState(`?url=${encodeURIComponent(url)}`);
    expect(decoded.state.url).toBeUndefined();
    expect(decoded.rejected[0].reason).toContain(`${scheme}:`);
  });

  it('accepts bare repo ids', () => {
    expect(decodeShareState('?url=org%2Fname').state.url).toBe('org/name');
  });

  it('keeps only the source from an unknown future version', () => {
    const decoded = decodeShareState('?v=9&url=https%3A%2F%2Fexample.com%2Fa&q=x&sort=bytes:desc');
    expect(decoded.state).toEqual({ url: 'https://example.com/a' });
    expect(decoded.rejected[0].param).toBe('v');
  });

  it('carries the model chosen in a repository, and refuses a broken one', () => {
    const search = encodeShareState({ url: 'org/name', select: 'vae/diffusion_pytorch_model.safetensors' });
    expect(search).toBe('?v=1&url=org%2Fname&model=vae%2Fdiffusion_pytorch_model.safetensors');
    expect(decodeShareState(search).state).toEqual({
      url: 'org/name',
      select: 'vae/diffusion_pytorch_model.safetensors',
    });
    const broken = decodeShareState(`?url=org%2Fname&model=${encodeURIComponent('a\nb')}`);
    expect(broken.state).toEqual({ url: 'org/name' });
    expect(broken.rejected).toEqual([{ param: 'model', reason: 'contains control characters' }]);
    expect(decodeShareState(`?url=x%2Fy&model=${'a'.repeat(1001)}`).rejected[0].param).toBe('model');
  });

  it('encodes nothing for local files (no url)', () => {
    expect(encodeShareState({ filter: 'x' })).toBe('');
  });

  it('ignores garbage', () => {
    expect(decodeShareState('').state).toEqual({});
    expect(decodeShareState('?garbage').state).toEqual({});
    expect(decodeShareState('#').state).toEqual({});
  });
});

describe('shareLink', () => {
  it('puts one query on the page address, replacing what it had', () => {
    const sample = 'http://127.0.0.1:4173/samples/tiny-llama-with-metadata.safetensors';
    const link = shareLink('http://127.0.0.1:4173/?v=1&url=old#top', { url: sample });
    expect(link).toBe(`http://127.0.0.1:4173/?v=1&url=${encodeURIComponent(sample)}`);
    expect(link).not.toContain('??');
    expect(decodeShareState(new URL(link).search).state.url).toBe(sample);
    expect(shareLink('https://example.org/lens/', { url: 'org/model', filter: 'q_proj' })).toBe(
      'https://example.org/lens/?v=1&url=org%2Fmodel&q=q_proj',
    );
  });
});

describe('values=1', () => {
  it('round-trips with a row, and is refused without one', () => {
    const search = encodeShareState({ url: 'https://example.com/m.safetensors', row: 3, values: true });
    expect(search).toContain('values=1');
    expect(decodeShareState(search).state).toMatchObject({ row: 3, values: true });
    const alone = decodeShareState('?v=1&url=https%3A%2F%2Fexample.com%2Fm.safetensors&values=1');
    expect(alone.state.values).toBeUndefined();
    expect(alone.rejected.map((entry) => entry.param)).toEqual(['values']);
  });
});
