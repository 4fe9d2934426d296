import { describe, expect, it } from 'vitest';
import { parseShardIndex, type ShardIndex } from './index-parser';
import {
  claimedShardNames,
  compareShardNames,
  groupFiles,
  indexStem,
  parseShardPattern,
  siblingShardNames,
  validateShardName,
} from './shard-names';
import { modelChoices } from './choose-model';

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
    [
      'model-00001-of-00163.safetensors',
      { prefix: 'model-', basePrefix: 'model', number: 1, total: 163, extension: 'safetensors' },
    ],
    [
      'model_00002-of-00003.safetensors',
      { prefix: 'model_', basePrefix: 'model', number: 2, total: 3, extension: 'safetensors' },
    ],
    [
      'model-000010-of-000200.safetensors',
      { prefix: 'model-', basePrefix: 'model', number: 10, total: 200, extension: 'safetensors' },
    ],
    [
      'transformer/diffusion_pytorch_model-00001-of-00003.safetensors',
      {
        prefix: 'transformer/diffusion_pytorch_model-',
        basePrefix: 'transformer/diffusion_pytorch_model',
        number: 1,
        total: 3,
        extension: 'safetensors',
      },
    ],
    ['-00001-of-00002.safetensors', { prefix: '-', basePrefix: '', number: 1, total: 2, extension: 'safetensors' }],
    [
      'pytorch_model-00001-of-00002.bin',
      { prefix: 'pytorch_model-', basePrefix: 'pytorch_model', number: 1, total: 2, extension: 'bin' },
    ],
    [
      'a-b-00001-of-00002.safetensors',
      { prefix: 'a-b-', basePrefix: 'a-b', number: 1, total: 2, extension: 'safetensors' },
    ],
  ])('parses %s', (name, expected) => {
    expect(parseShardPattern(name)).toEqual(expected);
  });

  it.each([
    'model.safetensors',
    'model-1-of-2.safetensors',
    'model-0001-of-0002.safetensors',
    'model-0000001-of-0000002.safetensors',
    'model-00001-of-00002.pt',
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

describe('claimedShardNames', () => {
  it('names every shard the convention claims, keeping prefix, digit widths and extension', () => {
    expect(claimedShardNames('model-00002-of-000003.safetensors', 10)).toEqual([
      'model-00001-of-000003.safetensors',
      'model-00002-of-000003.safetensors',
      'model-00003-of-000003.safetensors',
    ]);
    expect(claimedShardNames('text_encoder/pytorch_model_000001-of-000002.bin', 10)).toEqual([
      'text_encoder/pytorch_model_000001-of-000002.bin',
      'text_encoder/pytorch_model_000002-of-000002.bin',
    ]);
  });

  it('claims nothing for other names, impossible numbers, or more shards than the limit', () => {
    expect(claimedShardNames('model.safetensors', 10)).toBeNull();
    expect(claimedShardNames('model-1-of-3.safetensors', 10)).toBeNull();
    expect(claimedShardNames('model-00004-of-00003.safetensors', 10)).toBeNull();
    expect(claimedShardNames('model-00000-of-00003.safetensors', 10)).toBeNull();
    expect(claimedShardNames('model-00001-of-00000.safetensors', 10)).toBeNull();
    expect(claimedShardNames('model-00001-of-99999.safetensors', 1_000)).toBeNull();
    expect(claimedShardNames('model-00001-of-01000.safetensors', 1_000)).toHaveLength(1_000);
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
          extension: 'safetensors',
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
        { kind: 'vocabulary', file: 'tokenizer.json' },
        { kind: 'adapter-config', file: 'adapter_config.json' },
      ],
      indexFiles: ['model.safetensors.index.json'],
      ollamaManifests: [],
      hubCacheRefs: [],
      other: ['README.md', '.gitattributes', 'LICENSE'],
    });
  });

  it('a companion file a browser saved twice, or an adapter config under a longer name, is still one', () => {
    const { sidecars, other } = groupFiles([
      'a/adapter_model.safetensors',
      'a/adapter_config (1).json',
      'b/config (2).json',
      'c/lora_model__adapter_config.json',
      'c/tokenizer_config.json',
      'c/my_config.json',
      'c/tokenizer_config (1).json',
    ]);
    expect(sidecars).toEqual([
      { kind: 'adapter-config', file: 'a/adapter_config (1).json' },
      { kind: 'config', file: 'b/config (2).json' },
      { kind: 'adapter-config', file: 'c/lora_model__adapter_config.json' },
      { kind: 'tokenizer', file: 'c/tokenizer_config.json' },
    ]);
    // Tokenizer files are read by their exact names, so a renamed one is not taken for one.
    expect(other).toEqual(['c/my_config.json', 'c/tokenizer_config (1).json']);
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
        extension: 'safetensors',
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
        extension: 'safetensors',
        total: 2,
        files: ['a/model-00001-of-00002.safetensors', 'a/model-00002-of-00002.safetensors'],
        indexFile: 'a/model.safetensors.index.json',
        missing: [],
      },
      {
        kind: 'sharded',
        prefix: 'b/model-',
        extension: 'safetensors',
        total: 2,
        files: ['b/model-00001-of-00002.safetensors'],
        missing: [],
      },
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

describe('groupFiles with PyTorch .bin shards', () => {
  const binShards = ['pytorch_model-00002-of-00002.bin', 'pytorch_model-00001-of-00002.bin'];

  it('groups .bin shards by the pattern and pairs them with pytorch_model.bin.index.json', () => {
    const grouping = groupFiles([...binShards, 'pytorch_model.bin.index.json', 'config.json']);
    expect(grouping.indexFiles).toEqual(['pytorch_model.bin.index.json']);
    expect(grouping.models).toEqual([
      {
        kind: 'sharded',
        prefix: 'pytorch_model-',
        extension: 'bin',
        total: 2,
        files: ['pytorch_model-00001-of-00002.bin', 'pytorch_model-00002-of-00002.bin'],
        indexFile: 'pytorch_model.bin.index.json',
        missing: [],
      },
    ]);
  });

  it('keeps .bin and .safetensors shards with the same prefix apart, each with its own index', () => {
    const names = [
      ...binShards,
      'model-00001-of-00002.bin',
      'model-00001-of-00002.safetensors',
      'model-00002-of-00002.safetensors',
      'model.safetensors.index.json',
    ];
    const models = groupFiles(names).models;
    expect(
      models.map((model) =>
        model.kind === 'sharded' ? [model.prefix, model.extension, model.files.length, model.indexFile] : model.file,
      ),
    ).toEqual([
      ['pytorch_model-', 'bin', 2, undefined],
      ['model-', 'bin', 1, undefined],
      ['model-', 'safetensors', 2, 'model.safetensors.index.json'],
    ]);
  });

  it('a parsed .bin index claims its shards and reports the missing ones; unsafe names are never claimed', () => {
    const weightMap = {
      'a.weight': 'pytorch_model-00001-of-00002.bin',
      'b.weight': 'pytorch_model-00002-of-00002.bin',
      'c.weight': '../escape.bin',
    };
    const parsed = parseShardIndex(new TextEncoder().encode(JSON.stringify({ weight_map: weightMap })));
    if (!parsed.ok) {
      throw new Error(parsed.finding.message);
    }
    const names = ['sub/pytorch_model-00001-of-00002.bin', 'sub/pytorch_model.bin.index.json', 'escape.bin'];
    const grouping = groupFiles(names, [{ file: 'sub/pytorch_model.bin.index.json', index: parsed.index }]);
    expect(grouping.models[0]).toEqual({
      kind: 'sharded',
      prefix: 'sub/pytorch_model',
      extension: 'bin',
      total: 3,
      files: ['sub/pytorch_model-00001-of-00002.bin'],
      indexFile: 'sub/pytorch_model.bin.index.json',
      missing: ['pytorch_model-00002-of-00002.bin', '../escape.bin'],
    });
    expect(grouping.models[1]).toEqual({ kind: 'single', file: 'escape.bin' });
  });

  it('indexStem knows both index endings and nothing else', () => {
    expect(indexStem('a/pytorch_model.bin.index.json')).toEqual({ stem: 'a/pytorch_model', extension: 'bin' });
    expect(indexStem('model.safetensors.index.json')).toEqual({ stem: 'model', extension: 'safetensors' });
    expect(indexStem('model.index.json')).toBeNull();
    expect(indexStem('pytorch_model.bin')).toBeNull();
  });
});

describe('split GGUF names (llama.cpp gguf-split, declared by the GGUF reader)', () => {
  it('parses `-NNNNN-of-NNNNN.gguf` with `-` and five digits only', () => {
    expect(parseShardPattern('q4/Model-Q4_K_M-00002-of-00003.gguf')).toEqual({
      prefix: 'q4/Model-Q4_K_M-',
      basePrefix: 'q4/Model-Q4_K_M',
      number: 2,
      total: 3,
      extension: 'gguf',
    });
    expect(parseShardPattern('m_00001-of-00002.gguf')).toBeNull();
    expect(parseShardPattern('m-000001-of-000002.gguf')).toBeNull();
  });

  it('finds the siblings of a split by name, but not of a safetensors shard (its index decides)', () => {
    expect(siblingShardNames('a/m-00002-of-00003.gguf', 10)).toEqual([
      'a/m-00001-of-00003.gguf',
      'a/m-00002-of-00003.gguf',
      'a/m-00003-of-00003.gguf',
    ]);
    expect(siblingShardNames('m-00001-of-00003.gguf', 2)).toBeNull();
    expect(siblingShardNames('model-00001-of-00002.safetensors', 10)).toBeNull();
    expect(siblingShardNames('m.gguf', 10)).toBeNull();
  });

  it('groups a folder of splits into one model beside the safetensors one, keyed apart', () => {
    const grouping = groupFiles([
      'm/model-00001-of-00002.safetensors',
      'm/model-00002-of-00002.safetensors',
      'm/model-00001-of-00002.gguf',
      'm/model-00002-of-00002.gguf',
      'm/other.gguf',
      'm/README.md',
    ]);
    expect(grouping.models).toEqual([
      expect.objectContaining({ kind: 'sharded', prefix: 'm/model-', extension: 'safetensors', total: 2 }),
      {
        kind: 'sharded',
        prefix: 'm/model-',
        extension: 'gguf',
        total: 2,
        files: ['m/model-00001-of-00002.gguf', 'm/model-00002-of-00002.gguf'],
        missing: [],
      },
      { kind: 'single', file: 'm/other.gguf' },
    ]);
    expect(grouping.other).toEqual(['m/README.md']);
    const keys = modelChoices(grouping).map((choice) => choice.key);
    expect(keys).toContain('m/model-*');
    expect(keys).toContain('m/model-*.gguf');
  });
});
