import { describe, expect, it } from 'vitest';
import { isIndexUrl, resolveShardUrl } from './hub';

const HF_INDEX = 'https://huggingface.co/org/name/resolve/main/model.safetensors.index.json';

describe('resolveShardUrl', () => {
  it('resolves a shard next to the index', () => {
    expect(resolveShardUrl(HF_INDEX, 'model-00001-of-00002.safetensors')).toBe(
      'https://huggingface.co/org/name/resolve/main/model-00001-of-00002.safetensors',
    );
  });

  it('keeps subfolders of the index folder, and drops the index URL query and fragment', () => {
    expect(
      resolveShardUrl('http://127.0.0.1:4601/shards/t1/m/model.safetensors.index.json?x=1#f', 'sub/a.safetensors'),
    ).toBe('http://127.0.0.1:4601/shards/t1/m/sub/a.safetensors');
  });

  it('percent-encodes each segment, so #, ? and % stay in the path', () => {
    expect(resolveShardUrl(HF_INDEX, 'a #1?%.safetensors')).toBe(
      'https://huggingface.co/org/name/resolve/main/a%20%231%3F%25.safetensors',
    );
  });

  it.each([
    '../model.safetensors',
    'sub/../../x.safetensors',
    '%2e%2e/x.safetensors',
    '/etc/passwd',
    'https://evil.example/x.safetensors',
    '//evil.example/x.safetensors',
    'C:\\x.safetensors',
    'javascript:alert(1)',
    '',
  ])('refuses %j', (name) => {
    expect(resolveShardUrl(HF_INDEX, name)).toBeNull();
  });

  it('is null for an index URL that does not parse', () => {
    expect(resolveShardUrl('not a url', 'a.safetensors')).toBeNull();
  });
});

describe('isIndexUrl', () => {
  it.each([
    [HF_INDEX, true],
    ['http://127.0.0.1:1/x/weights.index.json?download=1', true],
    ['https://example.com/model.safetensors', false],
    ['https://example.com/index.json.bak', false],
    ['nope', false],
  ])('%s → %s', (url, expected) => {
    expect(isIndexUrl(url)).toBe(expected);
  });
});
