import { describe, expect, it } from 'vitest';
import { buildSafetensors } from '../testing/build-safetensors';
import { parseBytes, parsedHeader } from '../testing/parse-helpers';
import {
  allMetadataTexts,
  leadingRows,
  tensorName,
  tensorShape,
  metadataColumns,
  metadataEntries,
  metadataEntry,
  metadataKey,
  metadataValue,
  type MetadataEntry,
} from './model';

const entry = (key: string, value: string, kind: MetadataEntry['kind'] = 'string'): MetadataEntry => ({
  key,
  value,
  kind,
});

function expectRoundTrip(entries: MetadataEntry[]): void {
  const columns = metadataColumns(entries);
  expect(columns.count).toBe(entries.length);
  expect(metadataEntries(columns)).toEqual(entries);
  entries.forEach((expected, index) => {
    expect(metadataEntry(columns, index)).toEqual(expected);
    expect(metadataKey(columns, index)).toBe(expected.key);
    expect(metadataValue(columns, index)).toBe(expected.value);
  });
  expect(allMetadataTexts(columns)).toEqual(entries.flatMap((item) => [item.key, item.value]));
}

describe('metadata columns', () => {
  it('pack ASCII entries as UTF-8 bytes with one bound per key and value', () => {
    const entries = [entry('format', 'pt'), entry('', ''), entry('n', '3', 'number'), entry('__proto__', 'x')];
    const columns = metadataColumns(entries);
    expect(columns.text).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(columns.text)).toBe('formatptn3__proto__x');
    expect(Array.from(columns.bounds)).toEqual([0, 6, 8, 8, 8, 9, 10, 19, 20]);
    expectRoundTrip(entries);
  });

  it('keep non-ASCII text exact in UTF-8 (bounds in bytes)', () => {
    const entries = [entry('café', '日本語'), entry('emoji 😀', 'x'), entry('k', 'é'.repeat(10_000))];
    const columns = metadataColumns(entries);
    expect(columns.text).toBeInstanceOf(Uint8Array);
    expect(columns.bounds[1]).toBe(5);
    expectRoundTrip(entries);
  });

  it('keep lone surrogates exact by falling back to UTF-16 code units', () => {
    // A pair split across a key and its value is two lone surrogates, not one character.
    const entries = [
      entry('a\uD800', 'b'),
      entry('x\uD83D', '\uDE00y'),
      entry('ok', '😀'),
      entry('k', '\uDC00'.repeat(20_000)),
    ];
    const columns = metadataColumns(entries);
    expect(columns.text).toBeInstanceOf(Uint16Array);
    expectRoundTrip(entries);
  });

  it('pack no entries as an empty text with one bound', () => {
    const columns = metadataColumns([]);
    expect(columns.count).toBe(0);
    expect(Array.from(columns.bounds)).toEqual([0]);
    expect(metadataEntries(columns)).toEqual([]);
  });

  it('keep every JSON kind', () => {
    const kinds: MetadataEntry['kind'][] = ['string', 'number', 'boolean', 'null', 'object', 'array'];
    expectRoundTrip(kinds.map((kind, index) => entry(`k${index}`, `v${index}`, kind)));
  });
});

describe('leadingRows', () => {
  const columns = parsedHeader(
    parseBytes(
      buildSafetensors([
        { name: 'embed.weight', dtype: 'BF16', shape: [8, 4] },
        { name: 'layers.0.scale', dtype: 'F32', shape: [] },
        { name: 'layers.0.proj.weight', dtype: 'F8_E4M3', shape: [4, 4, 2] },
      ]),
    ),
  ).tensors;

  it('copies the first rows with their names, shapes, dtypes and spans, owning their buffers', () => {
    const rows = leadingRows(columns, 2);
    expect(rows.count).toBe(2);
    expect([0, 1].map((row) => tensorName(rows, row))).toEqual(['embed.weight', 'layers.0.scale']);
    expect([0, 1].map((row) => tensorShape(rows, row))).toEqual([[8, 4], []]);
    expect(Array.from(rows.dtype)).toEqual(Array.from(columns.dtype.subarray(0, 2)));
    expect(Array.from(rows.end)).toEqual(Array.from(columns.end.subarray(0, 2)));
    // Exact copies: transferring them to the page leaves the header's columns intact.
    expect(rows.nameBytes.buffer).not.toBe(columns.nameBytes.buffer);
    expect(rows.nameBytes.byteLength).toBe(columns.nameStarts[2]);
    expect(rows.dims.byteLength).toBe(columns.shapeStarts[2] * Float64Array.BYTES_PER_ELEMENT);
  });

  it('gives every row when fewer than asked, and none for zero', () => {
    const all = leadingRows(columns, 60);
    expect(all.count).toBe(3);
    expect(tensorShape(all, 2)).toEqual([4, 4, 2]);
    const none = leadingRows(columns, 0);
    expect(none.count).toBe(0);
    expect(Array.from(none.nameStarts)).toEqual([0]);
  });
});
