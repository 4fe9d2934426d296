import { describe, expect, it } from 'vitest';
import { parseShardIndex, type ShardIndex } from './index-parser';
import { compareShardNames, groupFiles, parseShardPattern, validateShardName } from './shard-names';

function index(weightMap: Record<string, string>): ShardIndex {
  const result = parseShardIndex(new TextEncoder().encode(JSON.stringify({ weight_map: weightMap })));
  if (!result.ok) {
    throw new Error(result.finding.message);
  }
  return result.index;
}

describe('validateShardName', () => {
  it.each([
    'model-00001-of-00002.safetensors',
    'diffusion_pytorch_model-00001-of-00003.safetensors',
    'sub/dir/model.safetensors',
    './model.safetensors',
    'a..b.safetensors',
    '...safetensors',
    '.hidden.safetensors',
    'model v2 (final).safetensors',
    'модель.safetensors',
  ])('accepts %s', (name) => {
    expect(validateShardName(name)).toEqual({ ok: true });
  });

  it.each([
    ['', /empty/],
    ['..', /\.\./],
    ['../model.safetensors', /\.\./],
    ['sub/../../model.safetensors', /\.\./],
    ['sub/..', /\.\./],
    ['%2e%2e/model.safetensors', /\.\./],
    ['.%2E/model.safetensors', /\.\./],
    ['/etc/passwd', /absolute/],
    ['//evil.example/x.safetensors', /absolute/],
    ['C:\\Windows\\x.safetensors', /backslash/],
    ['C:/Windows/x.safetensors', /scheme or drive/],
    ['c:x.safetensors', /scheme or drive/],
    ['https://evil.example/x.safetensors', /URL/],
    ['file:///etc/passwd', /URL/],
    ['data:application/octet-stream,AAAA', /scheme or drive/],
    ['javascript:alert(1)', /scheme or drive/],
    ['sub\\model.safetensors', /backslash/],
    ['model\0.safetensors', /NUL/],
    ['model\n.safetensors', /control character/],
  ])('refuses %j', (name, reason) => {
    const check = validateShardName(name);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toMatch(reason);
  });
});

describe('parseShardPattern', () => {
  it.each([
    ['model-00001-of-00163.safetensors', { prefix: 'model-', basePrefix: 'model', number: 1, total: 163 }],
    ['model_00002-of-00003.safetensors', { prefix: 'model_', basePrefix: 'model', number: 2, total: 3 }],
    ['model-000010-of-000200.safetensors', { prefix: 'model-', basePrefix: 'model', number: 10, total: 200 }],
    [
      'transformer/diffusion_pytorch_model-00001-of-00003.safetensors',
      {
        prefix: 'transformer/diffusion_pytorch_model-',
        basePrefix: 'transformer/diffusion_pytorch_model',
        number: 1,
        total: 3,
      },
    ],
    ['-00001-of-00002.safetensors', { prefix: '-', basePrefix: '', number: 1, total: 2 }],
    ['a-b-00001-of-00002.safetensors', { prefix: 'a-b-', basePrefix: 'a-b', number: 1, total: 2 }],
  ])('parses %s', (name, expected) => {
    expect(parseShardPattern(name)).toEqual(expected);
  });

  it.each([
    'model.safetensors',
    'model-1-of-2.safetensors',
    'model-0001-of-0002.safetensors',
    'model-0000001-of-0000002.safetensors',
    'model-00001-of-00002.bin',
    '00001-of-00002.safetensors',
    'model-00001-of-00002.safetensors.index.json',
    'model.00001-of-00002.safetensors',
  ])('does not match %s', (name) => {
    expect(parseShardPattern(name)).toBeNull();
  });

  it('orders shard files by number', () => {
    const files = ['model-00010-of-00010.safetensors', 'model-00002-of-00010.safetensors', 'a.safetensors'];
    expect([...files].sort(compareShardNames)).toEqual([
      'a.safetensors',
      'model-00002-of-00010.safetensors',
      'model-00010-of-00010.safetensors',
    ]);
  });
});

describe('groupFiles', () => {
  const dropped = [
    'model-00002-of-00003.safetensors',
    'README.md',
    'model-00001-of-00003.safetensors',
    'config.json',
    'model.safetensors.index.json',
    'tokenizer.json',
    'adapter_model.safetensors',
    'adapter_config.json',
    'model-00003-of-00003.safetensors',
    'pytorch_model.bin',
    '.gitattributes',
    'LICENSE',
  ];

  it('step 1: groups by the shard pattern and lists index files to parse', () => {
    expect(groupFiles(dropped)).toEqual({
      models: [
        {
          kind: 'sharded',
          prefix: 'model-',
          total: 3,
          files: [
            'model-00001-of-00003.safetensors',
            'model-00002-of-00003.safetensors',
            'model-00003-of-00003.safetensors',
          ],
          indexFile: 'model.safetensors.index.json',
          missing: [],
        },
        { kind: 'single', file: 'adapter_model.safetensors' },
        { kind: 'single', file: 'pytorch_model.bin' },
      ],
      sidecars: [
        { kind: 'config', file: 'config.json' },
        { kind: 'adapter-config', file: 'adapter_config.json' },
      ],
      indexFiles: ['model.safetensors.index.json'],
      other: ['README.md', 'tokenizer.json', '.gitattributes', 'LICENSE'],
    });
  });

  it('step 2: an index claims the files its weight_map names, whatever they are called', () => {
    const names = [
      'weights/model.safetensors.index.json',
      'weights/part-b.safetensors',
      'weights/part-a.safetensors',
      'other.safetensors',
    ];
    const parsed = index({
      x: 'part-a.safetensors',
      y: 'part-b.safetensors',
      z: 'part-c.safetensors',
      w: '../evil.safetensors',
    });
    const grouping = groupFiles(names, [{ file: 'weights/model.safetensors.index.json', index: parsed }]);
    expect(grouping.models).toEqual([
      {
        kind: 'sharded',
        prefix: 'weights/model',
        total: 4,
        files: ['weights/part-a.safetensors', 'weights/part-b.safetensors'],
        indexFile: 'weights/model.safetensors.index.json',
        missing: ['part-c.safetensors', '../evil.safetensors'],
      },
      { kind: 'single', file: 'other.safetensors' },
    ]);
  });

  it('keeps folders apart and falls back to the pattern when an index failed to parse', () => {
    const names = [
      'a/model-00001-of-00002.safetensors',
      'b/model-00001-of-00002.safetensors',
      'a/model-00002-of-00002.safetensors',
      'a/model.safetensors.index.json',
    ];
    const grouping = groupFiles(names, [{ file: 'a/model.safetensors.index.json', index: null }]);
    expect(grouping.models).toEqual([
      {
        kind: 'sharded',
        prefix: 'a/model-',
        total: 2,
        files: ['a/model-00001-of-00002.safetensors', 'a/model-00002-of-00002.safetensors'],
        indexFile: 'a/model.safetensors.index.json',
        missing: [],
      },
      { kind: 'sharded', prefix: 'b/model-', total: 2, files: ['b/model-00001-of-00002.safetensors'], missing: [] },
    ]);
  });

  it('keeps names with mixed -of- counts in one group and claims the most common count', () => {
    const grouping = groupFiles([
      'model-00001-of-00003.safetensors',
      'model-00002-of-00003.safetensors',
      'model-00003-of-00004.safetensors',
    ]);
    expect(grouping.models).toHaveLength(1);
    expect(grouping.models[0]).toMatchObject({ kind: 'sharded', total: 3 });
  });

  it('ignores repeated names', () => {
    expect(groupFiles(['x.safetensors', 'x.safetensors']).models).toEqual([{ kind: 'single', file: 'x.safetensors' }]);
  });
});
