import { describe, expect, it } from 'vitest';
import { buildSafetensors } from '../testing/build-safetensors';
import { parseBytes, parsedHeader } from '../testing/parse-helpers';
import {
  allMetadataTexts,
  columnsByteLength,
  columnsIn,
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

describe('columnsIn', () => {
  it('lays out every column of an extent in one buffer without overlap, each view aligned and zeroed', () => {
    const extent = { count: 5, nameBytes: 37, dims: 9, unknownDtypeBits: true };
    const columns = columnsIn(extent);
    const views: ArrayBufferView[] = [
      columns.dims,
      columns.begin,
      columns.end,
      columns.elements,
      columns.nameStarts,
      columns.shapeStarts,
      columns.nameBytes,
      columns.dtype,
      columns.unknownDtypeBits as Uint8Array,
    ];
    expect(views.map((view) => view.byteLength)).toEqual([72, 40, 40, 40, 24, 24, 37, 5, 5]);
    const buffer = columns.dims.buffer;
    expect(buffer.byteLength).toBe(columnsByteLength(extent));
    expect(views.every((view) => view.buffer === buffer)).toBe(true);
    const spans = views.map((view) => [view.byteOffset, view.byteOffset + view.byteLength]).sort((a, b) => a[0] - b[0]);
    spans.forEach(([, end], i) => expect(i + 1 < spans.length ? spans[i + 1][0] : buffer.byteLength).toBe(end));
    expect(columns.count).toBe(5);
    expect(new Uint8Array(buffer).every((byte) => byte === 0)).toBe(true);
  });

  it('leaves out the unknown-dtype column when the extent has none', () => {
    const columns = columnsIn({ count: 2, nameBytes: 3, dims: 1, unknownDtypeBits: false });
    expect(columns.unknownDtypeBits).toBeUndefined();
    expect(columns.nameBytes.byteOffset + columns.nameBytes.byteLength + 2).toBe(columns.dims.buffer.byteLength);
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

  it('puts every column in one buffer, the given one when it has room', () => {
    const given = new ArrayBuffer(10_000);
    const rows = leadingRows(columns, 3, (byteLength) => {
      expect(byteLength).toBe(
        columnsByteLength({
          count: 3,
          nameBytes: columns.nameStarts[3],
          dims: columns.shapeStarts[3],
          unknownDtypeBits: false,
        }),
      );
      return given;
    });
    const views = [rows.nameBytes, rows.nameStarts, rows.dtype, rows.shapeStarts, rows.dims, rows.begin, rows.end];
    expect(views.every((view) => view.buffer === given)).toBe(true);
    expect(tensorName(rows, 2)).toBe('layers.0.proj.weight');
    expect(tensorShape(rows, 2)).toEqual([4, 4, 2]);
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
