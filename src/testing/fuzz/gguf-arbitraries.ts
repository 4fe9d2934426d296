/**
 * fast-check arbitraries for GGUF files: well-formed ones of every version, byte order and value type (for the
 * differential test against @huggingface/gguf), and hostile mutations of them (lying counts and lengths, flipped
 * bytes, cuts) for the fuzz test, which only asks that every input ends in a result or a finding.
 */
import fc from 'fast-check';
import { buildGguf, str, strings, type GgufTestFile, type GgufTestTensor, type GgufTestValue } from '../build-gguf';

const KEY = fc.stringMatching(/^[a-z]{1,6}(\.[a-z_]{1,8}){0,2}$/);

const SCALAR: fc.Arbitrary<GgufTestValue> = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map((value) => ({ type: 'u8' as const, value })),
  fc.integer({ min: -128, max: 127 }).map((value) => ({ type: 'i8' as const, value })),
  fc.integer({ min: 0, max: 65535 }).map((value) => ({ type: 'u16' as const, value })),
  fc.integer({ min: -32768, max: 32767 }).map((value) => ({ type: 'i16' as const, value })),
  fc.integer({ min: 0, max: 2 ** 32 - 1 }).map((value) => ({ type: 'u32' as const, value })),
  fc.integer().map((value) => ({ type: 'i32' as const, value })),
  fc.float({ noNaN: true }).map((value) => ({ type: 'f32' as const, value })),
  fc.boolean().map((value) => ({ type: 'bool' as const, value })),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((value) => ({ type: 'u64' as const, value })),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((value) => ({ type: 'i64' as const, value })),
  fc.double({ noNaN: true }).map((value) => ({ type: 'f64' as const, value })),
  fc.string({ maxLength: 20, unit: 'grapheme' }).map((value) => ({ type: 'string' as const, value })),
);

const ARRAY: fc.Arbitrary<GgufTestValue> = fc.oneof(
  fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 30 }).map((items) => ({
    type: 'array' as const,
    elementType: 8,
    items: items.map((value) => ({ type: 'string' as const, value })),
  })),
  fc.array(fc.integer(), { minLength: 1, maxLength: 30 }).map((items) => ({
    type: 'array' as const,
    elementType: 5,
    items: items.map((value) => ({ type: 'i32' as const, value })),
  })),
  fc.array(fc.float({ noNaN: true }), { minLength: 1, maxLength: 30 }).map((items) => ({
    type: 'array' as const,
    elementType: 6,
    items: items.map((value) => ({ type: 'f32' as const, value })),
  })),
);

/** ggml types with their block sizes, so generated rows hold whole blocks. */
const TYPES: ReadonlyArray<[number, number]> = [
  [0, 1],
  [1, 1],
  [30, 1],
  [2, 32],
  [8, 32],
  [12, 256],
  [14, 256],
  [24, 1],
  [28, 1],
];

const TENSOR: fc.Arbitrary<Omit<GgufTestTensor, 'name'>> = fc
  .tuple(
    fc.constantFrom(...TYPES),
    fc.integer({ min: 1, max: 4 }),
    fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 3 }),
  )
  .map(([[type, block], blocks, rest]) => ({ type, ne: [block * blocks, ...rest] }));

export function ggufFileArbitrary(): fc.Arbitrary<GgufTestFile> {
  return fc.record({
    version: fc.constantFrom(2, 3, 3),
    littleEndian: fc.boolean(),
    kvs: fc.uniqueArray(fc.tuple(KEY, fc.oneof({ weight: 3, arbitrary: SCALAR }, { weight: 1, arbitrary: ARRAY })), {
      selector: ([key]) => key,
      maxLength: 8,
    }),
    tensors: fc
      .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z]{1,8}(\.[0-9]{1,2})?\.weight$/), TENSOR), {
        selector: ([name]) => name,
        maxLength: 6,
      })
      .map((entries) => entries.map(([name, tensor]) => ({ name, ...tensor }))),
    alignment: fc.constantFrom(32, 32, 64, 8),
  });
}

const TOKEN = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('', '__proto__', '▁', '<s>', '</s>', '<unk>', '<0x41>', 'Ġ', 'Ġt', 'he', 'the', ' '),
);

/** A tokenizer's keys as llama.cpp's converter writes them, with any of them missing, short or lying. */
const TOKENIZER_KVS: fc.Arbitrary<Array<[string, GgufTestValue]>> = fc
  .record({
    model: fc.constantFrom('gpt2', 'gpt2', 'llama', 'llama', 't5', 'bert', 'rwkv'),
    pre: fc.constantFrom('llama-bpe', 'gpt-2', 'qwen2', 'tekken', 'default', 'nope'),
    tokens: fc.array(TOKEN, { minLength: 8, maxLength: 40 }),
    merges: fc.option(fc.array(fc.tuple(TOKEN, TOKEN), { maxLength: 40 }), { nil: null }),
    types: fc.option(fc.array(fc.integer({ min: -1, max: 8 }), { maxLength: 40 }), { nil: null }),
    scores: fc.option(fc.array(fc.float({ noNaN: true }), { maxLength: 40 }), { nil: null }),
    special: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 3, maxLength: 3 }),
    flags: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  })
  .map(({ model, pre, tokens, merges, types, scores, special, flags }) => {
    const kvs: Array<[string, GgufTestValue]> = [
      ['tokenizer.ggml.model', { type: 'string', value: model }],
      ['tokenizer.ggml.pre', { type: 'string', value: pre }],
      ['tokenizer.ggml.tokens', strings(tokens)],
      ['tokenizer.ggml.bos_token_id', { type: 'u32', value: special[0] }],
      ['tokenizer.ggml.eos_token_id', { type: 'u32', value: special[1] }],
      ['tokenizer.ggml.unknown_token_id', { type: 'u32', value: special[2] }],
      ['tokenizer.ggml.add_bos_token', { type: 'bool', value: flags[0] }],
      ['tokenizer.ggml.add_space_prefix', { type: 'bool', value: flags[1] }],
      ['tokenizer.ggml.remove_extra_whitespaces', { type: 'bool', value: flags[2] }],
    ];
    if (merges !== null) {
      kvs.push(['tokenizer.ggml.merges', strings(merges.map(([left, right]) => `${left} ${right}`))]);
    }
    if (types !== null) {
      const items = types.map((value) => ({ type: 'i32' as const, value }));
      kvs.push(['tokenizer.ggml.token_type', { type: 'array', elementType: 5, items }]);
    }
    if (scores !== null) {
      const items = scores.map((value) => ({ type: 'f32' as const, value }));
      kvs.push(['tokenizer.ggml.scores', { type: 'array', elementType: 6, items }]);
    }
    return kvs;
  });

export type GgufMutation =
  | { kind: 'cut'; at: number }
  | { kind: 'flip'; at: number; value: number }
  | { kind: 'u64'; at: number; value: bigint };

/** Damage applied to a built file: cut it, overwrite a byte, or overwrite 8 bytes with a (usually huge) u64. */
export const ggufMutationArbitrary: fc.Arbitrary<GgufMutation[]> = fc.array(
  fc.oneof(
    fc.nat().map((at) => ({ kind: 'cut' as const, at })),
    fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, value]) => ({ kind: 'flip' as const, at, value })),
    fc
      .tuple(fc.nat(), fc.constantFrom(0n, 1n, 2n ** 31n, 2n ** 40n, 2n ** 63n, 2n ** 64n - 1n))
      .map(([at, value]) => ({ kind: 'u64' as const, at, value })),
  ),
  { minLength: 1, maxLength: 4 },
);

export function mutate(bytes: Uint8Array, mutations: readonly GgufMutation[]): Uint8Array {
  let out = bytes.slice();
  for (const mutation of mutations) {
    if (out.length === 0) {
      break;
    }
    const at = mutation.at % out.length;
    if (mutation.kind === 'cut') {
      out = out.slice(0, at);
    } else if (mutation.kind === 'flip') {
      out[at] = mutation.value;
    } else if (at + 8 <= out.length) {
      new DataView(out.buffer).setBigUint64(at, mutation.value, true);
    }
  }
  return out;
}

/**
 * The GGUF property of the shared fuzz campaign (arbitraries.ts): damaged GGUF files through the whole oracle
 * (check-input.ts: every reader mode, the analyses, the report, the CSV and a table query), where the GGUF fuzz
 * test beside the reader asks only that loading ends in a result or a finding.
 */
export const GGUF_FUZZ_PROPERTIES = [
  {
    name: 'GGUF files with lying counts and lengths, flipped bytes and cuts',
    arbitrary: fc
      .tuple(ggufFileArbitrary(), ggufMutationArbitrary)
      .map(([file, mutations]) => ({ bytes: mutate(buildGguf(file), mutations), allowOversizedHeader: false })),
    ciRuns: 300,
  },
  {
    name: "GGUF tokenizers, whole or damaged, through Encode a text's build",
    arbitrary: fc
      .tuple(ggufFileArbitrary(), TOKENIZER_KVS, fc.option(ggufMutationArbitrary, { nil: null }))
      .map(([file, tokenizer, mutations]) => {
        const bytes = buildGguf({ ...file, kvs: [['general.architecture', str('llama')], ...tokenizer] });
        return { bytes: mutations === null ? bytes : mutate(bytes, mutations), allowOversizedHeader: false };
      }),
    ciRuns: 200,
  },
];
