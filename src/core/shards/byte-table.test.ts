import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteSliceIndex, ByteStringInterner } from './byte-table';

const encode = (text: string) => new TextEncoder().encode(text);

describe('ByteStringInterner', () => {
  it('gives first-seen ids and finds repeats after many resizes', () => {
    // Starting tiny forces every buffer and table to grow many times (a past bug let hashes fall out of step).
    const interner = new ByteStringInterner(0, 0);
    const names = Array.from({ length: 50_000 }, (_, i) => encode(`model.layers.${i}.weight`));
    names.forEach((name, i) => {
      expect(interner.intern(name, 0, name.length)).toBe(i);
      expect(interner.added).toBe(true);
    });
    names.forEach((name, i) => {
      expect(interner.intern(name, 0, name.length)).toBe(i);
      expect(interner.added).toBe(false);
    });
    const { bytes, starts } = interner.columns();
    expect(starts.length).toBe(names.length + 1);
    expect(new TextDecoder().decode(bytes.subarray(starts[7], starts[8]))).toBe('model.layers.7.weight');
  });

  it('interns slices of a larger buffer, including the empty string', () => {
    const interner = new ByteStringInterner();
    const source = encode('abcabc');
    expect(interner.intern(source, 0, 3)).toBe(0);
    expect(interner.intern(source, 3, 6)).toBe(0);
    expect(interner.intern(source, 2, 2)).toBe(1);
    expect(interner.intern(source, 0, 0)).toBe(1);
    expect(interner.count).toBe(2);
  });

  it('matches a Map of strings on random input', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 6 }), { maxLength: 300 }), (strings) => {
        const interner = new ByteStringInterner(0, 0);
        const expected = new Map<string, number>();
        for (const text of strings) {
          const bytes = encode(text);
          if (!expected.has(text)) {
            expected.set(text, expected.size);
          }
          expect(interner.intern(bytes, 0, bytes.length)).toBe(expected.get(text));
        }
        expect(interner.count).toBe(expected.size);
      }),
    );
  });
});

describe('ByteSliceIndex', () => {
  it('maps every row to the first equal row and finds slices from other buffers', () => {
    const names = ['a', 'b', 'a', 'c', 'b', 'a'];
    const bytes = encode(names.join(''));
    const starts = Uint32Array.from({ length: names.length + 1 }, (_, i) => i);
    const index = new ByteSliceIndex(bytes, starts, names.length);
    expect(Array.from(index.firstOf)).toEqual([0, 1, 0, 3, 1, 0]);
    const other = encode('xxcxx');
    expect(index.find(other, 2, 3)).toBe(3);
    expect(index.find(other, 0, 1)).toBe(-1);
    expect(index.find(other, 0, 0)).toBe(-1);
  });
});
