/**
 * Issue 16's generators: nesting around serde_json's recursion limit (every container kind and position), huge
 * metadata (many entries, long and JSON-looking values, invisible characters in keys), huge shapes (ranks far past
 * MAX_TENSOR_RANK) and many distinct module paths. Sizes stay CI-friendly; `npm run fuzz` runs them longer.
 */
import fc from 'fast-check';
import { lengthPrefix } from '../build-safetensors';
import { letterSegment } from '../huge-fixtures';
import { nestedJson } from '../json-nesting';
import type { FuzzInput } from './check-input';
import type { FuzzProperty } from './arbitraries';

const encoder = new TextEncoder();

function file(header: string, dataBytes: number): Uint8Array {
  const bytes = encoder.encode(header);
  const out = new Uint8Array(8 + bytes.length + dataBytes);
  out.set(lengthPrefix(bytes.length));
  out.set(bytes, 8);
  return out;
}

const asInput = (bytes: fc.Arbitrary<Uint8Array>): fc.Arbitrary<FuzzInput> =>
  fc.tuple(bytes, fc.boolean()).map(([data, allowOversizedHeader]) => ({ bytes: data, allowOversizedHeader }));

const ENTRY = '{"dtype":"F32","shape":[1],"data_offsets":[0,4]}';

/** Containers of random kinds nested `levels` deep around a scalar, in every place a header can hold them. */
const nearReferenceDepthArb = fc
  .record({
    levels: fc.integer({ min: 115, max: 140 }),
    kinds: fc.array(fc.constantFrom('[', '{"k":', '[1,', '{"a":1,"k":'), { minLength: 1, maxLength: 4 }),
    where: fc.constantFrom('unknown-field', 'shape', 'offsets', 'entry', 'metadata-value', 'metadata', 'top'),
    empty: fc.boolean(),
  })
  .map(({ levels, kinds, where, empty }) => {
    const { open, close } = nestedJson(levels, kinds);
    const nested =
      empty && kinds[(levels - 1) % kinds.length] === '['
        ? `${open.slice(0, -1)}[]${close.slice(1)}`
        : `${open}1${close}`;
    const text = {
      'unknown-field': `{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":${nested}}}`,
      shape: `{"t":{"dtype":"F32","shape":[${nested}],"data_offsets":[0,4]}}`,
      offsets: `{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,${nested}]}}`,
      entry: `{"t":${nested}}`,
      'metadata-value': `{"__metadata__":{"k":${nested}},"t":${ENTRY}}`,
      metadata: `{"__metadata__":${nested},"t":${ENTRY}}`,
      top: nested,
    }[where];
    return file(text, 4);
  });

const keyArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('__proto__', 'ss_tag_frequency', 'format', 'a\u202Eb', 'x\u200Dy', '=cmd|calc'),
);
const valueArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.json({ maxDepth: 3 }),
  fc.integer({ min: 1, max: 2_000 }).map((n) => 'v'.repeat(n)),
);

/** Thousands of metadata entries (some not strings), with long, JSON-looking and hostile keys and values. */
const hugeMetadataFileArb = fc
  .record({
    count: fc.integer({ min: 200, max: 5_000 }),
    samples: fc.array(fc.tuple(keyArb, valueArb, fc.boolean()), { minLength: 1, maxLength: 8 }),
  })
  .map(({ count, samples }) => {
    const parts: string[] = [];
    for (let i = 0; i < count; i++) {
      const [key, value, raw] = samples[i % samples.length];
      const shownValue = raw && i % 97 === 0 ? value : JSON.stringify(value);
      parts.push(`${JSON.stringify(`${key}${i}`)}:${shownValue}`);
    }
    return file(`{"__metadata__":{${parts.join(',')}},"t":${ENTRY}}`, 4);
  });

/** A tensor whose rank is far past MAX_TENSOR_RANK (up to 50,000 dims), its product sometimes matching the span. */
const hugeShapeFileArb = fc
  .record({
    rank: fc.integer({ min: 65, max: 50_000 }),
    dim: fc.constantFrom(0, 1, 2, 4_294_967_296),
    last: fc.constantFrom(1, 7),
  })
  .map(({ rank, dim, last }) => {
    const dims = `${dim},`.repeat(rank - 1) + String(last);
    return file(
      `{"t":{"dtype":"U8","shape":[${dims}],"data_offsets":[0,${last}]},"u":${ENTRY.replace('[0,4]', `[${last},${last + 4}]`)}}`,
      last + 4,
    );
  });

/** Thousands of one-byte tensors whose module paths are all distinct, at one to four levels. */
const manyModulePathsFileArb = fc
  .record({
    count: fc.integer({ min: 500, max: 5_000 }),
    levels: fc.integer({ min: 1, max: 4 }),
    numbered: fc.boolean(),
  })
  .map(({ count, levels, numbered }) => {
    const parts: string[] = [];
    for (let i = 0; i < count; i++) {
      const segments: string[] = [];
      let rest = i;
      for (let level = 0; level < levels; level++) {
        segments.push(numbered && level === 0 ? String(rest % 40) : letterSegment(rest % 50));
        rest = Math.floor(rest / 50);
      }
      segments.push(letterSegment(i));
      parts.push(`"${segments.join('.')}.weight":{"dtype":"U8","shape":[1],"data_offsets":[${i},${i + 1}]}`);
    }
    return file(`{${parts.join(',')}}`, count);
  });

export const HUGE_FUZZ_PROPERTIES: readonly FuzzProperty[] = [
  { name: 'nesting around the reference recursion limit', arbitrary: asInput(nearReferenceDepthArb), ciRuns: 300 },
  { name: 'huge metadata', arbitrary: asInput(hugeMetadataFileArb), ciRuns: 10 },
  { name: 'huge shapes', arbitrary: asInput(hugeShapeFileArb), ciRuns: 10 },
  { name: 'many distinct module paths', arbitrary: asInput(manyModulePathsFileArb), ciRuns: 10 },
];
