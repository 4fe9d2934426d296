/**
 * Decoders for the few tensor values analyses read (LoRA alpha scalars, compressed-tensors `weight_shape`,
 * HQQ `nbits`/`shape`) and for JSON carried in tensors or metadata. Every decoder returns null instead of
 * throwing: the bytes come from arbitrary files.
 */

import { bfloatToFloat, halfToFloat } from '../bytes/half-float';

/** Reads little-endian numbers of a dtype from raw tensor bytes; null for dtypes it does not know. */
export function decodeNumbers(dtype: string, bytes: Uint8Array, limit = 16): number[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = NUMBER_WIDTH[dtype];
  if (width === undefined) {
    return null;
  }
  const count = Math.min(limit, Math.floor(bytes.byteLength / width));
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * width;
    switch (dtype) {
      case 'F16':
        out.push(halfToFloat(view.getUint16(at, true)));
        break;
      case 'BF16':
        out.push(bfloatToFloat(view.getUint16(at, true)));
        break;
      case 'F32':
        out.push(view.getFloat32(at, true));
        break;
      case 'F64':
        out.push(view.getFloat64(at, true));
        break;
      case 'I8':
        out.push(view.getInt8(at));
        break;
      case 'U8':
      case 'BOOL':
        out.push(view.getUint8(at));
        break;
      case 'I16':
        out.push(view.getInt16(at, true));
        break;
      case 'U16':
        out.push(view.getUint16(at, true));
        break;
      case 'I32':
        out.push(view.getInt32(at, true));
        break;
      case 'U32':
        out.push(view.getUint32(at, true));
        break;
      case 'I64':
        out.push(Number(view.getBigInt64(at, true)));
        break;
      case 'U64':
        out.push(Number(view.getBigUint64(at, true)));
        break;
    }
  }
  return out;
}

const NUMBER_WIDTH: Readonly<Record<string, number>> = {
  F16: 2,
  BF16: 2,
  F32: 4,
  F64: 8,
  I8: 1,
  U8: 1,
  BOOL: 1,
  I16: 2,
  U16: 2,
  I32: 4,
  U32: 4,
  I64: 8,
  U64: 8,
};

/** The first value of a scalar tensor, or null when the bytes are missing, short or not a number. */
export function decodeScalar(dtype: string, bytes: Uint8Array | undefined): number | null {
  if (!bytes) {
    return null;
  }
  const values = decodeNumbers(dtype, bytes, 1);
  return values && values.length === 1 && Number.isFinite(values[0]) ? values[0] : null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses UTF-8 JSON bytes (a comfy_quant or bitsandbytes quant_state tensor); null when not valid JSON. */
export function parseJsonBytes(bytes: Uint8Array | undefined): unknown {
  if (!bytes) {
    return null;
  }
  try {
    // Writers pad nothing, but a trailing NUL from C-side tools would break JSON.parse for no good reason.
    return JSON.parse(utf8.decode(bytes).replace(/\0+$/, ''));
  } catch {
    return null;
  }
}

export function parseJsonText(text: string | undefined): unknown {
  if (text === undefined) {
    return null;
  }
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return value;
  }
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return null;
}

export function asString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** JSON with sorted keys, so equal configs written with different key orders count as one. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJson).join(',')}]`;
  }
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function product(values: readonly number[]): number {
  return values.reduce((total, value) => total * value, 1);
}
