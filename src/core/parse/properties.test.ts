/**
 * Property tests: round trips through the byte builder, a differential against JSON.parse, and "never throws"
 * on mutated files. The big fuzz campaign lives elsewhere; these keep the core guarantees in every test run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasInvisible } from '../invisible-chars';
import { DTYPE_BITS, DTYPES, UNKNOWN_DTYPE_CODE, dtypeCode, type Dtype } from '../dtypes';
import { FINDING_CODES } from '../findings/codes';
import type { FindingCode } from '../findings/codes';
import type { ParseOutcome } from '../model';
import { allTensorNames, metadataEntries, tensorShape } from '../model';
import { buildSafetensors, layoutTensors, type TensorSpec } from '../../testing/build-safetensors';
import { U64_MAX } from './header-scanner';
import { parseFileHead } from './parse-header';
import { codesOf, findingsOf, parseBytes, parsedHeader, rawFile } from '../../testing/parse-helpers';
import { previewEntries } from './prefix-preview';

/** "never throws" must hold for at least this many generated files per property. */
const NEVER_THROWS_RUNS = 2_000;

const nameArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary-ascii', maxLength: 8 }),
  fc.constantFrom('__proto__', 'constructor', 'toString', '', 'model.layers.0.mlp.experts.7.up_proj.weight'),
);

/** Sub-byte dtypes need elements × bits to be a multiple of 8; a trailing dim of 8 always gets there. */
function withWholeBytes(dtype: Dtype, shape: number[]): number[] {
  const elements = shape.reduce((product, dim) => product * dim, 1);
  return (elements * DTYPE_BITS[dtype]) % 8 === 0 ? shape : [...shape, 8];
}

const tensorsArb = fc
  .uniqueArray(
    fc.record({
      name: nameArb,
      dtype: fc.constantFrom(...DTYPES),
      shape: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 4 }),
    }),
    { selector: (tensor) => tensor.name, maxLength: 12 },
  )
  .map((tensors) =>
    tensors
      .filter((tensor) => tensor.name !== '__metadata__')
      .map((tensor): TensorSpec => ({ ...tensor, shape: withWholeBytes(tensor.dtype, tensor.shape) })),
  );

const metadataArb = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc
    .uniqueArray(
      fc.tuple(
        fc.oneof(nameArb, fc.constantFrom('__proto__', 'constructor', 'format')),
        fc.string({ unit: 'grapheme', maxLength: 20 }),
      ),
      { selector: ([key]) => key, maxLength: 6 },
    )
    // fromEntries defines own properties, so even "__proto__" becomes a plain key that JSON.stringify writes.
    .map((entries) => Object.fromEntries(entries) as Record<string, string>),
);

describe('round trip: builder → bytes → parse', () => {
  it('reproduces every tensor and metadata entry exactly', () => {
    fc.assert(
      fc.property(tensorsArb, metadataArb, fc.constantFrom(1, 8), (tensors, metadata, headerAlignment) => {
        const file = buildSafetensors(tensors, { metadata, headerAlignment });
        const header = parsedHeader(parseBytes(file));
        const names = [...tensors.map((tensor) => tensor.name), ...Object.keys(metadata ?? {})];
        const allowed: FindingCode[] = [
          'header-not-padded',
          ...(tensors.length === 0 ? ['empty-header' as const] : []),
          // Random names may hold control or format characters, which are named (never refused).
          ...(names.some(hasInvisible) ? ['invisible-characters' as const] : []),
        ];
        expect(header.findings.map((finding) => finding.code).filter((code) => !allowed.includes(code))).toEqual([]);

        const { entries, dataLength } = layoutTensors(tensors);
        const columns = header.tensors;
        expect(columns.count).toBe(tensors.length);
        expect(allTensorNames(columns)).toEqual(tensors.map((tensor) => tensor.name));
        entries.forEach((expected, row) => {
          expect(columns.dtype[row]).toBe(dtypeCode(expected.dtype));
          expect(tensorShape(columns, row)).toEqual(expected.shape);
          expect(columns.begin[row]).toBe(expected.data_offsets[0]);
          expect(columns.end[row]).toBe(expected.data_offsets[1]);
          expect(columns.elements[row]).toBe(expected.shape.reduce((product, dim) => product * dim, 1));
        });
        expect(header.dataBytes).toBe(dataLength);
        expect(header.metadataState).toBe(metadata === undefined ? 'absent' : metadata === null ? 'null' : 'object');
        expect(metadataEntries(header.metadata)).toEqual(
          Object.entries(metadata ?? {}).map(([key, value]) => ({ key, value, kind: 'string' })),
        );
      }),
      { numRuns: 300 },
    );
  });
});

/** The JSON text of a number decides whether serde reads it as a usize: digits only, within u64. */
function isUsizeLiteral(value: unknown): value is number {
  if (typeof value !== 'number') {
    return false;
  }
  const text = JSON.stringify(value);
  return /^(0|[1-9]\d*)$/.test(text) && BigInt(text) <= U64_MAX;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the reference's serde model says about one entry, computed from JSON.parse's view of it. */
function expectedEntry(value: unknown): {
  codes: Set<FindingCode>;
  dtype: number;
  shape: number[] | null;
  offsets: [number, number] | null;
} {
  const codes = new Set<FindingCode>();
  if (!isPlainObject(value)) {
    codes.add('invalid-entry');
    return { codes, dtype: UNKNOWN_DTYPE_CODE, shape: null, offsets: null };
  }
  if (!('dtype' in value) || !('shape' in value) || !('data_offsets' in value)) {
    codes.add('invalid-entry');
  }
  let dtype = UNKNOWN_DTYPE_CODE;
  if ('dtype' in value) {
    if (typeof value.dtype !== 'string') {
      codes.add('invalid-entry');
    } else {
      dtype = dtypeCode(value.dtype);
      if (dtype === UNKNOWN_DTYPE_CODE) {
        codes.add('unknown-dtype');
      }
    }
  }
  let shape: number[] | null = null;
  if ('shape' in value) {
    if (Array.isArray(value.shape) && value.shape.every(isUsizeLiteral)) {
      shape = value.shape;
      if (dtype !== UNKNOWN_DTYPE_CODE) {
        let product = 1n;
        let overflow = false;
        for (const dim of shape) {
          product *= BigInt(JSON.stringify(dim));
          overflow ||= product > U64_MAX;
        }
        if (overflow || product * BigInt(DTYPE_BITS[DTYPES[dtype]]) > U64_MAX) {
          codes.add('invalid-shape');
        }
      }
    } else {
      codes.add('invalid-shape');
    }
  }
  let offsets: [number, number] | null = null;
  if ('data_offsets' in value) {
    const raw = value.data_offsets;
    if (Array.isArray(raw) && raw.length === 2 && raw.every(isUsizeLiteral)) {
      offsets = [raw[0], raw[1]];
      if (BigInt(JSON.stringify(raw[1])) < BigInt(JSON.stringify(raw[0]))) {
        codes.add('invalid-offsets');
      }
    } else {
      codes.add('invalid-offsets');
    }
  }
  return { codes, dtype, shape, offsets };
}

const ENTRY_CODES: FindingCode[] = ['invalid-entry', 'unknown-dtype', 'invalid-shape', 'invalid-offsets'];

const numberLikeArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 1_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: -1 }) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(2 ** 53 + 2, 2 ** 60, 2 ** 64, 1e21, 0.5) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 2 }), fc.constant(null), fc.constant([1])) },
);

const entryObjectArb = fc
  .record(
    {
      dtype: fc.oneof(fc.constantFrom(...DTYPES), fc.constantFrom('u8', 'Q4_K', 'FP4', ''), fc.integer()),
      shape: fc.oneof(
        { weight: 5, arbitrary: fc.array(numberLikeArb, { maxLength: 3 }) },
        { weight: 1, arbitrary: fc.integer() },
      ),
      data_offsets: fc.oneof(
        { weight: 5, arbitrary: fc.tuple(numberLikeArb, numberLikeArb) },
        { weight: 1, arbitrary: fc.array(numberLikeArb, { maxLength: 3 }) },
      ),
      extra: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  )
  .chain((value) =>
    fc
      .shuffledSubarray(Object.keys(value), { minLength: Object.keys(value).length })
      .map((order) => Object.fromEntries(order.map((key) => [key, value[key as keyof typeof value]]))),
  );

const headerObjectArb = fc.uniqueArray(
  fc.tuple(
    nameArb.filter((name) => name !== '__metadata__'),
    fc.oneof({ weight: 8, arbitrary: entryObjectArb }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }),
  ),
  { selector: ([name]) => name, maxLength: 8 },
);

describe('differential against JSON.parse', () => {
  it('extracts the same entries and flags exactly the entries serde would refuse', () => {
    fc.assert(
      fc.property(headerObjectArb, fc.constantFrom(undefined, 1, '\t'), (pairs, indent) => {
        const text = JSON.stringify(Object.fromEntries(pairs), null, indent);
        const reference = JSON.parse(text) as Record<string, unknown>;
        const header = parsedHeader(parseFileHead(rawFile(text), null));
        const names = allTensorNames(header.tensors);
        expect(new Set(names)).toEqual(new Set(Object.keys(reference)));
        const expectedRows = new Map<FindingCode, Set<number>>(ENTRY_CODES.map((code) => [code, new Set()]));
        names.forEach((name, row) => {
          const expected = expectedEntry(reference[name]);
          expected.codes.forEach((code) => expectedRows.get(code)?.add(row));
          expect(header.tensors.dtype[row]).toBe(expected.dtype);
          if (expected.shape) {
            expect(tensorShape(header.tensors, row)).toEqual(expected.shape);
          } else {
            expect(Number.isNaN(header.tensors.elements[row])).toBe(true);
          }
          if (expected.offsets) {
            expect([header.tensors.begin[row], header.tensors.end[row]]).toEqual(expected.offsets);
          } else {
            expect(Number.isNaN(header.tensors.begin[row])).toBe(true);
          }
        });
        for (const code of ENTRY_CODES) {
          const rows = new Set(
            header.findings
              .filter((finding) => finding.code === code && finding.refusedByReference)
              .flatMap((finding) => finding.tensors),
          );
          expect(rows, code).toEqual(expectedRows.get(code));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('accepts exactly the JSON grammar JSON.parse accepts', () => {
    const editArb = fc.tuple(
      fc.nat(),
      fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', '1', '0', '-', '.', 'e', ' ', 'a', 't', 'n', '\n', ''),
    );
    fc.assert(
      fc.property(
        fc.json({ maxDepth: 4, stringUnit: 'grapheme-ascii' }),
        fc.array(editArb, { maxLength: 3 }),
        (json, edits) => {
          let text = json;
          for (const [position, insert] of edits) {
            const at = position % (text.length + 1);
            // An empty insert deletes the character at that position instead.
            text = insert === '' ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + insert + text.slice(at);
          }
          let accepted = true;
          let value: unknown;
          let outOfRange = false;
          try {
            value = JSON.parse(text, (_key, item: unknown) => {
              outOfRange ||= typeof item === 'number' && !Number.isFinite(item);
              return item;
            });
          } catch {
            accepted = false;
          }
          // serde_json refuses what JSON.parse rounds to Infinity and lone surrogate escapes: documented differences.
          fc.pre(!outOfRange && !/\\u[dD][89a-fA-F]/.test(text));
          const outcome = parseFileHead(rawFile(text), null);
          if (!accepted) {
            expect(codesOf(outcome)).toEqual(['invalid-json']);
          } else if (isPlainObject(value)) {
            expect(outcome.kind).toBe('parsed');
          } else {
            expect(codesOf(outcome)).toEqual(['not-an-object']);
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

function checkOutcomeShape(outcome: ParseOutcome): void {
  for (const found of findingsOf(outcome)) {
    expect(FINDING_CODES[found.code]).toBeDefined();
    expect(found.message.length).toBeGreaterThan(20);
  }
  if (outcome.kind === 'parsed') {
    const columns = outcome.header.tensors;
    expect(columns.nameStarts.length).toBe(columns.count + 1);
    expect(columns.shapeStarts.length).toBe(columns.count + 1);
    expect(columns.dtype.length).toBe(columns.count);
    for (const found of outcome.header.findings) {
      expect(found.tensors.every((row) => row >= 0 && row < columns.count)).toBe(true);
    }
  }
}

const baseFile = buildSafetensors(
  [
    { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [8, 4] },
    { name: 'model.layers.0.mlp.experts.0.up_proj.weight', dtype: 'F8_E4M3', shape: [4, 4] },
    { name: 'model.layers.0.mlp.experts.0.up_proj.weight_scale', dtype: 'F32', shape: [] },
    { name: 'packed', dtype: 'F4', shape: [2, 6] },
    { name: 'naïve', dtype: 'I64', shape: [0, 3] },
  ],
  { metadata: { format: 'pt', note: 'quote " and \\ backslash' } },
);

type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'truncate'; length: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'delete'; at: number; count: number }
  | { kind: 'punctuate'; at: number; byte: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('truncate' as const), length: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 6 }) }),
  fc.record({
    kind: fc.constant('punctuate' as const),
    at: fc.nat(),
    byte: fc.constantFrom(...'{}[],:"\\0-.e '.split('').map((c) => c.charCodeAt(0)), 0x00, 0x80, 0xff),
  }),
);

function mutate(file: Uint8Array, mutation: Mutation): Uint8Array {
  const at = 'at' in mutation ? mutation.at % (file.length + 1) : 0;
  switch (mutation.kind) {
    case 'flip': {
      const copy = file.slice();
      if (at < copy.length) {
        copy[at] ^= 1 << mutation.bit;
      }
      return copy;
    }
    case 'truncate':
      return file.slice(0, mutation.length % (file.length + 1));
    case 'insert':
      return new Uint8Array([...file.subarray(0, at), ...mutation.bytes, ...file.subarray(at)]);
    case 'delete':
      return new Uint8Array([...file.subarray(0, at), ...file.subarray(at + mutation.count)]);
    case 'punctuate': {
      const copy = file.slice();
      if (at < copy.length) {
        copy[at] = mutation.byte;
      }
      return copy;
    }
  }
}

/** Mutations land in the header most of the time: the data bytes are never read. */
function headerBiased(mutations: Mutation[], headerEnd: number): Mutation[] {
  return mutations.map((mutation) => ('at' in mutation ? { ...mutation, at: mutation.at % headerEnd } : mutation));
}

describe('never throws', () => {
  it('on mutated valid files (bit flips, truncation, insertion, deletion)', () => {
    const headerEnd = 8 + Number(new DataView(baseFile.buffer).getBigUint64(0, true)) + 1;
    fc.assert(
      fc.property(fc.array(mutationArb, { minLength: 1, maxLength: 6 }), fc.boolean(), (mutations, sizeKnown) => {
        const file = headerBiased(mutations, headerEnd).reduce(mutate, baseFile);
        const outcome = parseFileHead(file, sizeKnown ? file.length : null);
        checkOutcomeShape(outcome);
        if (file.length > 8) {
          previewEntries(file.subarray(8), 3);
        }
      }),
      { numRuns: NEVER_THROWS_RUNS },
    );
  });

  it('on random bytes behind a plausible length prefix', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat({ max: 40 }), (body, extra) => {
        const file = new Uint8Array(8 + body.length + extra);
        new DataView(file.buffer).setBigUint64(0, BigInt(body.length), true);
        file.set(body, 8);
        checkOutcomeShape(parseFileHead(file, file.length));
        previewEntries(body, 10);
      }),
      { numRuns: NEVER_THROWS_RUNS },
    );
  });

  it('on arbitrary bytes and sizes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.option(fc.nat(), { nil: null }), (bytes, size) => {
        checkOutcomeShape(parseFileHead(bytes, size));
      }),
      { numRuns: NEVER_THROWS_RUNS },
    );
  });
});

describe('hostile and huge headers', () => {
  it('10,000-deep nesting is refused without blowing the stack, for the reason the reference gives', () => {
    for (const [text, code] of [
      [`{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, 'too-deep'],
      [
        `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":${'{"k":'.repeat(10_000)}1${'}'.repeat(10_000)}}}`,
        'too-deep',
      ],
      // serde refuses a metadata value or a top-level value by its type before descending; unclosed, the JSON ends.
      [`{"__metadata__":{"k":${'['.repeat(10_000)}}}`, 'invalid-json'],
      ['['.repeat(10_000), 'invalid-json'],
      ['['.repeat(10_000) + ']'.repeat(10_000), 'not-an-object'],
    ] as const) {
      const outcome = parseBytes(rawFile(text, 1));
      expect(outcome.kind).toBe('rejected');
      expect(codesOf(outcome)).toEqual([code]);
      expect(() => previewEntries(new TextEncoder().encode(text), 10)).not.toThrow();
    }
  });

  it('parses a 250,000-tensor header with exact counts', () => {
    const tensorCount = 250_000;
    const parts: string[] = [];
    let cursor = 0;
    const bytesPerTensor = 2048 * 16 * 2;
    for (let i = 0; i < tensorCount; i++) {
      const name = `model.layers.${Math.floor(i / 2688)}.mlp.experts.${Math.floor(i / 3) % 896}.${['gate_proj', 'up_proj', 'down_proj'][i % 3]}.weight`;
      parts.push(`"${name}":{"dtype":"BF16","shape":[2048,16],"data_offsets":[${cursor},${cursor + bytesPerTensor}]}`);
      cursor += bytesPerTensor;
    }
    const text = `{"__metadata__":{"format":"pt"},${parts.join(',')}}`;
    const bytes = new TextEncoder().encode(text);
    const header = parsedHeader(
      parseFileHead(
        (() => {
          const head = new Uint8Array(8 + bytes.length);
          new DataView(head.buffer).setBigUint64(0, BigInt(bytes.length), true);
          head.set(bytes, 8);
          return head;
        })(),
        8 + bytes.length + cursor,
      ),
    );
    expect(header.tensors.count).toBe(tensorCount);
    expect(header.findings.filter((finding) => finding.code !== 'header-not-padded')).toEqual([]);
    expect(header.dataBytes).toBe(cursor);
    expect(header.tensors.elements.every((elements) => elements === 2048 * 16)).toBe(true);
    expect(header.tensors.begin[tensorCount - 1]).toBe(cursor - bytesPerTensor);
  });
});
