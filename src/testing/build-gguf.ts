/**
 * Builds GGUF files byte by byte for tests: well-formed ones in any version (1 to 3) and byte order, and hostile
 * ones (lying counts, bad offsets, unknown types) that no real writer produces. The real writer's output lives in
 * fixtures/gguf/ (scripts/gguf-fixtures.py); this builder covers what gguf-py refuses to write.
 */
import { BLOCK_DTYPES } from '../core/dtypes';
import { GgufHeaderParser, type GgufValue } from '../core/formats/gguf/header-parser';

export type GgufTestValue =
  | {
      type: 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'f32' | 'bool' | 'u64' | 'i64' | 'f64';
      value: number | bigint | boolean;
    }
  | { type: 'string'; value: string }
  | { type: 'array'; elementType: number; items: GgufTestValue[]; count?: number }
  /** A value type id the spec does not define, followed by nothing. */
  | { type: 'raw'; id: number; bytes?: number[] };

export interface GgufTestTensor {
  name: string;
  /** GGUF order (fastest-varying first). */
  ne: Array<number | bigint>;
  /** ggml type id. */
  type: number;
  /** Omitted: placed after the previous tensor, padded to the alignment. */
  offset?: number | bigint;
}

export interface GgufTestFile {
  version?: number;
  littleEndian?: boolean;
  kvs?: Array<[string, GgufTestValue]>;
  tensors?: GgufTestTensor[];
  alignment?: number;
  /** Counts written into the preamble instead of the real ones (lying headers). */
  claimedTensorCount?: number | bigint;
  claimedKvCount?: number | bigint;
  /** Data bytes appended after the aligned end of the tensor infos; default: exactly what the tensors need. */
  dataBytes?: number;
}

const TYPE_IDS: Record<string, number> = {
  u8: 0,
  i8: 1,
  u16: 2,
  i16: 3,
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
  u64: 10,
  i64: 11,
  f64: 12,
};

/** ggml type ids by name, for the few types tests use by name. */
export const GGML = { F32: 0, F16: 1, Q4_0: 2, Q8_0: 8, Q4_K: 12, Q6_K: 14, BF16: 30 } as const;

/** Bytes of one tensor by ggml's table (mirrors core/dtypes.ts, checked there against gguf-py). */
export function testTensorBytes(type: number, ne: ReadonlyArray<number | bigint>): number {
  const plain: Record<number, number> = { 0: 4, 1: 2, 24: 1, 25: 2, 26: 4, 27: 8, 28: 8, 30: 2 };
  const blockNames: Record<number, string> = { 2: 'Q4_0', 8: 'Q8_0', 12: 'Q4_K', 14: 'Q6_K' };
  const elements = ne.reduce<number>((product, dim) => product * Number(dim), 1);
  if (plain[type] !== undefined) {
    return elements * plain[type];
  }
  const block = BLOCK_DTYPES.find((entry) => entry.name === blockNames[type]);
  return block ? (elements / block.block) * block.bytes : 0;
}

class Writer {
  private buffer = new Uint8Array(1024);
  private length = 0;
  constructor(
    private readonly little: boolean,
    private readonly version: number,
  ) {}

  bytes(values: ArrayLike<number>): void {
    if (this.length + values.length > this.buffer.length) {
      const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + values.length));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(values, this.length);
    this.length += values.length;
  }

  fixed(size: number, set: (view: DataView) => void): void {
    const view = new DataView(new ArrayBuffer(size));
    set(view);
    this.bytes(new Uint8Array(view.buffer));
  }

  u32(value: number): void {
    this.fixed(4, (view) => view.setUint32(0, value, this.little));
  }

  u64(value: number | bigint): void {
    this.fixed(8, (view) => view.setBigUint64(0, BigInt(value), this.little));
  }

  size(value: number | bigint): void {
    if (this.version === 1) {
      this.u32(Number(value));
    } else {
      this.u64(value);
    }
  }

  string(text: string): void {
    const encoded = new TextEncoder().encode(text);
    this.size(encoded.length);
    this.bytes(encoded);
  }

  value(value: GgufTestValue, withType: boolean): void {
    if (value.type === 'raw') {
      this.u32(value.id);
      this.bytes(value.bytes ?? []);
      return;
    }
    if (withType) {
      this.u32(TYPE_IDS[value.type]);
    }
    const little = this.little;
    switch (value.type) {
      case 'string':
        return this.string(value.value);
      case 'array':
        this.u32(value.elementType);
        this.size(value.count ?? value.items.length);
        for (const item of value.items) {
          this.value(item, false);
        }
        return;
      case 'u8':
      case 'bool':
        return this.bytes([Number(value.value)]);
      case 'i8':
        return this.fixed(1, (view) => view.setInt8(0, Number(value.value)));
      case 'u16':
        return this.fixed(2, (view) => view.setUint16(0, Number(value.value), little));
      case 'i16':
        return this.fixed(2, (view) => view.setInt16(0, Number(value.value), little));
      case 'u32':
        return this.fixed(4, (view) => view.setUint32(0, Number(value.value), little));
      case 'i32':
        return this.fixed(4, (view) => view.setInt32(0, Number(value.value), little));
      case 'f32':
        return this.fixed(4, (view) => view.setFloat32(0, Number(value.value), little));
      case 'u64':
        return this.fixed(8, (view) => view.setBigUint64(0, BigInt(value.value as number | bigint), little));
      case 'i64':
        return this.fixed(8, (view) => view.setBigInt64(0, BigInt(value.value as number | bigint), little));
      case 'f64':
        return this.fixed(8, (view) => view.setFloat64(0, Number(value.value), little));
    }
  }

  result(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }
}

export function str(value: string): GgufTestValue {
  return { type: 'string', value };
}

export function u32(value: number): GgufTestValue {
  return { type: 'u32', value };
}

export function strings(items: string[]): GgufTestValue {
  return { type: 'array', elementType: TYPE_IDS.string, items: items.map(str) };
}

export function buildGguf(file: GgufTestFile): Uint8Array {
  const version = file.version ?? 3;
  const little = file.littleEndian ?? true;
  const alignment = file.alignment ?? 32;
  const tensors = file.tensors ?? [];
  const kvs = [...(file.kvs ?? [])];
  if (file.alignment !== undefined && !kvs.some(([key]) => key === 'general.alignment')) {
    kvs.push(['general.alignment', u32(alignment)]);
  }
  const out = new Writer(little, version);
  out.bytes([0x47, 0x47, 0x55, 0x46]);
  out.u32(version);
  out.size(file.claimedTensorCount ?? tensors.length);
  out.size(file.claimedKvCount ?? kvs.length);
  for (const [key, value] of kvs) {
    out.string(key);
    out.value(value, true);
  }
  let next = 0;
  let dataEnd = 0;
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.ne.length);
    for (const dim of tensor.ne) {
      out.size(dim);
    }
    out.u32(tensor.type);
    const offset = tensor.offset ?? next;
    out.u64(offset);
    const bytes = testTensorBytes(tensor.type, tensor.ne);
    dataEnd = Math.max(dataEnd, Number(offset) + bytes);
    next = Math.ceil((Number(offset) + bytes) / alignment) * alignment;
  }
  const header = out.result();
  const dataStart = tensors.length > 0 ? Math.ceil(header.length / alignment) * alignment : header.length;
  const dataBytes = file.dataBytes ?? dataEnd;
  const bytes = new Uint8Array(dataStart + dataBytes);
  bytes.set(header);
  return bytes;
}

const TYPE_NAMES = Object.fromEntries(Object.entries(TYPE_IDS).map(([name, id]) => [id, name])) as Record<
  number,
  Exclude<GgufTestValue['type'], 'raw'>
>;

/** A parsed value back as the builder writes it; arrays only when the parser kept every item. */
function testValueOf(type: number, value: GgufValue, key: string): GgufTestValue {
  const name = TYPE_NAMES[type];
  if (name === undefined) {
    throw new Error(`${key}: value type ${type} cannot be copied`);
  }
  if (typeof value === 'object') {
    if (name !== 'array' || value.sample.length !== value.count) {
      throw new Error(`${key}: only arrays whose every item was parsed can be copied`);
    }
    return {
      type: 'array',
      elementType: value.elementType,
      items: value.sample.map((item) => testValueOf(value.elementType, item, key)),
    };
  }
  if (name === 'string') {
    return { type: 'string', value: String(value) };
  }
  if (name === 'array') {
    throw new Error(`${key}: an array without its items`);
  }
  // Integers beyond 2^53 come back as their decimal text.
  return { type: name, value: typeof value === 'string' ? BigInt(value) : value };
}

/**
 * A well-formed GGUF rewritten without some metadata keys: the other keys, the tensor infos (same offsets) and the
 * data region are the same, so only what the dropped keys said is missing (e.g. a real conversion without its
 * attention head counts).
 */
export function ggufWithoutKeys(file: Uint8Array, drop: readonly string[]): Uint8Array {
  const step = new GgufHeaderParser().resume(file, true, file.length);
  if (step.status !== 'done') {
    throw new Error(`ggufWithoutKeys: the GGUF did not parse (${step.status})`);
  }
  const raw = step.header;
  const declared = raw.kvs.find((kv) => kv.key === 'general.alignment')?.value;
  const alignment = typeof declared === 'number' ? declared : 32;
  const dataStart = raw.tensors.length > 0 ? Math.ceil(raw.infosEnd / alignment) * alignment : raw.infosEnd;
  const rebuilt = buildGguf({
    version: raw.version,
    littleEndian: raw.littleEndian,
    kvs: raw.kvs.filter((kv) => !drop.includes(kv.key)).map((kv) => [kv.key, testValueOf(kv.type, kv.value, kv.key)]),
    tensors: raw.tensors.map(({ name, ne, type, offset }) => ({ name, ne, type, offset })),
    ...(declared !== undefined && !drop.includes('general.alignment') ? { alignment } : {}),
    dataBytes: file.length - dataStart,
  });
  rebuilt.set(file.subarray(dataStart), rebuilt.length - (file.length - dataStart));
  return rebuilt;
}
