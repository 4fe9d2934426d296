import { describe, expect, it } from 'vitest';
import { loadHeader } from '../../load-header';
import type { ParseOutcome } from '../../model';
import { referenceLoaderVerdict, tensorName } from '../../model';
import { dtypeName } from '../../dtypes';
import { GGML, buildGguf, str, strings, u32, type GgufTestFile } from '../../../testing/build-gguf';
import { memoryReader, sparseSource, type ReaderMode } from '../../../testing/fuzz/memory-reader';
import { GgufHeaderParser } from './header-parser';
import { MAX_ARRAY_LENGTH, MAX_KV_COUNT } from './gguf-limits';

async function read(file: Uint8Array, mode: ReaderMode = 'local'): Promise<ParseOutcome> {
  return (await loadHeader(memoryReader(file, mode))).outcome;
}

function codes(outcome: ParseOutcome): string[] {
  return (outcome.kind === 'parsed' ? outcome.header.findings : outcome.file.findings).map((finding) => finding.code);
}

const SMALL_KVS: NonNullable<GgufTestFile['kvs']> = [
  ['general.architecture', str('llama')],
  ['tokenizer.ggml.tokens', strings(['<s>', '</s>', 'a'])],
];
const NORM = { name: 'output_norm.weight', ne: [64], type: GGML.F32 };
const SMALL: GgufTestFile = {
  kvs: SMALL_KVS,
  tensors: [{ name: 'token_embd.weight', ne: [64, 3], type: GGML.Q8_0 }, NORM],
};

describe('GGUF header reader', () => {
  it.each([1, 2, 3])('reads version %i, both byte orders', async (version) => {
    for (const littleEndian of [true, false]) {
      const outcome = await read(buildGguf({ ...SMALL, version, littleEndian }));
      expect(outcome.kind).toBe('parsed');
      if (outcome.kind !== 'parsed') {
        return;
      }
      const { header } = outcome;
      expect(header.format).toBe('gguf');
      expect(header.gguf?.version).toBe(version);
      expect(header.gguf?.littleEndian).toBe(littleEndian);
      expect(tensorName(header.tensors, 0)).toBe('token_embd.weight');
      expect(dtypeName(header.tensors.dtype[0])).toBe('Q8_0');
      expect(Array.from(header.tensors.dims.subarray(0, 2))).toEqual([3, 64]);
      expect(header.tensors.end[0]).toBe(3 * 34 * 2);
      const expected = [...(version === 1 ? ['gguf-old-version'] : []), ...(littleEndian ? [] : ['gguf-big-endian'])];
      expect(codes(outcome)).toEqual(expected);
      expect(referenceLoaderVerdict(header.findings)).toBe(expected.length === 0 ? 'accepts' : 'refuses');
    }
  });

  it('keeps its place across reads: fed byte by byte, it parses what it parses in one go', () => {
    const file = buildGguf(SMALL);
    const parser = new GgufHeaderParser();
    let step = parser.resume(file.subarray(0, 1), false, file.length);
    let fed = 1;
    while (step.status === 'more') {
      expect(step.needAtLeast).toBeGreaterThan(fed);
      fed += 1;
      step = parser.resume(file.subarray(0, fed), false, file.length);
    }
    const whole = new GgufHeaderParser().resume(file, true, file.length);
    expect(step).toEqual(whole);
  });

  it('reads nested arrays and flags them, as llama.cpp refuses them', async () => {
    const nested = {
      type: 'array' as const,
      elementType: 9,
      items: [
        { type: 'array' as const, elementType: 4, items: [u32(1), u32(2)] },
        { type: 'array' as const, elementType: 8, items: [str('x')] },
      ],
    };
    const outcome = await read(buildGguf({ ...SMALL, kvs: [...SMALL_KVS, ['custom.nested', nested]] }));
    expect(codes(outcome)).toEqual(['gguf-nested-array']);
    const kv =
      outcome.kind === 'parsed' ? outcome.header.gguf?.kvs.find((entry) => entry.key === 'custom.nested') : null;
    expect(kv).toMatchObject({ type: 'ARRAY', elementType: 'ARRAY', count: 2, value: '[[1, 2], ["x"]]' });
  });

  it('honours general.alignment and refuses a bad one', async () => {
    const aligned = await read(buildGguf({ ...SMALL, alignment: 64 }));
    expect(aligned.kind === 'parsed' && aligned.header.dataStart % 64).toBe(0);
    expect(codes(aligned)).toEqual([]);
    const bad = await read(buildGguf({ ...SMALL, kvs: [...SMALL_KVS, ['general.alignment', u32(48)]] }));
    expect(codes(bad)).toContain('gguf-bad-alignment');
  });

  it.each<[string, GgufTestFile, string]>([
    ['duplicate key', { ...SMALL, kvs: [...SMALL_KVS, ['general.architecture', str('x')]] }, 'gguf-duplicate-key'],
    ['empty key', { ...SMALL, kvs: [...SMALL_KVS, ['', u32(1)]] }, 'gguf-empty-key'],
    ['duplicate tensor name', { tensors: [NORM, { ...NORM, offset: 256 }] }, 'gguf-duplicate-tensor'],
    ['misaligned offset', { tensors: [{ name: 'a', ne: [64], type: GGML.F32, offset: 4 }] }, 'gguf-misaligned-offset'],
    ['gap', { tensors: [NORM, { name: 'b', ne: [64], type: GGML.F32, offset: 1024 }] }, 'gguf-gap'],
    ['overlap', { tensors: [NORM, { name: 'b', ne: [64], type: GGML.F32, offset: 0 }] }, 'gguf-overlap'],
    ['unknown ggml type', { tensors: [{ name: 'a', ne: [64], type: 4 }] }, 'gguf-unknown-type'],
    ['type id past the table', { tensors: [{ name: 'a', ne: [64], type: 9999 }] }, 'gguf-unknown-type'],
    ['partial block', { tensors: [{ name: 'a', ne: [100, 2], type: GGML.Q4_K }] }, 'gguf-partial-block'],
    ['long name', { tensors: [{ name: 'n'.repeat(64), ne: [8], type: GGML.F32 }] }, 'gguf-name-too-long'],
    [
      'data past the end',
      { tensors: [{ name: 'a', ne: [64], type: GGML.F32 }], dataBytes: 100 },
      'gguf-offset-out-of-bounds',
    ],
    [
      'dimension beyond 2^53',
      { tensors: [{ name: 'a', ne: [2n ** 60n], type: GGML.F32 }], dataBytes: 0 },
      'gguf-invalid-shape',
    ],
  ])('%s: a finding, the file still shown, llama.cpp refuses', async (_label, file, code) => {
    const outcome = await read(buildGguf(file));
    expect(outcome.kind).toBe('parsed');
    expect(codes(outcome)).toContain(code);
    expect(outcome.kind === 'parsed' && referenceLoaderVerdict(outcome.header.findings)).toBe('refuses');
  });

  it('a first dimension beyond 2^53 is an invalid shape only, not also a partial block of NaN', async () => {
    const outcome = await read(
      buildGguf({ tensors: [{ name: 'a', ne: [2n ** 60n, 2], type: GGML.Q4_K }], dataBytes: 0 }),
    );
    expect(codes(outcome)).toContain('gguf-invalid-shape');
    expect(codes(outcome)).not.toContain('gguf-partial-block');
    const findings = outcome.kind === 'parsed' ? outcome.header.findings : [];
    expect(findings.map((finding) => finding.message).join(' ')).not.toMatch(/NaN/);
  });

  it('a tensor of unknown size whose data would start past the end of the file is out of bounds', async () => {
    // Cut inside the padding before the data: the data start itself lies past the end.
    const whole = buildGguf({ tensors: [{ name: 'a', ne: [2n ** 60n], type: GGML.F32 }], dataBytes: 0 });
    const outcome = await read(whole.slice(0, whole.length - 1));
    expect(outcome.kind === 'parsed' && outcome.header.dataStart).toBeGreaterThan(whole.length - 1);
    expect(codes(outcome)).toEqual(expect.arrayContaining(['gguf-invalid-shape', 'gguf-offset-out-of-bounds']));
  });

  it('words a finding about one tensor in the singular and about several in the plural', async () => {
    const message = async (file: GgufTestFile, code: string) => {
      const outcome = await read(buildGguf(file));
      const findings = outcome.kind === 'parsed' ? outcome.header.findings : outcome.file.findings;
      return findings.find((finding) => finding.code === code)?.message ?? '';
    };
    const one = { name: 'a', ne: [64], type: GGML.F32, offset: 4 };
    expect(await message({ tensors: [one] }, 'gguf-misaligned-offset')).toMatch(/^1 tensor \("a"\) starts at/);
    expect(await message({ tensors: [one, { ...one, name: 'b', offset: 260 }] }, 'gguf-misaligned-offset')).toMatch(
      /^2 tensors \("a", "b"\) start at/,
    );
    expect(
      await message({ tensors: [{ name: 'a', ne: [2n ** 60n], type: GGML.F32 }], dataBytes: 0 }, 'gguf-invalid-shape'),
    ).toMatch(/^1 tensor \("a"\) has a dimension/);
  });

  it.each<[string, GgufTestFile, string]>([
    ['tensor count beyond the file', { ...SMALL, claimedTensorCount: 1_000 }, 'gguf-truncated'],
    // Past a cap in a file big enough to hold the claim: this reader's limit. Past the file's end: truncated, which
    // llama.cpp refuses too, whether or not the claim is also past a cap.
    ['kv count beyond the cap', { claimedKvCount: MAX_KV_COUNT + 1, dataBytes: 1_400_000 }, 'gguf-limit-exceeded'],
    ['kv count beyond the cap and the file', { claimedKvCount: MAX_KV_COUNT + 1 }, 'gguf-truncated'],
    ['kv count of 2^64 - 1', { claimedKvCount: 2n ** 64n - 1n }, 'gguf-truncated'],
    [
      'array beyond the cap',
      { kvs: [['a', { type: 'array', elementType: 0, items: [], count: MAX_ARRAY_LENGTH + 1 }]], dataBytes: 4_100_000 },
      'gguf-limit-exceeded',
    ],
    [
      'array claiming a billion elements',
      { kvs: [['a', { type: 'array', elementType: 4, items: [], count: 1e9 }]] },
      'gguf-truncated',
    ],
    [
      'array within the cap but beyond the file',
      { kvs: [['a', { type: 'array', elementType: 8, items: [], count: MAX_ARRAY_LENGTH }]] },
      'gguf-truncated',
    ],
    [
      'string beyond the cap',
      { kvs: [['a', { type: 'raw', id: 8, bytes: [1, 0, 0, 1, 0, 0, 0, 0] }]], dataBytes: 17_000_000 },
      'gguf-limit-exceeded',
    ],
    [
      'string of 2^40 bytes',
      { kvs: [['a', { type: 'raw', id: 8, bytes: [0, 0, 0, 0, 0, 1, 0, 0] }]] },
      'gguf-truncated',
    ],
    ['undefined value type', { kvs: [['a', { type: 'raw', id: 13 }]] }, 'gguf-invalid-value-type'],
    ['five dimensions', { tensors: [{ name: 'a', ne: [1, 1, 1, 1, 1], type: GGML.F32 }] }, 'gguf-too-many-dims'],
    ['version 4', { version: 4 }, 'gguf-unsupported-version'],
  ])('%s: rejected with a finding, in bounded time and memory', async (_label, file, code) => {
    for (const mode of ['local', 'remote', 'remote-unknown'] as const) {
      const outcome = await read(buildGguf(file), mode);
      expect(outcome.kind).toBe('rejected');
      expect(codes(outcome)).toEqual([code]);
    }
  });

  it('a header cut short anywhere is rejected as truncated, never thrown', async () => {
    const file = buildGguf(SMALL);
    const dataStart = (await read(file)).kind === 'parsed' ? file.length - 3 * 34 * 2 - 256 : 0;
    for (let length = 8; length < dataStart - 32; length += 7) {
      const outcome = await read(file.subarray(0, length));
      expect(codes(outcome), `cut at ${length}`).toEqual(['gguf-truncated']);
    }
  });
});

describe('GGUF header over Range', () => {
  /** A Llama-3-shaped header: 128,256 tokens, their types, 280,147 merges, 291 tensor infos (about 7.8 MB). */
  function llama3Header(): Uint8Array {
    const tokens = Array.from({ length: 128_256 }, (_, id) => `tok${id.toString(36)}${'x'.repeat(id % 9)}`);
    const merges = Array.from({ length: 280_147 }, (_, id) => `m${id.toString(36)} ${'y'.repeat(id % 11)}`);
    const tensors = [];
    for (let layer = 0; layer < 32; layer++) {
      for (const part of [
        'attn_q',
        'attn_k',
        'attn_v',
        'attn_output',
        'ffn_gate',
        'ffn_up',
        'ffn_down',
        'attn_norm',
        'ffn_norm',
      ]) {
        tensors.push({ name: `blk.${layer}.${part}.weight`, ne: [4096], type: GGML.F32 });
      }
    }
    tensors.push({ name: 'token_embd.weight', ne: [4096], type: GGML.F32 });
    return buildGguf({
      kvs: [
        ['general.architecture', str('llama')],
        ['general.name', str('Llama 3 shaped')],
        ['tokenizer.ggml.model', str('gpt2')],
        ['tokenizer.ggml.tokens', strings(tokens)],
        [
          'tokenizer.ggml.token_type',
          { type: 'array', elementType: 5, items: tokens.map(() => ({ type: 'i32', value: 1 })) },
        ],
        ['tokenizer.ggml.merges', strings(merges)],
        ['tokenizer.ggml.bos_token_id', u32(128_000)],
      ],
      tensors,
      dataBytes: 0,
    });
  }

  it('reads an 8 MB header in at most 4 sequential requests and 1.5 times its bytes', async () => {
    // The tensor data (4.9 GB of zeros here) follows the header, so nothing stops a read that overshoots.
    const file = llama3Header();
    const reader = memoryReader(sparseSource(file, file.length + 4_900_000_000), 'remote');
    const loaded = await loadHeader(reader);
    expect(loaded.outcome.kind).toBe('parsed');
    const header = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
    const dataStart = header?.dataStart ?? 0;
    expect(dataStart).toBeGreaterThan(7_000_000);
    expect(header?.gguf?.tokenizer).toMatchObject({ vocabSize: 128_256, merges: 280_147 });
    expect(header?.gguf?.tokenizer?.special).toEqual([
      { role: 'bos', id: 128_000, text: expect.stringMatching(/^tok/) },
    ]);
    expect(reader.reads.length).toBeLessThanOrEqual(4);
    expect(loaded.bytesRead).toBeLessThanOrEqual(1.5 * dataStart);
  });
});
