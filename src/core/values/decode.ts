/**
 * Stored values of a tensor, from its bytes: pure functions over little-endian, row-major data, keyed by dtype name
 * (safetensors names such as `BF16`, and ggml block types such as `Q4_K`). A decoder takes whole units (one element,
 * or one packed group or quant block) and writes Float32 or Float64 values; `decodeUnit` says how many bytes and
 * elements a unit holds, so a streaming reader cuts its chunks on unit boundaries.
 *
 * Layouts: IEEE 754 for F16/F32/F64; BF16 is the top half of a float32; F8_E4M3 and F8_E5M2 as in arXiv 2209.05433
 * (E4M3 has no infinities and one NaN per sign); F8_E8M0, F6_E2M3, F6_E3M2 and F4 (E2M1) as in the OCP
 * Microscaling (MX) v1.0 spec. F4 packs element 2i in the low nibble (torch `float4_e2m1fn_x2`). No producer fixes
 * a bit order for the 6-bit floats; they are read as one little-endian bit stream, element i in bits [6i, 6i + 6),
 * and labelled as such. 64-bit integers beyond 2^53 lose their low bits as Float64.
 */
import { bfloatTable, halfTable } from '../bytes/half-float';
import { decodeGgufBlocks, GGUF_BLOCKS } from './gguf-blocks';

export interface DecodeUnit {
  bytes: number;
  elements: number;
}

/** Float32 where every value fits one exactly (all dtypes up to 32-bit floats and 16-bit integers), Float64 otherwise. */
export type Decoded = Float32Array | Float64Array;

const PLAIN_UNITS: Readonly<Record<string, DecodeUnit>> = {
  BOOL: { bytes: 1, elements: 1 },
  U8: { bytes: 1, elements: 1 },
  I8: { bytes: 1, elements: 1 },
  F8_E4M3: { bytes: 1, elements: 1 },
  F8_E5M2: { bytes: 1, elements: 1 },
  F8_E8M0: { bytes: 1, elements: 1 },
  F8_E4M3FNUZ: { bytes: 1, elements: 1 },
  F8_E5M2FNUZ: { bytes: 1, elements: 1 },
  F4: { bytes: 1, elements: 2 },
  F6_E2M3: { bytes: 3, elements: 4 },
  F6_E3M2: { bytes: 3, elements: 4 },
  I16: { bytes: 2, elements: 1 },
  U16: { bytes: 2, elements: 1 },
  F16: { bytes: 2, elements: 1 },
  BF16: { bytes: 2, elements: 1 },
  I32: { bytes: 4, elements: 1 },
  U32: { bytes: 4, elements: 1 },
  F32: { bytes: 4, elements: 1 },
  F64: { bytes: 8, elements: 1 },
  I64: { bytes: 8, elements: 1 },
  U64: { bytes: 8, elements: 1 },
};

/** Dtypes whose values need Float64 (a Float32 would round them). */
const WIDE_DTYPES: ReadonlySet<string> = new Set(['F64', 'I32', 'U32', 'I64', 'U64']);

/** Dtypes read as raw codes only: their bit order is assumed, and the UI says so. */
export const ASSUMED_BIT_ORDER: ReadonlySet<string> = new Set(['F6_E2M3', 'F6_E3M2']);

/** Each complex dtype's part: a complex element is its real then its imaginary part, each of this dtype. */
const COMPLEX_PARTS: Readonly<Record<string, string>> = { C32: 'F16', C64: 'F32', C128: 'F64' };

/**
 * What a complex tensor's values are read as: `torch.view_as_real`'s view, its parts' dtype and its shape with a last
 * dimension of 2 (real, imaginary); null for any other dtype, whose values are read as they are.
 */
export function realView(dtype: string, shape: readonly number[]): { dtype: string; shape: number[] } | null {
  const part = COMPLEX_PARTS[dtype];
  return part === undefined ? null : { dtype: part, shape: [...shape, 2] };
}

export function isComplexDtype(dtype: string): boolean {
  return dtype in COMPLEX_PARTS;
}

/** The dtype a row's values are decoded as: a complex dtype's part, else its own. */
export function valuesDtype(dtype: string): string {
  return COMPLEX_PARTS[dtype] ?? dtype;
}

/** Bytes and elements of one decodable unit of `dtype`, or null when the dtype is not decoded. */
export function decodeUnit(dtype: string): DecodeUnit | null {
  return PLAIN_UNITS[dtype] ?? GGUF_BLOCKS[dtype] ?? null;
}

/** Smallest positive normal value per dtype, for counting subnormals; 0 where the dtype has none. */
export const MIN_NORMAL: Readonly<Record<string, number>> = {
  F64: 2 ** -1022,
  F32: 2 ** -126,
  BF16: 2 ** -126,
  F16: 2 ** -14,
  F8_E4M3: 2 ** -6,
  F8_E5M2: 2 ** -14,
  F8_E4M3FNUZ: 2 ** -7,
  F8_E5M2FNUZ: 2 ** -15,
  F6_E2M3: 1,
  F6_E3M2: 0.25,
  F4: 1,
};

/**
 * Stored mantissa bits of the float dtypes whose rounding is sized from a value: one in [2^e, 2^(e+1)) lies on a
 * grid of spacing 2^(e − bits), e no less than MIN_NORMAL's exponent.
 */
export const MANTISSA_BITS: Readonly<Record<string, number>> = { F32: 23, BF16: 7, F16: 10 };

/** A table of every code of a small float format, from its bit fields. */
function minifloatTable(expBits: number, manBits: number, bias: number, kind: 'ieee' | 'fn' | 'fnuz' | 'none') {
  const codes = 1 << (1 + expBits + manBits);
  const table = new Float32Array(codes);
  const top = (1 << expBits) - 1;
  const manMax = (1 << manBits) - 1;
  for (let code = 0; code < codes; code++) {
    const negative = (code >> (expBits + manBits)) & 1;
    const exp = (code >> manBits) & top;
    const man = code & manMax;
    let value: number;
    if (kind === 'fnuz' && code === 1 << (expBits + manBits)) {
      value = Number.NaN;
    } else if (kind === 'ieee' && exp === top) {
      value = man === 0 ? Infinity : Number.NaN;
    } else if (kind === 'fn' && exp === top && man === manMax) {
      value = Number.NaN;
    } else if (exp === 0) {
      value = (man / (1 << manBits)) * 2 ** (1 - bias);
    } else {
      value = (1 + man / (1 << manBits)) * 2 ** (exp - bias);
    }
    table[code] = negative && !Number.isNaN(value) ? -value : value;
  }
  return table;
}

const TABLES: Readonly<Record<string, Float32Array>> = {
  F8_E4M3: minifloatTable(4, 3, 7, 'fn'),
  F8_E5M2: minifloatTable(5, 2, 15, 'ieee'),
  F8_E4M3FNUZ: minifloatTable(4, 3, 8, 'fnuz'),
  F8_E5M2FNUZ: minifloatTable(5, 2, 16, 'fnuz'),
  F8_E8M0: Float32Array.from({ length: 256 }, (_, code) => (code === 255 ? Number.NaN : 2 ** (code - 127))),
  F6_E2M3: minifloatTable(2, 3, 1, 'none'),
  F6_E3M2: minifloatTable(3, 2, 3, 'none'),
  F4: minifloatTable(2, 1, 1, 'none'),
};

/** E2M1 codes, shared with the MX and bitsandbytes dequantizers. */
export const E2M1_VALUES: Float32Array = TABLES.F4;
export const E4M3_VALUES: Float32Array = TABLES.F8_E4M3;
export const E8M0_VALUES: Float32Array = TABLES.F8_E8M0;

/**
 * What each code of `dtype` is, for dtypes of one element per 8 or 16 bits that are floats (statistics then count
 * codes instead of decoding: core/values/value-stats.ts `addCodes`); null for the others.
 */
export function codeTable(dtype: string): Float32Array | null {
  if (dtype === 'F16') {
    return halfTable();
  }
  if (dtype === 'BF16') {
    return bfloatTable();
  }
  return dtype.startsWith('F8_') ? (TABLES[dtype] ?? null) : null;
}

/** Facts derived from a code table, built once per table and kept while the table lives. */
function perTable<T>(cache: WeakMap<Float32Array, T>, table: Float32Array, build: () => T): T {
  let found = cache.get(table);
  if (found === undefined) {
    found = build();
    cache.set(table, found);
  }
  return found;
}

const ZERO_CODE_MARKS = new WeakMap<Float32Array, Uint8Array>();
const NON_FINITE_CODES = new WeakMap<Float32Array, Uint32Array>();

/** 1 at each code of a `codeTable` whose value is zero (either sign). */
export function zeroCodeMarks(table: Float32Array): Uint8Array {
  return perTable(ZERO_CODE_MARKS, table, () => Uint8Array.from(table, (value) => (value === 0 ? 1 : 0)));
}

/** The codes of a `codeTable` whose value is NaN or an infinity. */
export function nonFiniteCodes(table: Float32Array): Uint32Array {
  return perTable(NON_FINITE_CODES, table, () => {
    const found: number[] = [];
    table.forEach((value, code) => {
      if (!(value - value === 0)) {
        found.push(code);
      }
    });
    return Uint32Array.from(found);
  });
}

/** The codes of a `codeTable` dtype: a view of `bytes` when aligned, else a copy. */
export function codesOf(dtype: string, bytes: Uint8Array): Uint16Array | Uint8Array {
  if (dtype.startsWith('F8_')) {
    return bytes;
  }
  const count = bytes.length >> 1;
  if (bytes.byteOffset % 2 === 0) {
    return new Uint16Array(bytes.buffer, bytes.byteOffset, count);
  }
  const codes = new Uint16Array(count);
  for (let i = 0, at = 0; i < count; i++, at += 2) {
    codes[i] = bytes[at] | (bytes[at + 1] << 8);
  }
  return codes;
}

/** The values `bytes` hold, or null when `dtype` is not decoded. `bytes` must hold whole units. */
export function decodeValues(dtype: string, bytes: Uint8Array): Decoded | null {
  const unit = decodeUnit(dtype);
  if (unit === null) {
    return null;
  }
  const units = Math.floor(bytes.length / unit.bytes);
  const count = units * unit.elements;
  if (dtype in GGUF_BLOCKS) {
    const out = new Float32Array(count);
    decodeGgufBlocks(dtype, bytes.subarray(0, units * unit.bytes), out);
    return out;
  }
  // Aligned float32 bytes are their own values: a view, no copy and no 8 MiB allocation per chunk.
  if (dtype === 'F32' && bytes.byteOffset % 4 === 0) {
    return new Float32Array(bytes.buffer, bytes.byteOffset, count);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = WIDE_DTYPES.has(dtype) ? new Float64Array(count) : new Float32Array(count);
  switch (dtype) {
    case 'F32':
      for (let i = 0; i < count; i++) {
        out[i] = view.getFloat32(i * 4, true);
      }
      return out;
    case 'F64':
      for (let i = 0; i < count; i++) {
        out[i] = view.getFloat64(i * 8, true);
      }
      return out;
    case 'F16': {
      const table = halfTable();
      const codes = codesOf(dtype, bytes);
      for (let i = 0; i < count; i++) {
        out[i] = table[codes[i]];
      }
      return out;
    }
    case 'BF16': {
      const bits = new Uint32Array(out.buffer, out.byteOffset, count);
      const codes = codesOf(dtype, bytes);
      for (let i = 0; i < count; i++) {
        bits[i] = codes[i] << 16;
      }
      return out;
    }
    case 'F4': {
      const table = TABLES.F4;
      for (let i = 0; i < units; i++) {
        out[2 * i] = table[bytes[i] & 15];
        out[2 * i + 1] = table[bytes[i] >> 4];
      }
      return out;
    }
    case 'F6_E2M3':
    case 'F6_E3M2': {
      const table = TABLES[dtype];
      for (let i = 0; i < units; i++) {
        const word = bytes[3 * i] | (bytes[3 * i + 1] << 8) | (bytes[3 * i + 2] << 16);
        for (let k = 0; k < 4; k++) {
          out[4 * i + k] = table[(word >> (6 * k)) & 63];
        }
      }
      return out;
    }
    case 'BOOL':
    case 'U8':
      for (let i = 0; i < count; i++) {
        out[i] = bytes[i];
      }
      return out;
    case 'I8':
      for (let i = 0; i < count; i++) {
        out[i] = (bytes[i] << 24) >> 24;
      }
      return out;
    case 'I16':
      for (let i = 0; i < count; i++) {
        out[i] = view.getInt16(i * 2, true);
      }
      return out;
    case 'U16':
      for (let i = 0; i < count; i++) {
        out[i] = view.getUint16(i * 2, true);
      }
      return out;
    case 'I32':
      for (let i = 0; i < count; i++) {
        out[i] = view.getInt32(i * 4, true);
      }
      return out;
    case 'U32':
      for (let i = 0; i < count; i++) {
        out[i] = view.getUint32(i * 4, true);
      }
      return out;
    case 'I64':
      for (let i = 0; i < count; i++) {
        out[i] = Number(view.getBigInt64(i * 8, true));
      }
      return out;
    case 'U64':
      for (let i = 0; i < count; i++) {
        out[i] = Number(view.getBigUint64(i * 8, true));
      }
      return out;
    default: {
      const table = TABLES[dtype];
      for (let i = 0; i < count; i++) {
        out[i] = table[bytes[i]];
      }
      return out;
    }
  }
}
