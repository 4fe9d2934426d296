/**
 * fast-check generators of hostile files: valid files mutated by bit flips, truncation, insertion, deletion and
 * duplication; random JSON headers; headers of entries with random fields (including numbers beyond 2^53 written
 * as JSON text); lying length prefixes; and deep nesting. Shared by the CI fuzz test and `npm run fuzz`.
 */
import fc from 'fast-check';
import { CHECKPOINT_FUZZ_PROPERTIES } from './checkpoint-arbitraries';
import { GGUF_FUZZ_PROPERTIES } from './gguf-arbitraries';
import { HUGE_FUZZ_PROPERTIES } from './huge-arbitraries';
import { DTYPES } from '../../core/dtypes';
import { MAX_HEADER_LENGTH, MAX_HEADER_LENGTH_OVERRIDE } from '../../core/limits';
import { buildSafetensors, lengthPrefix, type TensorSpec } from '../build-safetensors';
import type { FuzzInput } from './check-input';

const encoder = new TextEncoder();

/** Bytes that matter to a JSON scanner or a sniffer, inserted more often than chance would. */
const INTERESTING_BYTES = [
  0x00, 0x09, 0x0a, 0x0d, 0x20, 0x22, 0x2c, 0x2d, 0x2e, 0x30, 0x31, 0x39, 0x3a, 0x45, 0x5b, 0x5c, 0x5d, 0x65, 0x75,
  0x7b, 0x7d, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xef, 0xbb, 0xf0, 0xf4, 0xf5, 0xff,
];

/** Byte strings that matter: escapes, UTF-8 edge cases, BOM, surrogates, magic numbers. */
const INTERESTING_CHUNKS = [
  '\\u0000',
  '\\ud800',
  '\\udc00\\ud800',
  '\\"',
  '\\\\',
  '"__metadata__":',
  '"__proto__":',
  '{"dtype":"F32","shape":[1],"data_offsets":[0,4]}',
  '"data_offsets":[0,18446744073709551616]',
  '9007199254740993',
  '1e309',
  '-0',
  '[[[[[[[[',
  '{"a":{"a":{"a":',
  '\uFEFF',
  '\u2028',
  'GGUF',
  'PK\u0003\u0004',
  '<html>',
  'version https://git-lfs.github.com/spec/v1\n',
].map((text) => encoder.encode(text));

/** Length-prefix values at every boundary the loader and parser care about. */
const INTERESTING_LENGTHS: ReadonlyArray<number | bigint> = [
  0,
  1,
  2,
  7,
  8,
  9,
  255,
  4096,
  128 * 1024 - 8,
  128 * 1024 - 7,
  128 * 1024,
  1_000_000,
  MAX_HEADER_LENGTH - 1,
  MAX_HEADER_LENGTH,
  MAX_HEADER_LENGTH + 1,
  MAX_HEADER_LENGTH_OVERRIDE,
  MAX_HEADER_LENGTH_OVERRIDE + 1,
  2 ** 31,
  2 ** 32,
  2 ** 32 + 2,
  2 ** 53 - 1,
  2n ** 53n,
  2n ** 53n + 1n,
  2n ** 63n,
  2n ** 64n - 1n,
];

const nameArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    '__metadata__',
    '',
    '<script>alert(1)</script>',
    'model.layers.0.self_attn.q_proj.weight',
    'model.layers.0.mlp.experts.7.up_proj.weight',
    'lora_unet_down_blocks_0.lora_down.weight',
    'layers.0.qweight',
    'layers.0.weight_scale',
  ),
);

const dtypeArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...DTYPES) },
  { weight: 1, arbitrary: fc.constantFrom('bf16', 'Q4_K', '', 'F8', 'E8M0', 'FP4', 'UE8', 'F128') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

const shapeArb = fc.array(fc.nat(6), { maxLength: 4 });

const metadataArb = fc.option(
  fc.dictionary(nameArb, fc.string({ unit: 'grapheme', maxLength: 24 }), { maxKeys: 5 }).map(
    // fromEntries keeps "__proto__" an own key, as JSON.parse would.
    (record) => Object.fromEntries(Object.entries(record)) as Record<string, string>,
  ),
  { nil: undefined },
);

const tensorsArb = fc
  .uniqueArray(fc.record({ name: nameArb, dtype: dtypeArb, shape: shapeArb }), {
    selector: (tensor) => tensor.name,
    maxLength: 10,
  })
  .map((tensors) => tensors.filter((tensor) => tensor.name !== '__metadata__') as TensorSpec[]);

/** A file the reference writer could have produced (any dtype string, any names), data region included. */
const validFileArb = fc
  .record({
    tensors: tensorsArb,
    metadata: metadataArb,
    headerAlignment: fc.constantFrom(1, 8),
    dataBytesDelta: fc.oneof(
      { weight: 4, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: -8, max: 8 }) },
    ),
  })
  .map(({ tensors, metadata, headerAlignment, dataBytesDelta }) =>
    buildSafetensors(tensors, { metadata, headerAlignment, dataBytesDelta, fill: 0x5a }),
  );

type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'duplicate'; from: number; length: number; to: number }
  | { kind: 'prefix'; length: number | bigint };

const position = fc.nat({ max: 1 << 20 });

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('flip' as const), at: position, bit: fc.nat(7) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: position }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      at: position,
      bytes: fc.oneof(
        fc.constantFrom(...INTERESTING_BYTES).map((byte) => Uint8Array.of(byte)),
        fc.constantFrom(...INTERESTING_CHUNKS),
        fc.uint8Array({ minLength: 1, maxLength: 8 }),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('delete' as const),
      at: position,
      length: fc.integer({ min: 1, max: 16 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('duplicate' as const),
      from: position,
      length: fc.integer({ min: 1, max: 128 }),
      to: position,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('prefix' as const), length: fc.constantFrom(...INTERESTING_LENGTHS) }),
  },
);

/**
 * Mutations apply to the header region most of the time (positions wrap modulo 8 + N + a little), because bytes
 * deep in the data region change nothing the parser reads.
 */
function applyMutation(bytes: Uint8Array, mutation: Mutation): Uint8Array {
  const span = Math.max(1, Math.min(bytes.length, headerEnd(bytes) + 16));
  const at = (value: number) => value % (span + 1);
  switch (mutation.kind) {
    case 'flip': {
      if (bytes.length === 0) {
        return bytes;
      }
      const copy = bytes.slice();
      copy[at(mutation.at) % copy.length] ^= 1 << mutation.bit;
      return copy;
    }
    case 'truncate':
      return bytes.slice(0, at(mutation.at));
    case 'insert': {
      const where = Math.min(at(mutation.at), bytes.length);
      return concat(bytes.subarray(0, where), mutation.bytes, bytes.subarray(where));
    }
    case 'delete': {
      const where = Math.min(at(mutation.at), bytes.length);
      return concat(bytes.subarray(0, where), bytes.subarray(Math.min(bytes.length, where + mutation.length)));
    }
    case 'duplicate': {
      const from = Math.min(at(mutation.from), bytes.length);
      const piece = bytes.slice(from, from + mutation.length);
      const to = Math.min(at(mutation.to), bytes.length);
      return concat(bytes.subarray(0, to), piece, bytes.subarray(to));
    }
    case 'prefix': {
      const copy = bytes.length >= 8 ? bytes.slice() : concat(bytes, new Uint8Array(8 - bytes.length));
      copy.set(lengthPrefix(mutation.length));
      return copy;
    }
  }
}

function headerEnd(bytes: Uint8Array): number {
  if (bytes.length < 8) {
    return bytes.length;
  }
  const n = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  return n > BigInt(bytes.length) ? bytes.length : 8 + Number(n);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Valid files with one to five mutations, and the prefix fixed up half the time so the JSON gets parsed. */
const mutatedFileArb = fc
  .tuple(validFileArb, fc.array(mutationArb, { minLength: 1, maxLength: 5 }), fc.boolean())
  .map(([file, mutations, fixPrefix]) => {
    let bytes = file;
    const originalEnd = headerEnd(file);
    for (const mutation of mutations) {
      bytes = applyMutation(bytes, mutation);
    }
    if (fixPrefix && bytes.length >= 8 && mutations.every((m) => m.kind !== 'prefix')) {
      // Keep N pointing at the (shifted) end of the header so mutations inside the JSON reach the JSON parser.
      const shift = bytes.length - file.length;
      const fixed = bytes.slice();
      fixed.set(lengthPrefix(Math.max(0, Math.min(bytes.length, originalEnd + shift) - 8)));
      return fixed;
    }
    return bytes;
  });

/** Any JSON value as the whole header, with a correct prefix, optional padding and a few data bytes. */
const randomJsonFileArb = fc
  .tuple(
    fc.json({ maxDepth: 5 }),
    fc.constantFrom('', ' ', '   ', '\n', '\u0000'),
    fc.constantFrom('', ' ', '\t', '\uFEFF'),
    fc.nat(64),
  )
  .map(([json, padding, lead, data]) => {
    const header = encoder.encode(`${lead}${json}${padding}`);
    return concat(lengthPrefix(header.length), header, new Uint8Array(data).fill(0x5a));
  });

/** JSON text of numbers, including ones JSON.parse rounds (beyond 2^53) and ones serde refuses as usize. */
const numberTextArb = fc.oneof(
  { weight: 40, arbitrary: fc.nat(64).map(String) },
  {
    weight: 20,
    arbitrary: fc.constantFrom(
      '9007199254740991',
      '9007199254740992',
      '9007199254740993',
      '18446744073709551615',
      '18446744073709551616',
      '340282366920938463463374607431768211456',
      '4294967296',
      '-1',
      '-0',
      '0.5',
      '1e3',
      '1.0',
    ),
  },
  // serde_json refuses it outright, which ends the parse: kept rare so other cases reach the entry checks.
  { weight: 1, arbitrary: fc.constant('1E400') },
  { weight: 10, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 70n }).map(String) },
  { weight: 10, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)) },
);

const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

type TextMutation =
  | { kind: 'number'; index: number; text: string }
  | { kind: 'string'; index: number; text: string }
  | { kind: 'repeat-entry'; index: number }
  | { kind: 'drop-entry'; index: number }
  | { kind: 'whitespace'; index: number; text: string };

const textMutationArb: fc.Arbitrary<TextMutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('number' as const), index: fc.nat(64), text: numberTextArb }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('string' as const),
      index: fc.nat(64),
      text: fc
        .oneof(nameArb, dtypeArb, fc.constantFrom('dtype', 'shape', 'data_offsets'))
        .map((text) => JSON.stringify(text)),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('repeat-entry' as const), index: fc.nat(16) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop-entry' as const), index: fc.nat(16) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('whitespace' as const),
      index: fc.nat(64),
      text: fc.constantFrom(' ', '\n', '\t', '\r', '\u0000', '\uFEFF', '\u00a0'),
    }),
  },
);

/** Top-level entries `"name":{...}` of a header the builder wrote (no nesting beyond one object level). */
const ENTRY = /"(?:[^"\\]|\\.)*":(?:\{[^{}]*\}|\{"[^{}]*\}|null)/g;

function mutateText(text: string, mutation: TextMutation): string {
  if (mutation.kind === 'repeat-entry' || mutation.kind === 'drop-entry') {
    const entries = [...text.matchAll(ENTRY)];
    if (entries.length === 0) {
      return text;
    }
    const entry = entries[mutation.index % entries.length];
    const start = entry.index ?? 0;
    const end = start + entry[0].length;
    if (mutation.kind === 'repeat-entry') {
      return `${text.slice(0, end)},${entry[0]}${text.slice(end)}`;
    }
    // Take the comma on one side with it so the JSON stays well-formed.
    const before = text[start - 1] === ',' ? start - 1 : start;
    const after = before === start && text[end] === ',' ? end + 1 : end;
    return text.slice(0, before) + text.slice(after);
  }
  const tokens = [...text.matchAll(TOKEN)].filter((match) =>
    mutation.kind === 'number'
      ? !match[0].startsWith('"')
      : mutation.kind === 'string'
        ? match[0].startsWith('"')
        : true,
  );
  if (tokens.length === 0) {
    return text;
  }
  const token = tokens[mutation.index % tokens.length];
  const start = token.index ?? 0;
  const end = start + token[0].length;
  if (mutation.kind === 'whitespace') {
    return text.slice(0, end) + mutation.text + text.slice(end);
  }
  return text.slice(0, start) + mutation.text + text.slice(end);
}

/**
 * Valid files mutated at the JSON-token level (numbers, strings, whole entries, whitespace), with the prefix and
 * data region kept consistent, so most cases get past the JSON scanner into the entry and layout checks.
 */
const structuredMutationArb = fc
  .tuple(validFileArb, fc.array(textMutationArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: -4, max: 4 }))
  .map(([file, mutations, dataDelta]) => {
    const end = headerEnd(file);
    let text = new TextDecoder().decode(file.subarray(8, end)).trimEnd();
    for (const mutation of mutations) {
      text = mutateText(text, mutation);
    }
    const header = encoder.encode(text);
    const data = file.subarray(end, Math.max(end, file.length + dataDelta));
    return concat(lengthPrefix(header.length), header, data);
  });

const jsonTextArb = fc.oneof(
  { weight: 3, arbitrary: numberTextArb },
  { weight: 1, arbitrary: fc.json({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom('null', 'true', '""', '[]', '{}', '"F32"', '[1,2]', '[[1]]') },
);

const arrayTextArb = (item: fc.Arbitrary<string>, maxLength: number) =>
  fc.array(item, { maxLength }).map((items) => `[${items.join(',')}]`);

/** One entry's fields: each present, absent, duplicated, or replaced by arbitrary JSON; unknown fields added. */
const entryTextArb = fc
  .record({
    dtype: fc.oneof(
      { weight: 4, arbitrary: dtypeArb.map((dtype) => JSON.stringify(dtype)) },
      { weight: 1, arbitrary: jsonTextArb },
    ),
    shape: fc.oneof({ weight: 4, arbitrary: arrayTextArb(numberTextArb, 5) }, { weight: 1, arbitrary: jsonTextArb }),
    offsets: fc.oneof({ weight: 4, arbitrary: arrayTextArb(numberTextArb, 3) }, { weight: 1, arbitrary: jsonTextArb }),
    drop: fc.subarray(['dtype', 'shape', 'data_offsets']),
    duplicate: fc.option(fc.constantFrom('dtype', 'shape', 'data_offsets'), { nil: undefined }),
    extra: fc.option(fc.tuple(nameArb, jsonTextArb), { nil: undefined }),
  })
  .map(({ dtype, shape, offsets, drop, duplicate, extra }) => {
    const fields: Array<[string, string]> = [
      ['dtype', dtype],
      ['shape', shape],
      ['data_offsets', offsets],
    ];
    const kept = fields.filter(([key]) => !drop.includes(key));
    if (duplicate) {
      kept.push(fields.find(([key]) => key === duplicate) ?? fields[0]);
    }
    if (extra) {
      kept.push([extra[0], extra[1]]);
    }
    return `{${kept.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
  });

const metadataTextArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.tuple(
          nameArb,
          fc.oneof(
            jsonTextArb,
            fc.string().map((s) => JSON.stringify(s)),
          ),
        ),
        { maxLength: 5 },
      )
      .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  },
  { weight: 1, arbitrary: jsonTextArb },
);

/** Headers of entries with random fields, sometimes a (duplicated) __metadata__, and a data region of any size. */
const randomEntriesFileArb = fc
  .record({
    entries: fc.array(
      fc.tuple(nameArb, fc.oneof({ weight: 6, arbitrary: entryTextArb }, { weight: 1, arbitrary: jsonTextArb })),
      { maxLength: 8 },
    ),
    metadata: fc.array(metadataTextArb, { maxLength: 2 }),
    metadataFirst: fc.boolean(),
    data: fc.oneof(fc.nat(256), fc.constant(-1), fc.constant(-1)),
  })
  .map(({ entries, metadata, metadataFirst, data }) => {
    const parts = entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`);
    const meta = metadata.map((value) => `"__metadata__":${value}`);
    const text = `{${(metadataFirst ? [...meta, ...parts] : [...parts, ...meta]).join(',')}}`;
    const header = encoder.encode(text);
    // -1: exactly as much data as the largest end offset that parses as a small integer (often a valid layout).
    const ends = [...text.matchAll(/"data_offsets":\[\d+,(\d{1,6})\]/g)].map((match) => Number(match[1]));
    const dataLength = data >= 0 ? data : Math.max(0, ...ends);
    return concat(lengthPrefix(header.length), header, new Uint8Array(dataLength).fill(0x5a));
  });

/** Tiny files, non-safetensors magic, and length prefixes that lie about sizes of every scale. */
const prefixFileArb = fc
  .record({
    length: fc.oneof(fc.constantFrom(...INTERESTING_LENGTHS), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })),
    body: fc.oneof(
      fc.uint8Array({ maxLength: 600 }),
      fc.constantFrom(...INTERESTING_CHUNKS),
      fc.constant(encoder.encode('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}')),
    ),
    raw: fc.boolean(),
  })
  .map(({ length, body, raw }) => (raw ? body : concat(lengthPrefix(length), body)));

/** JSON nested up to 20,000 levels, in the entry list, inside an entry field, or inside __metadata__. */
const deepNestingFileArb = fc
  .record({
    depth: fc.oneof(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 60, max: 20_000 })),
    open: fc.constantFrom('[', '{"a":'),
    where: fc.constantFrom('top', 'entry', 'shape', 'metadata'),
    closed: fc.boolean(),
  })
  .map(({ depth, open, where, closed }) => {
    const close = open === '[' ? ']' : '}';
    const nested = `${open.repeat(depth)}1${closed ? close.repeat(depth) : ''}`;
    const text =
      where === 'top'
        ? nested
        : where === 'entry'
          ? `{"t":${nested}}`
          : where === 'shape'
            ? `{"t":{"dtype":"F32","shape":${nested},"data_offsets":[0,4]}}`
            : `{"__metadata__":{"k":${nested}},"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`;
    const header = encoder.encode(text);
    return concat(lengthPrefix(header.length), header, new Uint8Array(4));
  });

/**
 * Files whose header straddles the remote reader's 128 KiB first read (a long metadata value or space padding), so
 * the second read, the streaming buffer and the preview run; then truncated or given a lying prefix half the time.
 */
const bigHeaderFileArb = fc
  .record({
    tensors: tensorsArb,
    filler: fc.integer({ min: 100 * 1024, max: 300 * 1024 }),
    inMetadata: fc.boolean(),
    damage: fc.oneof(
      fc.constant({ kind: 'none' as const }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.integer({ min: 0, max: 400 * 1024 }) }),
      fc.record({ kind: fc.constant('prefix' as const), length: fc.constantFrom(...INTERESTING_LENGTHS) }),
      fc.record({ kind: fc.constant('grow' as const), by: fc.integer({ min: 1, max: 200 * 1024 }) }),
    ),
  })
  .map(({ tensors, filler, inMetadata, damage }) => {
    const file = inMetadata
      ? buildSafetensors(tensors, { metadata: { filler: 'x'.repeat(filler) }, fill: 0x5a })
      : buildSafetensors(tensors, { headerAlignment: filler, fill: 0x5a });
    switch (damage.kind) {
      case 'none':
        return file;
      case 'truncate':
        return file.slice(0, damage.at);
      case 'prefix': {
        const copy = file.slice();
        copy.set(lengthPrefix(damage.length));
        return copy;
      }
      case 'grow': {
        // The prefix claims more header than the file has.
        const copy = file.slice();
        copy.set(lengthPrefix(headerEnd(file) - 8 + damage.by));
        return copy;
      }
    }
  });

export interface FuzzProperty {
  name: string;
  arbitrary: fc.Arbitrary<FuzzInput>;
  /** Cases per CI run; the sum is the CI fuzz budget. */
  ciRuns: number;
}

const withOption = (bytes: fc.Arbitrary<Uint8Array>): fc.Arbitrary<FuzzInput> =>
  fc
    .tuple(bytes, fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }))
    .map(([file, allowOversizedHeader]) => ({ bytes: file, allowOversizedHeader }));

export const FUZZ_PROPERTIES: readonly FuzzProperty[] = [
  {
    name: 'mutated valid files (bit flips, truncation, insertion, deletion, duplication)',
    arbitrary: withOption(mutatedFileArb),
    ciRuns: 6_000,
  },
  {
    name: 'valid files mutated token by token (numbers, strings, entries, whitespace)',
    arbitrary: withOption(structuredMutationArb),
    ciRuns: 5_000,
  },
  { name: 'random JSON headers', arbitrary: withOption(randomJsonFileArb), ciRuns: 2_000 },
  { name: 'headers of entries with random fields', arbitrary: withOption(randomEntriesFileArb), ciRuns: 5_000 },
  { name: 'lying length prefixes and tiny or foreign files', arbitrary: withOption(prefixFileArb), ciRuns: 1_500 },
  { name: 'deep nesting', arbitrary: withOption(deepNestingFileArb), ciRuns: 500 },
  { name: 'headers larger than the first remote read, damaged', arbitrary: withOption(bigHeaderFileArb), ciRuns: 300 },
  ...CHECKPOINT_FUZZ_PROPERTIES,
  ...GGUF_FUZZ_PROPERTIES,
  ...HUGE_FUZZ_PROPERTIES,
];
