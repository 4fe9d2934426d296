/**
 * A split GGUF as one model: gguf-py's own split files (fixtures/gguf/tiny-llama-split-*), and built sets with each
 * fault llama-model-loader refuses, through the same path the worker takes (aggregateShards, mergedHeader, the
 * registry's mergeShardSections).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadHeader } from '../../load-header';
import { referenceLoaderVerdict, type ParsedHeader } from '../../model';
import { aggregateShards } from '../../shards/aggregate';
import { mergedHeader } from '../../shards/merged-header';
import { parseShardPattern } from '../../shards/shard-names';
import { buildGguf, GGML, str, type GgufTestValue } from '../../../testing/build-gguf';
import { memoryReader } from '../../../testing/fuzz/memory-reader';
import { mergeShardSections } from '../format-readers';
import { splitFileName } from './splits';

const DIR = fileURLToPath(new URL('../../../../fixtures/gguf/', import.meta.url));
const FIRST = 'tiny-llama-split-00001-of-00002.gguf';
const SECOND = 'tiny-llama-split-00002-of-00002.gguf';

async function parse(bytes: Uint8Array): Promise<ParsedHeader> {
  const loaded = await loadHeader(memoryReader(bytes, 'local'));
  if (loaded.outcome.kind !== 'parsed') {
    throw new Error(loaded.outcome.file.findings.map((finding) => finding.message).join('; '));
  }
  return loaded.outcome.header;
}

const fixture = (file: string) => parse(new Uint8Array(readFileSync(`${DIR}${file}`)));

/** The set as the worker merges it: `null` headers are files that were named but not read. */
function mergeSet(parts: Array<{ file: string; header: ParsedHeader | null; reason?: string }>): ParsedHeader {
  const model = aggregateShards({ index: null, shards: parts });
  const first = parts.find((part) => part.header !== null)?.header ?? null;
  return mergeShardSections(
    parts.map((part) => ({ ...part, nameNumber: parseShardPattern(part.file)?.number ?? null })),
    mergedHeader(model, first),
  );
}

const u16 = (value: number): GgufTestValue => ({ type: 'u16', value });
const i32 = (value: number): GgufTestValue => ({ type: 'i32', value });

/** One split of a built set: `tensors` F32 vectors named `t.<no>.<i>`, the split keys as gguf-split writes them. */
function split(no: number, count: number, tensors: number, total: number, extra: { first?: boolean } = {}) {
  const kvs: Array<[string, GgufTestValue]> = [];
  if (extra.first ?? no === 0) {
    kvs.push(['general.architecture', str('llama')]);
  }
  kvs.push(['split.no', u16(no)], ['split.count', u16(count)], ['split.tensors.count', i32(total)]);
  return parse(
    buildGguf({
      kvs,
      tensors: Array.from({ length: tensors }, (_, i) => ({ name: `t.${no}.${i}`, ne: [8], type: GGML.F32 })),
    }),
  );
}

const codes = (header: ParsedHeader) => header.findings.map((finding) => finding.code);

describe('split GGUF as one model', () => {
  it("reads gguf-py's split set as one model: every tensor, the first split's metadata, no findings", async () => {
    const [first, second] = [await fixture(FIRST), await fixture(SECOND)];
    expect(codes(first)).toEqual(['gguf-split-part']);
    const merged = mergeSet([
      { file: FIRST, header: first },
      { file: SECOND, header: second },
    ]);
    expect(merged.format).toBe('gguf');
    expect(merged.tensors.count).toBe(22);
    expect(merged.findings).toEqual([]);
    expect(referenceLoaderVerdict(merged.findings)).toBe('accepts');
    const gguf = merged.gguf;
    expect(gguf?.name).toBe('Tiny Llama (split)');
    expect(gguf?.tokenizer?.vocabSize).toBe(320);
    expect(gguf?.tensorCount).toBe(22);
    expect(gguf?.split).toEqual({ no: 0, count: 2, tensors: 22 });
    // The mix counts the tensors of both files, as the single-file fixture of the same model does.
    const whole = await fixture('tiny-llama-Q4_K_M.gguf');
    expect(gguf?.quantMix).toEqual(whole.gguf?.quantMix);
    expect(merged.dataBytes).toBe(first.dataBytes + second.dataBytes);
  });

  it("reads gguf-split's metadata-only first file (--no-tensor-first-split) and the tensors after it", async () => {
    const files = [1, 2, 3].map((n) => `tiny-llama-meta-first-0000${n}-of-00003.gguf`);
    const headers = await Promise.all(files.map(fixture));
    expect(headers.map((header) => header.tensors.count)).toEqual([0, 11, 11]);
    const merged = mergeSet(files.map((file, i) => ({ file, header: headers[i] })));
    expect(merged.findings).toEqual([]);
    expect(merged.tensors.count).toBe(22);
    expect(merged.gguf?.name).toBe('Tiny Llama (metadata-first split)');
    expect(merged.gguf?.quantMix).toEqual((await fixture('tiny-llama-Q4_K_M.gguf')).gguf?.quantMix);
  });

  it('says which split is missing, why, and that llama.cpp refuses the set', async () => {
    const merged = mergeSet([
      { file: FIRST, header: await fixture(FIRST) },
      { file: SECOND, header: null, reason: 'HTTP 404' },
    ]);
    expect(codes(merged)).toEqual(['gguf-split-missing']);
    expect(merged.findings[0].message).toContain(`"${SECOND}" (HTTP 404)`);
    expect(merged.findings[0].message).toMatch(/split\.count says this model is 2 files/);
    expect(referenceLoaderVerdict(merged.findings)).toBe('refuses');
  });

  it('names a split no file was given for, and the metadata lost with the first one', async () => {
    const merged = mergeSet([{ file: SECOND, header: await fixture(SECOND) }]);
    expect(codes(merged)).toEqual(['gguf-split-missing']);
    expect(merged.findings[0].message).toContain(`"${FIRST}"`);
    expect(merged.findings[0].message).toContain('metadata');
  });

  it('flags two files claiming one split number', async () => {
    const merged = mergeSet([
      { file: 'm-00001-of-00002.gguf', header: await split(0, 2, 2, 4) },
      { file: 'm-00002-of-00002.gguf', header: await split(0, 2, 2, 4) },
    ]);
    expect(codes(merged)).toContain('gguf-split-duplicate');
    // The second file also says split 1 under a split-2 name, and split 2 is held by no file.
    expect(codes(merged)).toContain('gguf-split-misnumbered');
    expect(codes(merged)).toContain('gguf-split-missing');
  });

  it('flags files from two gguf-split runs (split.count disagrees)', async () => {
    const merged = mergeSet([
      { file: 'm-00001-of-00002.gguf', header: await split(0, 2, 2, 4) },
      { file: 'm-00002-of-00003.gguf', header: await split(1, 3, 2, 6) },
    ]);
    expect(codes(merged)).toEqual(['gguf-split-count-mismatch']);
    expect(merged.findings[0].message).toContain('"m-00002-of-00003.gguf" says 3');
  });

  it("compares the tensors found with the first split's split.tensors.count", async () => {
    const merged = mergeSet([
      { file: 'm-00001-of-00002.gguf', header: await split(0, 2, 2, 5) },
      { file: 'm-00002-of-00002.gguf', header: await split(1, 2, 2, 5) },
    ]);
    expect(codes(merged)).toEqual(['gguf-split-tensor-count']);
    expect(merged.findings[0].message).toContain('5 tensors expected but 4 found');
    expect(referenceLoaderVerdict(merged.findings)).toBe('refuses');
  });

  it('keeps a tensor name repeated across splits as the shared cross-shard finding', async () => {
    const first = await split(0, 2, 2, 4);
    const merged = mergeSet([
      { file: 'm-00001-of-00002.gguf', header: first },
      // Split 2 carries split 1's tensor names: llama.cpp refuses ("tensor … is duplicated").
      { file: 'm-00002-of-00002.gguf', header: { ...(await split(1, 2, 2, 4)), tensors: first.tensors } },
    ]);
    expect(codes(merged)).toContain('duplicate-tensor-across-shards');
  });

  it('flags a member without split keys', async () => {
    const plain = await parse(buildGguf({ tensors: [{ name: 'x', ne: [8], type: GGML.F32 }] }));
    const merged = mergeSet([
      { file: 'm-00001-of-00002.gguf', header: await split(0, 2, 2, 3) },
      { file: 'm-00002-of-00002.gguf', header: plain },
    ]);
    expect(codes(merged)).toContain('gguf-split-misnumbered');
    expect(merged.findings.find((f) => f.code === 'gguf-split-misnumbered')?.message).toContain('no split.no');
  });

  it("names splits as llama.cpp's llama_split_path does", () => {
    expect(splitFileName('dir/m-00002-of-00003.gguf', 0, 3)).toBe('dir/m-00001-of-00003.gguf');
    expect(splitFileName('m.gguf', 0, 3)).toBeNull();
  });
});
