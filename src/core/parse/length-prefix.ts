/** The 8-byte little-endian u64 header length that starts every safetensors file. */

/** Bytes of the length prefix: the safetensors data region starts at LENGTH_PREFIX_BYTES + N. */
export const LENGTH_PREFIX_BYTES = 8;

const TWO_POW_32 = 2 ** 32;
/** High words at or above this put the length past 2^53, where a double stops counting every integer. */
const FIRST_UNSAFE_HIGH_WORD = 2 ** 21;

/**
 * Reads N from the first 8 bytes. Above 2^53 `length` is the nearest double (still enormous, so every limit
 * check fails as it should) and `exact` is false. Needs at least 8 bytes.
 */
export function readLengthPrefix(first8: Uint8Array): { length: number; exact: boolean } {
  if (first8.length < 8) {
    throw new RangeError(`readLengthPrefix needs 8 bytes, got ${first8.length}`);
  }
  const view = new DataView(first8.buffer, first8.byteOffset, 8);
  const low = view.getUint32(0, true);
  const high = view.getUint32(4, true);
  return { length: high * TWO_POW_32 + low, exact: high < FIRST_UNSAFE_HIGH_WORD };
}

/** N exactly, as a bigint: messages quote it digit for digit even past 2^53. */
export function readLengthPrefixExact(first8: Uint8Array): bigint {
  return new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true);
}
