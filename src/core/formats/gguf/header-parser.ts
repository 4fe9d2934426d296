/**
 * A resumable parser of the GGUF header (ggml docs/gguf.md): magic, version, counts, the key-values and the tensor
 * infos. It is fed the header's growing prefix and keeps its place between calls: a read that runs out of bytes
 * ends the call with the offset it needs, and the next call goes on from the same key-value, tensor info or string
 * array element, so an 8 MB tokenizer is walked once however many reads bring it.
 *
 * Nothing is trusted before it is checked: every count and length is capped (gguf-limits.ts) and compared with the
 * bytes the file can still hold, so a hostile header ends in a finding, never a huge allocation or a long loop.
 * String arrays are walked, not decoded: only their first items are kept (token lists are paged on demand).
 */
import { stringDecoder } from '../../bytes/string-decoder';
import type { Finding } from '../../model';
import { makeFinding } from '../../findings/make-finding';
import { groupDigits } from '../../number-format';
import { GGUF_FIXED_SIZES, GGUF_TYPE_ARRAY, GGUF_TYPE_STRING, valueTypeName } from './ggml-types';
import {
  ARRAY_SAMPLE_ITEMS,
  MAX_PER_LAYER_ARRAY_ITEMS,
  MAX_ARRAY_DEPTH,
  MAX_ARRAY_LENGTH,
  MAX_KV_COUNT,
  MAX_STRING_LENGTH,
  MAX_TENSOR_COUNT,
  MAX_TENSOR_DIMS,
} from './gguf-limits';

export type GgufScalar = number | string | boolean;

/**
 * A metadata array: its element type and count, where its elements lie in the file, and its first items (every item
 * of a numeric array up to MAX_PER_LAYER_ARRAY_ITEMS long).
 */
export interface GgufArray {
  elementType: number;
  count: number;
  /** File offset of the first element and of the byte after the last. */
  start: number;
  end: number;
  sample: GgufValue[];
}

export type GgufValue = GgufScalar | GgufArray;

export interface GgufKv {
  key: string;
  type: number;
  /** Integers beyond 2^53 are kept as their decimal text. */
  value: GgufValue;
}

export interface GgufTensorInfo {
  name: string;
  /** Dimensions in GGUF order (`ne`, fastest-varying first); NaN for one beyond 2^53. */
  ne: number[];
  /** The ggml type id. */
  type: number;
  /** Offset from the data start; NaN beyond 2^53. */
  offset: number;
}

export interface GgufRawHeader {
  version: number;
  littleEndian: boolean;
  kvs: GgufKv[];
  tensors: GgufTensorInfo[];
  /** File offset of the byte after the last tensor info. */
  infosEnd: number;
  /** What parsing itself found (duplicate keys, nested arrays); the layout checks come later (validate.ts). */
  findings: Finding[];
}

export type ParseStep =
  | { status: 'done'; header: GgufRawHeader }
  /** More bytes are needed: at least up to `needAtLeast`; the header probably ends near `estimatedEnd`. */
  | { status: 'more'; needAtLeast: number; estimatedEnd: number }
  | { status: 'failed'; findings: Finding[]; header: GgufRawHeader };

/** GGUF magic, the bytes `GGUF` in file order. */
export const GGUF_MAGIC = [0x47, 0x47, 0x55, 0x46];

/** Smallest possible key-value: an empty key's length, a type, a one-byte value. */
const MIN_KV_BYTES = 8 + 4 + 1;
/** Smallest possible tensor info: an empty name's length, n_dims, type, offset. */
const MIN_TENSOR_INFO_BYTES = 8 + 4 + 4 + 8;
/** Guesses for the size of what is not yet seen, before any of it is; later, averages of what was seen. */
const GUESS_STRING_ELEMENT_BYTES = 16;
const GUESS_KV_BYTES = 48;
const GUESS_TENSOR_INFO_BYTES = 72;

/** Thrown (as this one object) when a read passes the end of the bytes held; `needUntil` says how far it wanted. */
const NEED_MORE = { needMore: true };

class Stop {
  constructor(readonly finding: Finding) {}
}

interface PendingStringArray {
  key: string;
  array: GgufArray;
  index: number;
}

export function isGgufMagic(head: Uint8Array): boolean {
  return head.length >= 4 && GGUF_MAGIC.every((byte, index) => head[index] === byte);
}

export class GgufHeaderParser {
  private bytes: Uint8Array = new Uint8Array(0);
  private view: DataView = new DataView(this.bytes.buffer);
  private pos = 0;
  private needUntil = 0;
  private fileSize: number | null = null;
  private phase: 'preamble' | 'kvs' | 'tensors' | 'done' = 'preamble';
  private little = true;
  private version = 0;
  private kvCount = 0;
  private tensorCount = 0;
  private readonly kvs: GgufKv[] = [];
  private readonly keys = new Set<string>();
  private readonly tensors: GgufTensorInfo[] = [];
  private readonly findings: Finding[] = [];
  private pending: PendingStringArray | null = null;
  private stringElements = 0;
  private stringElementBytes = 0;
  private tensorsStart = 0;
  private nestedReported = false;

  /**
   * Goes on parsing with `bytes`, the header's prefix from offset 0 (longer than last time). `atEnd` says the
   * source has no more bytes: running out then is truncation. `fileSize`, when known, bounds every count.
   */
  resume(bytes: Uint8Array, atEnd: boolean, fileSize: number | null): ParseStep {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.fileSize = fileSize ?? (atEnd ? bytes.length : null);
    try {
      if (this.phase === 'preamble') {
        this.readPreamble();
      }
      if (this.phase === 'kvs') {
        this.readKvs();
      }
      if (this.phase === 'tensors') {
        this.readTensorInfos();
      }
      return { status: 'done', header: this.header() };
    } catch (thrown) {
      if (thrown instanceof Stop) {
        return { status: 'failed', findings: [...this.findings, thrown.finding], header: this.header() };
      }
      if (thrown !== NEED_MORE) {
        throw thrown;
      }
      if (atEnd || (this.fileSize !== null && this.needUntil > this.fileSize)) {
        return { status: 'failed', findings: [...this.findings, this.truncation()], header: this.header() };
      }
      return { status: 'more', needAtLeast: this.needUntil, estimatedEnd: this.estimateEnd() };
    }
  }

  private header(): GgufRawHeader {
    return {
      version: this.version,
      littleEndian: this.little,
      kvs: this.kvs,
      tensors: this.tensors,
      infosEnd: this.pos,
      findings: this.findings,
    };
  }

  private truncation(): Finding {
    const where =
      this.phase === 'kvs'
        ? `key-value ${groupDigits(this.kvs.length + 1)} of ${groupDigits(this.kvCount)}`
        : this.phase === 'tensors'
          ? `tensor info ${groupDigits(this.tensors.length + 1)} of ${groupDigits(this.tensorCount)}`
          : 'the first bytes';
    return makeFinding(
      'gguf-truncated',
      `The file ends inside its header (in ${where}, which needs bytes up to offset ${groupDigits(this.needUntil)}; ` +
        `the file has ${groupDigits(this.fileSize ?? this.bytes.length)}). llama.cpp refuses it. The download was ` +
        'probably cut short: download the file again and compare its size with the one the repository lists.',
    );
  }

  /** Where the header probably ends: what is left, extrapolated from the sizes seen so far. */
  private estimateEnd(): number {
    const stringBytes =
      this.stringElements > 0 ? this.stringElementBytes / this.stringElements : GUESS_STRING_ELEMENT_BYTES;
    let rest = 0;
    let kvsDone = this.kvs.length;
    if (this.pending) {
      rest += (this.pending.array.count - this.pending.index) * stringBytes;
      kvsDone += 1;
    }
    if (this.phase === 'kvs' || this.phase === 'preamble') {
      rest += Math.max(0, this.kvCount - kvsDone) * GUESS_KV_BYTES;
      rest += this.tensorCount * GUESS_TENSOR_INFO_BYTES;
    } else if (this.phase === 'tensors') {
      const done = this.tensors.length;
      const average = done > 0 ? (this.pos - this.tensorsStart) / done : GUESS_TENSOR_INFO_BYTES;
      rest += (this.tensorCount - done) * average;
    }
    return Math.max(this.needUntil, Math.ceil(this.pos + rest));
  }

  private need(length: number): void {
    if (this.pos + length > this.bytes.length) {
      this.needUntil = this.pos + length;
      throw NEED_MORE;
    }
  }

  private u32(): number {
    this.need(4);
    const value = this.view.getUint32(this.pos, this.little);
    this.pos += 4;
    return value;
  }

  /** A u64 as a number; NaN beyond 2^53. */
  private u64(): number {
    this.need(8);
    const value = this.view.getBigUint64(this.pos, this.little);
    this.pos += 8;
    return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : Number.NaN;
  }

  /** Counts and lengths: u32 in GGUF v1, u64 from v2. */
  private size(): number {
    return this.version === 1 ? this.u32() : this.u64();
  }

  private stop(code: 'gguf-limit-exceeded' | 'gguf-truncated' | 'gguf-invalid-value-type', message: string): never {
    throw new Stop(makeFinding(code, message));
  }

  private remaining(): number {
    return this.fileSize === null ? Number.POSITIVE_INFINITY : this.fileSize - this.pos;
  }

  private checkCount(count: number, cap: number, minBytes: number, what: string): void {
    // The file's own end first: a claim it cannot hold is a truncated or damaged file, which llama.cpp refuses,
    // whether or not the claim is also past this reader's cap.
    const needed = Number.isFinite(count) ? count * minBytes : Number.POSITIVE_INFINITY;
    if (needed > this.remaining()) {
      if (Number.isFinite(needed)) {
        this.needUntil = this.pos + needed;
      }
      this.stop(
        'gguf-truncated',
        `The header claims ${Number.isFinite(count) ? groupDigits(count) : 'more than 2^53'} ${what}, which need ` +
          `${Number.isFinite(needed) ? `at least ${groupDigits(needed)}` : 'more than 2^53'} bytes, but only ` +
          `${groupDigits(this.remaining())} remain in the file. llama.cpp refuses it: the file is truncated or damaged.`,
      );
    }
    if (!Number.isFinite(count) || count > cap) {
      this.stop(
        'gguf-limit-exceeded',
        `The header claims ${Number.isFinite(count) ? groupDigits(count) : 'more than 2^53'} ${what}, over this ` +
          `reader's cap of ${groupDigits(cap)} (far above any real file). The file is damaged or crafted; it was not read further.`,
      );
    }
  }

  private readPreamble(): void {
    this.need(8);
    const versionLe = this.view.getUint32(4, true);
    // No endianness flag exists: a big-endian file's small version reads as a multiple of 65,536 little-endian.
    this.little = (versionLe & 0xffff) !== 0;
    this.version = this.view.getUint32(4, this.little);
    if (this.version < 1 || this.version > 3) {
      throw new Stop(
        makeFinding(
          'gguf-unsupported-version',
          `GGUF version ${groupDigits(this.version)}: this reader knows versions 1 to 3, and so does llama.cpp ` +
            '(which refuses version 1 too). Update the tool that should read it, or re-convert the model.',
        ),
      );
    }
    this.pos = 8;
    this.tensorCount = this.size();
    this.kvCount = this.size();
    this.checkCount(this.kvCount, MAX_KV_COUNT, MIN_KV_BYTES, 'key-values');
    this.checkCount(this.tensorCount, MAX_TENSOR_COUNT, MIN_TENSOR_INFO_BYTES, 'tensors');
    this.phase = 'kvs';
  }

  private readKvs(): void {
    while (this.kvs.length < this.kvCount) {
      if (this.pending) {
        this.continueStringArray(this.pending);
        this.finishKv(this.pending.key, GGUF_TYPE_ARRAY, this.pending.array);
        this.pending = null;
        continue;
      }
      const start = this.pos;
      try {
        const key = this.string();
        const type = this.u32();
        if (type === GGUF_TYPE_ARRAY) {
          const array = this.arrayHead(1);
          if (array.elementType === GGUF_TYPE_STRING) {
            this.pending = { key, array, index: 0 };
            continue;
          }
          this.arrayBody(array, 1);
          this.finishKv(key, type, array);
        } else {
          this.finishKv(key, type, this.scalar(type));
        }
      } catch (thrown) {
        if (thrown === NEED_MORE && !this.pending) {
          this.pos = start;
        }
        throw thrown;
      }
    }
    this.phase = 'tensors';
    this.tensorsStart = this.pos;
  }

  private finishKv(key: string, type: number, value: GgufValue): void {
    if (key.length === 0) {
      this.findings.push(
        makeFinding(
          'gguf-empty-key',
          `Key-value ${groupDigits(this.kvs.length + 1)} has an empty key; llama.cpp refuses the file.`,
        ),
      );
    }
    if (this.keys.has(key)) {
      this.findings.push(
        makeFinding(
          'gguf-duplicate-key',
          `The key "${key}" appears more than once. llama.cpp refuses the file (so does gguf-py); other readers ` +
            'keep the first or the last value, so the file means different things to different tools. Re-convert it.',
        ),
      );
    }
    this.keys.add(key);
    this.kvs.push({ key, type, value });
  }

  private string(): string {
    const length = this.stringLength();
    this.need(length);
    const text = stringDecoder.decode(this.bytes.subarray(this.pos, this.pos + length));
    this.pos += length;
    return text;
  }

  private stringLength(): number {
    const length = this.size();
    // As in checkCount: past the file's end is the verdict llama.cpp gives, before this reader's cap.
    if (!(length <= this.remaining())) {
      if (!Number.isFinite(length)) {
        this.stop(
          'gguf-truncated',
          `A string at offset ${groupDigits(this.pos - 8)} claims more than 2^53 bytes, but only ` +
            `${groupDigits(this.remaining())} remain in the file. llama.cpp refuses it: the file is truncated or damaged.`,
        );
      }
      this.needUntil = this.pos + length;
      throw NEED_MORE;
    }
    if (!Number.isFinite(length) || length > MAX_STRING_LENGTH) {
      this.stop(
        'gguf-limit-exceeded',
        `A string at offset ${groupDigits(this.pos - 8)} claims ${Number.isFinite(length) ? groupDigits(length) : 'more than 2^53'} ` +
          `bytes, over this reader's cap of ${groupDigits(MAX_STRING_LENGTH)}. The file is damaged or crafted; it was not read further.`,
      );
    }
    return length;
  }

  private scalar(type: number): GgufScalar {
    const size = GGUF_FIXED_SIZES[type] ?? 0;
    if (type === GGUF_TYPE_STRING) {
      return this.string();
    }
    if (size === 0) {
      this.stop(
        'gguf-invalid-value-type',
        `A value at offset ${groupDigits(this.pos - 4)} has type ${type}, which GGUF does not define (0 to 12). ` +
          'llama.cpp refuses the file; nothing after it can be read.',
      );
    }
    this.need(size);
    const at = this.pos;
    this.pos += size;
    const view = this.view;
    const little = this.little;
    switch (type) {
      case 0:
        return view.getUint8(at);
      case 1:
        return view.getInt8(at);
      case 2:
        return view.getUint16(at, little);
      case 3:
        return view.getInt16(at, little);
      case 4:
        return view.getUint32(at, little);
      case 5:
        return view.getInt32(at, little);
      case 6:
        return view.getFloat32(at, little);
      case 7:
        return view.getUint8(at) !== 0;
      case 10:
        return safeInteger(view.getBigUint64(at, little));
      case 11:
        return safeInteger(view.getBigInt64(at, little));
      default:
        return view.getFloat64(at, little);
    }
  }

  private arrayHead(depth: number): GgufArray {
    const elementType = this.u32();
    const count = this.size();
    if (elementType >= GGUF_FIXED_SIZES.length) {
      this.stop(
        'gguf-invalid-value-type',
        `An array at offset ${groupDigits(this.pos)} holds elements of type ${elementType}, which GGUF does not define. ` +
          'llama.cpp refuses the file; nothing after it can be read.',
      );
    }
    if (elementType === GGUF_TYPE_ARRAY) {
      if (depth >= MAX_ARRAY_DEPTH) {
        this.stop(
          'gguf-limit-exceeded',
          `Arrays nest deeper than ${MAX_ARRAY_DEPTH} levels at offset ${groupDigits(this.pos)}; no real writer nests them at all. Not read further.`,
        );
      }
      if (!this.nestedReported) {
        this.nestedReported = true;
        this.findings.push(
          makeFinding(
            'gguf-nested-array',
            'A metadata value is an array of arrays. The GGUF spec allows it, but llama.cpp refuses the file ' +
              '(and gguf-py flattens it), so no llama.cpp-based runtime will load this file.',
          ),
        );
      }
    }
    const elementBytes = GGUF_FIXED_SIZES[elementType] || 8 + (elementType === GGUF_TYPE_ARRAY ? 4 : 0);
    this.checkCount(count, MAX_ARRAY_LENGTH, elementBytes, `${valueTypeName(elementType)} array elements`);
    return { elementType, count, start: this.pos, end: this.pos, sample: [] };
  }

  /** The elements of a non-string array (fixed-size or nested), read in one go. */
  private arrayBody(array: GgufArray, depth: number): void {
    const size = GGUF_FIXED_SIZES[array.elementType];
    if (size > 0) {
      this.need(array.count * size);
      const end = this.pos + array.count * size;
      const kept = array.count <= MAX_PER_LAYER_ARRAY_ITEMS ? array.count : ARRAY_SAMPLE_ITEMS;
      for (let i = 0; i < kept; i++) {
        array.sample.push(this.scalar(array.elementType));
      }
      this.pos = end;
    } else {
      for (let i = 0; i < array.count; i++) {
        let item: GgufValue;
        if (array.elementType === GGUF_TYPE_STRING) {
          item = this.string();
        } else {
          const inner = this.arrayHead(depth + 1);
          if (inner.elementType === GGUF_TYPE_STRING) {
            this.continueStringArray({ key: '', array: inner, index: 0 });
          } else {
            this.arrayBody(inner, depth + 1);
          }
          item = inner;
        }
        if (i < ARRAY_SAMPLE_ITEMS) {
          array.sample.push(item);
        }
      }
    }
    array.end = this.pos;
  }

  /** Walks a string array from `pending.index`, keeping its place when the bytes run out. */
  private continueStringArray(pending: PendingStringArray): void {
    const { array } = pending;
    while (pending.index < array.count) {
      const start = this.pos;
      try {
        if (pending.index < ARRAY_SAMPLE_ITEMS) {
          array.sample.push(this.string());
        } else {
          const length = this.stringLength();
          this.need(length);
          this.pos += length;
        }
      } catch (thrown) {
        this.pos = start;
        throw thrown;
      }
      this.stringElements += 1;
      this.stringElementBytes += this.pos - start;
      pending.index += 1;
    }
    array.end = this.pos;
  }

  private readTensorInfos(): void {
    while (this.tensors.length < this.tensorCount) {
      const start = this.pos;
      try {
        const name = this.string();
        const dims = this.u32();
        if (dims > MAX_TENSOR_DIMS) {
          throw new Stop(
            makeFinding(
              'gguf-too-many-dims',
              `Tensor "${name}" claims ${groupDigits(dims)} dimensions; ggml allows at most ${MAX_TENSOR_DIMS}, so ` +
                'llama.cpp refuses the file. Nothing after it was read.',
            ),
          );
        }
        const ne: number[] = [];
        for (let i = 0; i < dims; i++) {
          ne.push(this.version === 1 ? this.u32() : this.u64());
        }
        const type = this.u32();
        const offset = this.u64();
        this.tensors.push({ name, ne, type, offset });
      } catch (thrown) {
        if (thrown === NEED_MORE) {
          this.pos = start;
        }
        throw thrown;
      }
    }
    this.phase = 'done';
  }
}

function safeInteger(value: bigint): number | string {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(value)
    : value.toString();
}
