/**
 * The hostile-file catalog of issue #7 beyond `hostile-names.safetensors` (fixture-manifest.ts): very long names
 * and metadata values, 10,000-deep nesting, numbers beyond 2^53, and headers at, just over, and far over the
 * 100,000,000-byte cap. Unit tests build them in memory; scripts/fixtures-extra.ts writes them for the e2e suite
 * (the huge headers streamed in chunks, their data regions sparse).
 */
import { MAX_HEADER_LENGTH, MAX_HEADER_LENGTH_OVERRIDE } from '../core/limits';
import { buildSafetensors, lengthPrefix } from './build-safetensors';
import type { FixtureCase } from './fixture-manifest';

const encoder = new TextEncoder();

/** A tensor name of exactly 100,000 characters, with a recognisable head and tail. */
export const LONG_NAME = `long.${'abcdefghij'.repeat(9_999)}.tail`;
/** A 1 MB metadata value (1,000,000 characters). */
export const LONG_METADATA_VALUE = `${'value-'.repeat(166_666)}LAST`;
/** A 10,000-character metadata key. */
export const LONG_METADATA_KEY = `key_${'k'.repeat(9_992)}_end`;
/** Nesting depth of the deep-nesting fixture: far past the reference's JSON recursion limit (128). */
export const DEEP_NESTING_LEVELS = 10_000;
/** A dimension one past 2^53: JSON.parse rounds it to 2^53, so every JavaScript reader gets it wrong silently. */
const UNSAFE_DIM = '9007199254740993';

function withHeader(text: string, dataLength: number): Uint8Array {
  const body = encoder.encode(text);
  const file = new Uint8Array(8 + body.length + dataLength);
  file.set(lengthPrefix(body.length));
  file.set(body, 8);
  return file;
}

export const HOSTILE_FIXTURES: readonly FixtureCase[] = [
  {
    file: 'long-values.safetensors',
    description: 'A 100,000-character tensor name, a 1 MB metadata value and a 10,000-character metadata key',
    bytes: () =>
      buildSafetensors(
        [
          { name: LONG_NAME, dtype: 'F32', shape: [2] },
          { name: 'short.weight', dtype: 'F32', shape: [2] },
        ],
        { metadata: { format: 'pt', long_value: LONG_METADATA_VALUE, [LONG_METADATA_KEY]: 'long key' } },
      ),
    expectCodes: [],
    referenceAccepts: true,
  },
  {
    file: 'deep-nesting.safetensors',
    description: `JSON nested ${DEEP_NESTING_LEVELS.toLocaleString('en')} levels deep inside a tensor entry`,
    bytes: () =>
      withHeader(
        `{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":${'['.repeat(DEEP_NESTING_LEVELS)}${']'.repeat(DEEP_NESTING_LEVELS)}}}`,
        4,
      ),
    expectCodes: ['too-deep'],
    referenceAccepts: false,
  },
  {
    file: 'unsafe-integer.safetensors',
    description: 'A dimension and an offset beyond 2^53',
    bytes: () => withHeader(`{"big":{"dtype":"U8","shape":[${UNSAFE_DIM}],"data_offsets":[0,${UNSAFE_DIM}]}}`, 16),
    expectCodes: ['unsafe-integer'],
    referenceAccepts: false,
  },
];

/**
 * A header of exactly `headerLength` bytes that is real JSON: one 4-byte tensor plus either a metadata string that
 * fills the rest (`metadata`) or trailing space padding (`padding`), as parts a writer can stream without
 * building a 100 MB string.
 */
export interface HugeHeaderLayout {
  file: string;
  headerLength: number;
  /** Prefix and the JSON before the filler. */
  start: Uint8Array;
  fillByte: number;
  fillLength: number;
  /** The JSON after the filler. */
  end: Uint8Array;
  /** Data bytes after the header (the one tensor's 4 bytes). */
  dataLength: number;
}

const TENSOR = '"weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}';

function hugeHeaderLayout(file: string, headerLength: number, style: 'metadata' | 'padding'): HugeHeaderLayout {
  const open = style === 'metadata' ? `{${TENSOR},"__metadata__":{"format":"pt","padding":"` : `{${TENSOR}}`;
  const close = style === 'metadata' ? '"}}' : '';
  const start = new Uint8Array([...lengthPrefix(headerLength), ...encoder.encode(open)]);
  const end = encoder.encode(close);
  const fillLength = headerLength - (start.length - 8) - end.length;
  return { file, headerLength, start, fillByte: style === 'metadata' ? 0x61 : 0x20, fillLength, end, dataLength: 4 };
}

/** One byte under the spec cap (parses), as a metadata string of ~100 MB. */
export const HEADER_UNDER_CAP = hugeHeaderLayout('header-99999999.safetensors', MAX_HEADER_LENGTH - 1, 'metadata');
/** One byte over the cap: refused with a "Parse anyway" button; space-padded. */
export const HEADER_OVER_CAP = hugeHeaderLayout('header-100000001.safetensors', MAX_HEADER_LENGTH + 1, 'padding');
/** Over the parse-anyway bound: refused with no button. Only the prefix is written; the file is sparse. */
export const HEADER_OVER_BUDGET = {
  file: 'header-over-budget.safetensors',
  headerLength: MAX_HEADER_LENGTH_OVERRIDE + 8,
};

/** The whole file of a layout, in memory (for unit tests; e2e fixtures are streamed). */
export function hugeHeaderFile(layout: HugeHeaderLayout): Uint8Array {
  const file = new Uint8Array(8 + layout.headerLength + layout.dataLength);
  file.set(layout.start);
  file.fill(layout.fillByte, layout.start.length, layout.start.length + layout.fillLength);
  file.set(layout.end, layout.start.length + layout.fillLength);
  return file;
}
