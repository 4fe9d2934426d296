/**
 * A big-endian file's tensor bytes, put into the little-endian order every decoder here reads (decode.ts,
 * gguf-blocks.ts), as the loaders do on a little-endian machine:
 *
 * - torch.load swaps each storage of an archive whose `byteorder` record says `big` by the storage's element size, a
 *   complex element by the size of each half (torch/serialization.py, `UntypedStorage.byteswap`).
 * - A big-endian GGUF stores every plain number big-endian; inside quant blocks only the float16 scales are, as
 *   gguf-py's `gguf_convert_endian.py` swaps them (Q4_0 and Q8_0 `d`; Q4_K `d` and `dmin`; Q6_K `d` after its 208
 *   bytes of codes). MXFP4's and NVFP4's scales are single bytes. The converter refuses every other block type, and
 *   no producer documents how they lie big-endian, so their values are not read.
 */

/** Fields to reverse, repeating every `period` bytes: `[offset, width]` within each period. */
export interface ByteSwap {
  period: number;
  fields: ReadonlyArray<readonly [number, number]>;
}

const ELEMENT_BYTES: Readonly<Record<string, number>> = {
  I16: 2,
  U16: 2,
  F16: 2,
  BF16: 2,
  I32: 4,
  U32: 4,
  F32: 4,
  F64: 8,
  I64: 8,
  U64: 8,
};

/** Complex dtypes: two floats per element, each swapped on its own. */
const COMPLEX_HALF_BYTES: Readonly<Record<string, number>> = { C32: 2, C64: 4, C128: 8 };

const BLOCK_SWAPS: Readonly<Record<string, ByteSwap>> = {
  Q4_0: { period: 18, fields: [[0, 2]] },
  Q8_0: { period: 34, fields: [[0, 2]] },
  Q4_K: {
    period: 144,
    fields: [
      [0, 2],
      [2, 2],
    ],
  },
  Q6_K: { period: 210, fields: [[208, 2]] },
};

/** One-byte dtypes and blocks of single bytes: nothing to swap. */
const BYTEWISE = new Set([
  'BOOL',
  'U8',
  'I8',
  'F4',
  'F6_E2M3',
  'F6_E3M2',
  'F8_E5M2',
  'F8_E4M3',
  'F8_E8M0',
  'F8_E4M3FNUZ',
  'F8_E5M2FNUZ',
  'MXFP4',
  'NVFP4',
]);

/**
 * How a big-endian tensor of `dtype` becomes little-endian: a swap, null when its bytes are the same either way, or a
 * sentence saying why its values cannot be read.
 */
export function littleEndianSwap(dtype: string): ByteSwap | null | string {
  if (BYTEWISE.has(dtype)) {
    return null;
  }
  const element = ELEMENT_BYTES[dtype];
  if (element !== undefined) {
    return { period: element, fields: [[0, element]] };
  }
  const half = COMPLEX_HALF_BYTES[dtype];
  if (half !== undefined) {
    // Each half on its own is every `half` bytes reversed: a read cut between the halves of an element still swaps.
    return { period: half, fields: [[0, half]] };
  }
  const block = BLOCK_SWAPS[dtype];
  if (block !== undefined) {
    return block;
  }
  return (
    `This big-endian file stores the tensor as ${dtype}, whose big-endian block layout no producer documents ` +
    "(llama.cpp's gguf_convert_endian.py converts only Q4_0, Q8_0, Q4_K, Q6_K, MXFP4, NVFP4 and the float types): " +
    'its values are not read. The little-endian original reads as usual.'
  );
}

/** Reverses `swap`'s fields in place; `bytes` starts on a period boundary and holds whole periods. */
export function swapInPlace(bytes: Uint8Array, swap: ByteSwap): void {
  const { period, fields } = swap;
  if (period === 2 && fields.length === 1) {
    for (let at = 0; at + 1 < bytes.length; at += 2) {
      const low = bytes[at];
      bytes[at] = bytes[at + 1];
      bytes[at + 1] = low;
    }
    return;
  }
  for (let base = 0; base + period <= bytes.length; base += period) {
    for (const [offset, width] of fields) {
      for (let i = base + offset, j = base + offset + width - 1; i < j; i++, j--) {
        const byte = bytes[i];
        bytes[i] = bytes[j];
        bytes[j] = byte;
      }
    }
  }
}
