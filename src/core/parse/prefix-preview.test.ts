import { describe, expect, it } from 'vitest';
import { dtypeCode } from '../dtypes';
import { allTensorNames, tensorShape } from '../model';
import { buildHeaderBytes } from '../../testing/build-safetensors';
import { previewEntries } from './prefix-preview';

const tensors = Array.from({ length: 20 }, (_, i) => ({ name: `layer.${i}.weight`, dtype: 'F16', shape: [i + 1, 4] }));
const header = buildHeaderBytes(tensors, { metadata: { format: 'pt' } }).head.subarray(8);
const text = new TextDecoder().decode(header);

/** Offset just after the closing brace of entry `index`. */
function endOfEntry(index: number): number {
  const key = `"layer.${index}.weight":`;
  return text.indexOf('}', text.indexOf(key)) + 1;
}

describe('previewEntries', () => {
  it('returns every complete entry of a prefix and stops at the first incomplete one', () => {
    for (const cut of [endOfEntry(4), endOfEntry(4) + 1, endOfEntry(5) - 1, endOfEntry(5) - 30]) {
      const rows = previewEntries(header.subarray(0, cut), 100);
      expect(rows.count, `cut at ${cut}`).toBe(5);
      expect(allTensorNames(rows)).toEqual(tensors.slice(0, 5).map((tensor) => tensor.name));
    }
  });

  it('fills the columns like the full parse', () => {
    const rows = previewEntries(header.subarray(0, endOfEntry(2)), 100);
    expect(Array.from(rows.dtype)).toEqual([dtypeCode('F16'), dtypeCode('F16'), dtypeCode('F16')]);
    expect(tensorShape(rows, 2)).toEqual([3, 4]);
    expect(Array.from(rows.elements)).toEqual([4, 8, 12]);
    expect(rows.begin[1]).toBe(8);
  });

  it('caps at maxRows', () => {
    expect(previewEntries(header, 7).count).toBe(7);
    expect(previewEntries(header, 0).count).toBe(0);
    expect(previewEntries(header, 1000).count).toBe(20);
  });

  it('cuts anywhere, even inside a multi-byte name, without throwing', () => {
    const unicode = new TextEncoder().encode('{"naïve.日本":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":');
    for (let cut = 0; cut <= unicode.length; cut++) {
      const rows = previewEntries(unicode.subarray(0, cut), 10);
      expect(rows.count).toBeLessThanOrEqual(1);
    }
    expect(allTensorNames(previewEntries(unicode, 10))).toEqual(['naïve.日本']);
  });

  it('returns nothing for junk', () => {
    expect(previewEntries(new TextEncoder().encode('<html>'), 10).count).toBe(0);
    expect(previewEntries(new Uint8Array(0), 10).count).toBe(0);
  });
});
