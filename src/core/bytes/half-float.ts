/**
 * IEEE 754 binary16 ("half", safetensors' `F16`, ggml's `ggml_fp16_t`) and bfloat16 (the top half of a float32),
 * from their 16 bits. One definition for the value decoders, the GGUF block scales and the analyses' scalars.
 */

export function halfToFloat(bits: number): number {
  const exp = (bits >> 10) & 31;
  const man = bits & 1023;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exp === 0) {
    return sign * man * 2 ** -24;
  }
  if (exp === 31) {
    return man === 0 ? sign * Infinity : Number.NaN;
  }
  return sign * (1 + man / 1024) * 2 ** (exp - 15);
}

let halfValues: Float32Array | null = null;

/** All 65,536 half-precision values (256 KiB), built on first use. */
export function halfTable(): Float32Array {
  if (halfValues === null) {
    halfValues = new Float32Array(65536);
    for (let bits = 0; bits < 65536; bits++) {
      halfValues[bits] = halfToFloat(bits);
    }
  }
  return halfValues;
}

/** The little-endian half at `at` of `bytes`, as a number (a block scale of a GGUF quant type). */
export function halfAt(bytes: Uint8Array, at: number): number {
  return halfTable()[bytes[at] | (bytes[at + 1] << 8)];
}

const bfloatScratch = new DataView(new ArrayBuffer(4));

export function bfloatToFloat(bits: number): number {
  bfloatScratch.setUint32(0, bits << 16, false);
  return bfloatScratch.getFloat32(0, false);
}

let bfloatValues: Float32Array | null = null;

/** All 65,536 bfloat16 values, built on first use. */
export function bfloatTable(): Float32Array {
  if (bfloatValues === null) {
    const bits = Uint32Array.from({ length: 65536 }, (_, code) => code << 16);
    bfloatValues = new Float32Array(bits.buffer);
  }
  return bfloatValues;
}
