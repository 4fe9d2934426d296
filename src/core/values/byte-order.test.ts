/**
 * The swaps that make a big-endian file's tensor bytes little-endian: each element by its size, complex halves apart,
 * only the float16 scales inside the quant blocks llama.cpp's converter swaps, and a sentence for any other block.
 */
import { describe, expect, it } from 'vitest';
import { littleEndianSwap, swapInPlace, type ByteSwap } from './byte-order';

function swapped(bytes: number[], dtype: string): number[] {
  const swap = littleEndianSwap(dtype) as ByteSwap;
  const out = Uint8Array.from(bytes);
  swapInPlace(out, swap);
  return [...out];
}

describe('littleEndianSwap', () => {
  it('reverses each element by its size', () => {
    expect(swapped([1, 2, 3, 4], 'BF16')).toEqual([2, 1, 4, 3]);
    expect(swapped([1, 2, 3, 4, 5, 6, 7, 8], 'F32')).toEqual([4, 3, 2, 1, 8, 7, 6, 5]);
    expect(swapped([1, 2, 3, 4, 5, 6, 7, 8], 'I64')).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
  });

  it("swaps a complex element's real and imaginary parts each on its own, as torch's byteswap does", () => {
    expect(swapped([1, 2, 3, 4, 5, 6, 7, 8], 'C64')).toEqual([4, 3, 2, 1, 8, 7, 6, 5]);
    expect(swapped([1, 2, 3, 4], 'C32')).toEqual([2, 1, 4, 3]);
  });

  it('swaps only the float16 scales of Q4_0, Q8_0, Q4_K and Q6_K blocks', () => {
    const block = (length: number) => Array.from({ length }, (_, i) => i & 255);
    const q4k = swapped(block(288), 'Q4_K');
    expect(q4k.slice(0, 6)).toEqual([1, 0, 3, 2, 4, 5]);
    expect(q4k.slice(144, 150)).toEqual([145, 144, 147, 146, 148, 149]);
    const q6k = swapped(block(210), 'Q6_K');
    expect(q6k.slice(206)).toEqual([206, 207, 209, 208]);
    expect(swapped(block(68), 'Q8_0').slice(32, 37)).toEqual([32, 33, 35, 34, 36]);
    expect(swapped(block(18), 'Q4_0').slice(0, 3)).toEqual([1, 0, 2]);
  });

  it('leaves byte-wise dtypes and single-byte block scales alone', () => {
    for (const dtype of ['U8', 'I8', 'BOOL', 'F8_E4M3', 'F4', 'MXFP4', 'NVFP4']) {
      expect(littleEndianSwap(dtype), dtype).toBeNull();
    }
  });

  it('refuses, in words, a block type no producer documents big-endian', () => {
    for (const dtype of ['Q5_K', 'Q4_1', 'IQ4_XS', 'TQ2_0']) {
      expect(littleEndianSwap(dtype), dtype).toMatch(new RegExp(`stores the tensor as ${dtype}.*not read`));
    }
  });
});
