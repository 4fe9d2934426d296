import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildShardedModel } from '../../testing/build-sharded';
import { indexEntryName, indexEntryNames, parseShardIndex, ShardIndexScanner, type ShardIndex } from './index-parser';
import { MAX_INDEX_DEPTH, MAX_INDEX_TOKEN_BYTES, MAX_SHARD_FILES } from './shard-limits';

const encode = (text: string) => new TextEncoder().encode(text);

function parseText(text: string) {
  return parseShardIndex(encode(text), { fileName: 'model.safetensors.index.json' });
}

function mustParse(text: string | Uint8Array): ShardIndex {
  const result = typeof text === 'string' ? parseText(text) : parseShardIndex(text);
  if (!result.ok) {
    throw new Error(result.finding.message);
  }
  return result.index;
}

/** weight_map as a Map, the shape JSON.parse would give, for comparisons. */
function asMap(index: ShardIndex): Map<string, string> {
  const names = indexEntryNames(index);
  return new Map(names.map((name, i) => [name, index.shardFiles[index.shardOf[i]]]));
}

function parseInChunks(bytes: Uint8Array, cuts: readonly number[]) {
  const scanner = new ShardIndexScanner();
  let previous = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    scanner.push(bytes.subarray(previous, cut));
    previous = cut;
  }
  scanner.push(bytes.subarray(previous));
  return scanner.finish();
}

describe('parseShardIndex', () => {
  it('reads metadata, the distinct shard files and the weight_map in order', () => {
    const index = mustParse(
      JSON.stringify({
        metadata: { total_size: 1234, total_parameters: 617, format: 'pt', nested: { a: [1, 2] } },
        weight_map: { 'b.weight': 'model-00002-of-00002.safetensors', 'a.weight': 'model-00001-of-00002.safetensors' },
      }),
    );
    expect(index.totalSize).toBe(1234);
    expect(index.totalParameters).toBe(617);
    expect(index.metadata).toEqual([
      { key: 'total_size', value: '1234', kind: 'number' },
      { key: 'total_parameters', value: '617', kind: 'number' },
      { key: 'format', value: 'pt', kind: 'string' },
      { key: 'nested', value: '{"a":[1,2]}', kind: 'object' },
    ]);
    expect(index.shardFiles).toEqual(['model-00002-of-00002.safetensors', 'model-00001-of-00002.safetensors']);
    expect(index.entryCount).toBe(2);
    expect(indexEntryName(index, 0)).toBe('b.weight');
    expect(Array.from(index.shardOf)).toEqual([0, 1]);
    expect(Array.from(index.entriesPerShard)).toEqual([1, 1]);
    expect(index.findings).toEqual([]);
  });

  it('accepts an index without metadata and ignores unknown top-level keys', () => {
    const index = mustParse('{"other": {"x": [true, false, null, -1.5e3]}, "weight_map": {"t": "a.safetensors"}}');
    expect(index.totalSize).toBeNull();
    expect(index.metadata).toEqual([]);
    expect(asMap(index)).toEqual(new Map([['t', 'a.safetensors']]));
  });

  it('decodes escaped and non-ASCII names exactly as JSON.parse does', () => {
    const text =
      '{"weight_map": {"a\\"b\\\\c\\u00e9\\ud83d\\ude00": "x\\/y.safetensors", "日本.weight": "z.safetensors"}}';
    expect(asMap(mustParse(text))).toEqual(new Map(Object.entries(JSON.parse(text).weight_map as object)));
  });

  it('keeps a U+FEFF that starts a name or a shard file (fuzz seed 1199469701)', () => {
    const text = '{"weight_map": {"": "\ufeff", "\ufeffw": "a.safetensors"}}';
    expect(asMap(mustParse(text))).toEqual(new Map(Object.entries(JSON.parse(text).weight_map as object)));
  });

  it('recognises top-level keys written with escapes, as JSON.parse does', () => {
    const escaped = [...'weight_map'].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const text = `{"${escaped}": {"t": "a.safetensors"}}`;
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['weight_map']);
    expect(asMap(mustParse(text))).toEqual(new Map([['t', 'a.safetensors']]));
  });

  it('keeps the last value of a repeated weight_map key and reports the repeats', () => {
    const text =
      '{"weight_map": {"a": "1.safetensors", "b": "1.safetensors", "a": "2.safetensors", "b": "1.safetensors"}}';
    const index = mustParse(text);
    expect(asMap(index)).toEqual(new Map(Object.entries(JSON.parse(text).weight_map as object)));
    expect(index.entryCount).toBe(2);
    expect(index.duplicateKeyCount).toBe(2);
    expect(index.findings).toHaveLength(1);
    const [finding] = index.findings;
    expect(finding.code).toBe('duplicate-index-key');
    expect(finding.severity).toBe('warning');
    expect(finding.tensorCount).toBe(2);
    expect(finding.shard).toBe('model.safetensors.index.json');
    expect(finding.message).toContain('"a", "b"');
    expect(finding.message).toContain('1 repeat names a different shard');
  });

  it('reports repeated metadata keys and shows the last value', () => {
    const index = mustParse('{"metadata": {"total_size": 1, "total_size": 2}, "weight_map": {}}');
    expect(index.totalSize).toBe(2);
    expect(index.findings.map((finding) => finding.code)).toEqual(['duplicate-index-key']);
  });

  it('builds the duplicate-index-key finding from a built model', () => {
    const model = buildShardedModel({ shards: 3, duplicateIndexKey: true });
    const index = mustParse(model.indexJson);
    expect(index.duplicateKeyCount).toBe(1);
    expect(index.entryCount).toBe(model.expected.weightMapEntries);
  });

  it('parses a 500,000-entry MoE index', () => {
    const shards = 163;
    const count = 500_000;
    const lines: string[] = [];
    for (let i = 0; i < count; i++) {
      const shard = String(1 + Math.floor((i * shards) / count)).padStart(5, '0');
      const name = `model.layers.${Math.floor(i / 2688)}.mlp.experts.${Math.floor(i / 3) % 896}.w${i % 3}.weight`;
      lines.push(`"${name}": "model-${shard}-of-00163.safetensors"`);
    }
    const bytes = encode(`{"metadata": {"total_size": 1560000000000}, "weight_map": {\n${lines.join(',\n')}\n}}`);
    const index = mustParse(bytes);
    expect(index.entryCount).toBe(count);
    expect(index.shardFiles).toHaveLength(shards);
    expect(index.totalSize).toBe(1_560_000_000_000);
    expect(index.duplicateKeyCount).toBe(0);
    expect(indexEntryName(index, 0)).toBe('model.layers.0.mlp.experts.0.w0.weight');
    expect(indexEntryName(index, count - 1)).toBe(lines[count - 1].split('"')[1]);
    expect(index.shardFiles[index.shardOf[count - 1]]).toBe('model-00163-of-00163.safetensors');
    expect(index.entriesPerShard.reduce((sum, n) => sum + n, 0)).toBe(count);
    // The same bytes in 64 KiB chunks give the same index.
    const cuts = [];
    for (let offset = 65_536; offset < bytes.length; offset += 65_536) {
      cuts.push(offset);
    }
    const chunked = parseInChunks(bytes, cuts);
    expect(chunked.ok && chunked.index.entryCount).toBe(count);
    expect(chunked.ok && Array.from(chunked.index.shardOf)).toEqual(Array.from(index.shardOf));
  });

  describe('refuses malformed input with invalid-index, never a throw', () => {
    const deep = `{"weight_map": {}, "x": ${'['.repeat(MAX_INDEX_DEPTH)}${']'.repeat(MAX_INDEX_DEPTH)}}`;
    const cases: Array<[string, string | Uint8Array, RegExp]> = [
      ['empty input', '', /empty/],
      ['whitespace only', '  \n ', /ends at byte/],
      ['an array', '[]', /not a JSON object/],
      ['a string', '"weight_map"', /not a JSON object/],
      ['truncated mid-name', '{"weight_map": {"model.layers.0', /ends at byte/],
      ['truncated after a value', '{"weight_map": {"a": "b.safetensors"', /ends at byte/],
      ['trailing comma in weight_map', '{"weight_map": {"a": "b.safetensors",}}', /expected a quoted key/],
      ['trailing comma in an array', '{"weight_map": {}, "x": [1,]}', /expected a value/],
      ['missing colon', '{"weight_map" {}}', /expected ":"/],
      ['missing weight_map', '{"metadata": {"total_size": 1}}', /no "weight_map"/],
      ['weight_map is an array', '{"weight_map": ["a"]}', /"weight_map" is not an object/],
      ['weight_map is a string', '{"weight_map": "a"}', /expected an object/],
      ['metadata is an array', '{"metadata": [], "weight_map": {}}', /"metadata" is not an object/],
      ['a shard file that is a number', '{"weight_map": {"a": 1}}', /not a file name string/],
      ['a shard file that is an object', '{"weight_map": {"a": {}}}', /not a file name string/],
      ['a shard file that is null', '{"weight_map": {"a": null}}', /not a file name string/],
      ['two weight_maps', '{"weight_map": {}, "weight_map": {}}', /appears twice/],
      ['two metadata objects', '{"metadata": {}, "metadata": {}, "weight_map": {}}', /appears twice/],
      ['data after the object', '{"weight_map": {}} {}', /after the end/],
      ['a byte-order mark', '\ufeff{"weight_map": {}}', /byte-order mark/],
      ['a raw control character in a name', '{"weight_map": {"a\nb": "x"}}', /malformed string/],
      ['a bad escape', '{"weight_map": {"a\\qb": "x"}}', /malformed string/],
      ['a short \\u escape', '{"weight_map": {"a\\u12": "x"}}', /malformed string/],
      ['a lone surrogate escape', '{"weight_map": {"a\\ud800": "x"}}', /lone UTF-16 surrogate/],
      ['a leading zero', '{"metadata": {"total_size": 01}, "weight_map": {}}', /expected "," or "}"/],
      ['a bare minus', '{"metadata": {"total_size": -}, "weight_map": {}}', /malformed number/],
      ['a misspelt literal', '{"weight_map": {}, "x": nul}', /expected a value/],
      ['single quotes', "{'weight_map': {}}", /expected a quoted key/],
      ['a mismatched bracket', '{"weight_map": {}, "x": [1}}', /expected "," or "]"/],
      ['nesting too deep', deep, /nests deeper than 64/],
      [
        'invalid UTF-8',
        new Uint8Array([...encode('{"weight_map": {"a'), 0xc3, 0x28, ...encode('": "x"}}')]),
        /malformed/,
      ],
      [
        'an overlong UTF-8 sequence',
        new Uint8Array([...encode('{"weight_map": {"'), 0xc0, 0xaf, ...encode('": "x"}}')]),
        /malformed/,
      ],
      [
        'a UTF-8 surrogate',
        new Uint8Array([...encode('{"weight_map": {"'), 0xed, 0xa0, 0x80, ...encode('": "x"}}')]),
        /malformed/,
      ],
      ['NUL bytes', new Uint8Array([...encode('{"weight_map": {}}'), 0, 0]), /after the end/],
    ];
    it.each(cases)('%s', (_label, input, reason) => {
      const bytes = typeof input === 'string' ? encode(input) : input;
      const result = parseShardIndex(bytes, { fileName: 'idx.json' });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.finding.code).toBe('invalid-index');
        expect(result.finding.severity).toBe('error');
        expect(result.finding.refusedByReference).toBe(false);
        expect(result.finding.shard).toBe('idx.json');
        expect(result.finding.message).toMatch(reason);
      }
    });

    it('accepts nesting right at the depth limit', () => {
      const depth = MAX_INDEX_DEPTH - 1;
      expect(parseText(`{"weight_map": {}, "x": ${'['.repeat(depth)}${']'.repeat(depth)}}`).ok).toBe(true);
    });

    it('refuses more than MAX_SHARD_FILES distinct shard files', () => {
      const entries = Array.from({ length: MAX_SHARD_FILES + 1 }, (_, i) => `"t${i}": "s${i}.safetensors"`);
      const result = parseText(`{"weight_map": {${entries.join(',')}}}`);
      expect(!result.ok && result.finding.message).toMatch(/more than 10,000 shard files/);
    });

    it('refuses a token longer than MAX_INDEX_TOKEN_BYTES when it spans chunks', () => {
      const bytes = encode(`{"weight_map": {"${'a'.repeat(MAX_INDEX_TOKEN_BYTES + 10)}": "x"}}`);
      const result = parseInChunks(bytes, [20, 500_000, 1_000_020]);
      expect(!result.ok && result.finding.message).toMatch(/longer than 1,000,000 bytes/);
      // In one buffer nothing is carried, so the same name is accepted.
      expect(parseShardIndex(bytes).ok).toBe(true);
    });

    it('stops at the first error and ignores later chunks', () => {
      const scanner = new ShardIndexScanner();
      scanner.push(encode('{"weight_map": x'));
      expect(scanner.failure?.code).toBe('invalid-index');
      scanner.push(encode('{}}'));
      expect(scanner.finish().ok).toBe(false);
    });
  });
});

describe('parseShardIndex against JSON.parse, on generated and chunked input', () => {
  it('agrees with JSON.parse on random weight maps, formatting and chunking', () => {
    const name = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.constantFrom('__proto__', 'constructor', '0', '10', 'a"b', 'a\\b', '', 'metadata', 'weight_map'),
    );
    const shardFile = fc.oneof(
      fc.integer({ min: 1, max: 12 }).map((n) => `model-${String(n).padStart(5, '0')}-of-00012.safetensors`),
      fc.string({ unit: 'binary', maxLength: 12 }),
    );
    const indexValue = fc.record(
      {
        metadata: fc.record({ total_size: fc.maxSafeNat() }, { requiredKeys: [] }),
        weight_map: fc.dictionary(name, shardFile, { maxKeys: 60 }),
        extra: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: ['weight_map'] },
    );
    fc.assert(
      fc.property(
        indexValue,
        fc.constantFrom(undefined, 2, '\t'),
        fc.array(fc.nat(), { maxLength: 6 }),
        (value, indent, rawCuts) => {
          const text = JSON.stringify(value, null, indent);
          const bytes = encode(text);
          const expected = JSON.parse(text) as { metadata?: { total_size?: number }; weight_map: object };
          const whole = parseShardIndex(bytes);
          const chunked = parseInChunks(
            bytes,
            rawCuts.map((cut) => cut % (bytes.length + 1)),
          );
          for (const result of [whole, chunked]) {
            expect(result.ok).toBe(true);
            if (result.ok) {
              expect(asMap(result.index)).toEqual(new Map(Object.entries(expected.weight_map)));
              expect(result.index.shardFiles).toEqual([...new Set(Object.values(expected.weight_map))]);
              expect(result.index.totalSize).toBe(expected.metadata?.total_size ?? null);
              expect(result.index.byteLength).toBe(bytes.length);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepts exactly the JSON whose weight_map is an object of strings (arbitrary JSON, never a throw)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 2 }), (weightMap, metadata) => {
        const text = JSON.stringify({ metadata, weight_map: weightMap });
        const result = parseText(text);
        const isStringMap =
          typeof weightMap === 'object' &&
          weightMap !== null &&
          !Array.isArray(weightMap) &&
          Object.values(weightMap).every((value) => typeof value === 'string');
        const metadataOk = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata);
        expect(result.ok).toBe(isStringMap && metadataOk);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary bytes, whole or chunked', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 4 }), (bytes, cuts) => {
        const whole = parseShardIndex(bytes);
        const chunked = parseInChunks(
          bytes,
          cuts.map((cut) => cut % (bytes.length + 1)),
        );
        expect(chunked.ok).toBe(whole.ok);
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same result for every single split point of a small index', () => {
    const text =
      '{\n "metadata": {"total_size": 12.5e1, "x": [{"y": "\\u00e9"}]},\n "weight_map": {"a\\n": "é.safetensors", "b": "c"}\n}';
    const bytes = encode(text);
    const whole = mustParse(bytes);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const result = parseInChunks(bytes, [cut]);
      expect(result.ok).toBe(true);
      if (result.ok) {
        expect(asMap(result.index)).toEqual(asMap(whole));
        expect(result.index.metadata).toEqual(whole.metadata);
        expect(result.index.totalSize).toBe(125);
      }
    }
  });
});

const REAL = '/work/shared/fixtures/real';

describe.skipIf(!existsSync(REAL))('real index files', () => {
  const files = [
    ...readdirSync(REAL)
      .filter((file) => file.endsWith('.index.json'))
      .map((file) => join(REAL, file)),
    join(REAL, 'fluxml-sharded/model.safetensors.index.json'),
  ].filter((file) => existsSync(file));

  it('finds the three committed indexes', () => {
    expect(files).toHaveLength(3);
  });

  it.each(files)('%s matches JSON.parse exactly', (file) => {
    const bytes = new Uint8Array(readFileSync(file));
    const expected = JSON.parse(new TextDecoder().decode(bytes)) as {
      metadata: { total_size: number };
      weight_map: Record<string, string>;
    };
    const index = mustParse(bytes);
    expect(index.entryCount).toBe(Object.keys(expected.weight_map).length);
    expect(index.shardFiles.length).toBe(new Set(Object.values(expected.weight_map)).size);
    expect(index.totalSize).toBe(expected.metadata.total_size);
    expect(asMap(index)).toEqual(new Map(Object.entries(expected.weight_map)));
    expect(index.findings).toEqual([]);
  });

  it('reads the known counts', () => {
    const counts = Object.fromEntries(
      files.map((file) => {
        const index = mustParse(new Uint8Array(readFileSync(file)));
        return [file.split('/').pop(), [index.entryCount, index.shardFiles.length]];
      }),
    );
    expect(counts).toEqual({
      'MiMiGame-1__Reflection-Llama-3.1-70B__model.safetensors.index.json': [723, 162],
      'tbressers__WizardLM-2-8x22B__model.safetensors.index.json': [1739, 59],
      'model.safetensors.index.json': [36, 6],
    });
  });
});
