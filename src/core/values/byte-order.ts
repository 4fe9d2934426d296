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
import { DTYPE_BITS } from '../dtypes';
import { valuesDtype } from './decode';

/** Fields to reverse, repeating every `period` bytes: `[offset, width]` within each period. */
export interface ByteSwap {
  period: number;
  fields: ReadonlyArray<readonly [number, number]>;
}

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

/** Blocks whose scales are single bytes: nothing to swap. */
const BYTEWISE_BLOCKS: ReadonlySet<string> = new Set(['MXFP4', 'NVFP4']);

/**
 * How a big-endian tensor of `dtype` becomes little-endian: a swap, null when its bytes are the same either way, or a
 * sentence saying why its values cannot be read.
 */
export function littleEndianSwap(dtype: string): ByteSwap | null | string {
  // A complex element's real and imaginary parts are swapped each on its own: every part-sized run reversed.
  const bits = (DTYPE_BITS as Readonly<Record<string, number>>)[valuesDtype(dtype)];
  if (bits !== undefined) {
    return bits <= 8 ? null : { period: bits / 8, fields: [[0, bits / 8]] };
  }
  if (BYTEWISE_BLOCKS.has(dtype)) {
    return null;
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
