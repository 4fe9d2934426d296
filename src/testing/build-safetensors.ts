/**
 * Byte builders for safetensors files: valid ones laid out like the reference writer, and crafted broken ones.
 * Used by unit tests, the fixtures script and benchmarks, so every generated file comes from this one place.
 */
import { DTYPE_BITS, type Dtype } from '../core/dtypes';

export interface TensorSpec {
  name: string;
  dtype: Dtype | string;
  shape: number[];
  /** Override the computed offsets (for crafting damaged files). */
  offsets?: [number, number];
}

export interface BuildOptions {
  metadata?: Record<string, string> | null;
  /** Pad the header with spaces to a multiple of this (the reference writer uses 8). 1 disables padding. */
  headerAlignment?: number;
  /** Replace the generated header JSON text entirely (tensor offsets are then whatever the text says). */
  headerText?: string;
  /** Override the 8-byte length prefix. */
  declaredHeaderLength?: number | bigint;
  /** Bytes to append after the computed data region (negative truncates). */
  dataBytesDelta?: number;
  /** Fill byte for tensor data; defaults to 0. */
  fill?: number;
  /** Data to place at given tensor begins (e.g. comfy_quant JSON configs). */
  tensorData?: Record<string, Uint8Array>;
}

export function tensorByteLength(dtype: Dtype | string, shape: readonly number[]): number {
  const bits = DTYPE_BITS[dtype as Dtype] ?? 8;
  const elements = shape.reduce((product, dim) => product * dim, 1);
  return Math.ceil((elements * bits) / 8);
}

/** Lays tensors out back to back in the given order and returns the header object and data length. */
export function layoutTensors(tensors: readonly TensorSpec[]): {
  entries: Array<{ name: string; dtype: string; shape: number[]; data_offsets: [number, number] }>;
  dataLength: number;
} {
  let cursor = 0;
  const entries = tensors.map((tensor) => {
    const length = tensorByteLength(tensor.dtype, tensor.shape);
    const offsets: [number, number] = tensor.offsets ?? [cursor, cursor + length];
    cursor = Math.max(cursor, tensor.offsets ? tensor.offsets[1] : cursor + length);
    return { name: tensor.name, dtype: tensor.dtype, shape: tensor.shape, data_offsets: offsets };
  });
  return { entries, dataLength: cursor };
}

export function headerJson(tensors: readonly TensorSpec[], metadata?: Record<string, string> | null): string {
  const { entries } = layoutTensors(tensors);
  const parts: string[] = [];
  if (metadata !== undefined) {
    parts.push(`"__metadata__":${JSON.stringify(metadata)}`);
  }
  for (const entry of entries) {
    parts.push(
      `${JSON.stringify(entry.name)}:{"dtype":${JSON.stringify(entry.dtype)},"shape":${JSON.stringify(entry.shape)},"data_offsets":[${entry.data_offsets[0]},${entry.data_offsets[1]}]}`,
    );
  }
  return `{${parts.join(',')}}`;
}

export function padHeader(text: string, alignment: number): Uint8Array {
  const encoded = new TextEncoder().encode(text);
  const padded = Math.ceil(encoded.length / alignment) * alignment;
  const bytes = new Uint8Array(padded).fill(0x20);
  bytes.set(encoded);
  return bytes;
}

export function lengthPrefix(length: number | bigint): Uint8Array {
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setBigUint64(0, BigInt(length), true);
  return prefix;
}

/** Header bytes (prefix + JSON) and the data length the file should have after them. */
export function buildHeaderBytes(
  tensors: readonly TensorSpec[],
  options: BuildOptions = {},
): { head: Uint8Array; dataLength: number } {
  const text = options.headerText ?? headerJson(tensors, options.metadata);
  const headerBytes = padHeader(text, options.headerAlignment ?? 8);
  const prefix = lengthPrefix(options.declaredHeaderLength ?? headerBytes.length);
  const head = new Uint8Array(8 + headerBytes.length);
  head.set(prefix);
  head.set(headerBytes, 8);
  const dataLength = Math.max(0, layoutTensors(tensors).dataLength + (options.dataBytesDelta ?? 0));
  return { head, dataLength };
}

/** A whole file in memory; keep data small (use buildHeaderBytes + a sparse file for big models). */
export function buildSafetensors(tensors: readonly TensorSpec[], options: BuildOptions = {}): Uint8Array {
  const { head, dataLength } = buildHeaderBytes(tensors, options);
  const file = new Uint8Array(head.length + dataLength);
  file.set(head);
  if (options.fill) {
    file.fill(options.fill, head.length);
  }
  if (options.tensorData) {
    const { entries } = layoutTensors(tensors);
    for (const entry of entries) {
      const data = options.tensorData[entry.name];
      if (data) {
        file.set(data.subarray(0, entry.data_offsets[1] - entry.data_offsets[0]), head.length + entry.data_offsets[0]);
      }
    }
  }
  return file;
}

/** A raw file from a declared length and arbitrary header bytes, for malformed-header cases. */
export function buildRaw(
  headerBytes: Uint8Array | string,
  options: { declaredLength?: number | bigint; trailing?: number } = {},
): Uint8Array {
  const body = typeof headerBytes === 'string' ? new TextEncoder().encode(headerBytes) : headerBytes;
  const file = new Uint8Array(8 + body.length + (options.trailing ?? 0));
  file.set(lengthPrefix(options.declaredLength ?? body.length));
  file.set(body, 8);
  return file;
}
