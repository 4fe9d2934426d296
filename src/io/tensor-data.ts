/**
 * The one reader of tensor data (every byte after a header): it locates a tensor's bytes, reads them from a local
 * File in large slices or from a URL by Range requests, and names every read's purpose so the network figures
 * count it (`values` for "Read values", `analysis` for the analyses' small reads, analysis-data.ts). Reads are cut on
 * decodable-unit boundaries and handed over chunk by chunk as they arrive; the AbortSignal cancels what is in flight.
 * A big-endian file's bytes are swapped as read (core/values/byte-order.ts): every consumer decodes little-endian.
 *
 * Where a tensor's bytes are: safetensors, the data region (8 + N) plus `begin`; GGUF, the data start plus the
 * tensor's offset (both through the load's `locate`, which gives the reader and data start of the row's file).
 * A torch.save zip keeps each storage in a stored member `<prefix>/data/<key>`: the tensor starts at the member's
 * data (its local file header's offset + 30 + name length + extra length, APPNOTE.TXT 4.3.7) plus storage_offset ×
 * item size. A legacy (torch < 1.6) stream keeps its storages after its pickles, each after an 8-byte element count
 * that is checked before the first read. A view with other strides (a transpose, a column slice, an expand) reads
 * the extent of storage it spans and gathers its elements by stride, so every figure is over the logical tensor.
 * Bare pickles hold no storages and say so.
 */
import { dtypeName, elementBits } from '../core/dtypes';
import { littleEndianSwap, swapInPlace, type ByteSwap } from '../core/values/byte-order';
import {
  LOCAL_HEADER_SIZE,
  readLocalHeader,
  ZipError,
  type StorageMember,
} from '../core/formats/pytorch/zip-directory';
import type { ByteReader, ReadPurpose } from '../core/bytes/byte-reader';
import { tensorShape, type ParsedHeader, type TensorColumns } from '../core/model';
import type { DecodeUnit } from '../core/values/decode';
import {
  LOCAL_VALUES_CHUNK_BYTES,
  LOCAL_VALUES_READS_AHEAD,
  MAX_STRIDED_EXTENT_BYTES,
  REMOTE_VALUES_CHUNK_BYTES,
  REMOTE_VALUES_CONCURRENCY,
} from '../core/values/values-limits';
import type { PlannedRange } from '../core/values/read-plan';
import { ValuesUnavailable } from '../core/values/tensor-values';
import { locateDcpTensor, type DcpStorage } from './dcp-data';
import { PICKLED_ARRAY_STORAGE_PREFIX } from '../core/formats/pytorch/numpy-arrays';

/** Where a row's data lives: the reader of its file and the absolute offset of that file's data region. */
export interface DataLocation {
  reader: ByteReader;
  dataStart: number;
  /** The file's tensor data is big-endian (ParsedHeader.byteOrder): its bytes are swapped as read. */
  byteOrder?: 'big-endian';
}

/** Where the tensor data of a file read by `reader` lies, from its parsed header. */
export function dataLocation(reader: ByteReader, header: ParsedHeader): DataLocation {
  return { reader, dataStart: header.dataStart, ...(header.byteOrder && { byteOrder: header.byteOrder }) };
}

/**
 * The swap that makes a big-endian row's bytes little-endian (none for a little-endian file or a byte-wise dtype),
 * or a ValuesUnavailable when no producer documents the row's dtype big-endian.
 */
export function rowByteSwap(columns: TensorColumns, row: number, location: DataLocation): { swap?: ByteSwap } {
  if (location.byteOrder !== 'big-endian') {
    return {};
  }
  const swap = littleEndianSwap(dtypeName(columns.dtype[row]) ?? 'an unknown dtype');
  if (typeof swap === 'string') {
    throw new ValuesUnavailable(swap);
  }
  return swap ? { swap } : {};
}

/** A tensor's bytes in its file. */
export interface TensorSpan {
  reader: ByteReader;
  /** Absolute offset of the tensor's first byte (of the storage extent a strided view spans). */
  start: number;
  /** Bytes of the tensor's elements in row-major order. */
  length: number;
  /** A view that is not row-major: read `extentBytes` from `start`, then gather its elements by stride. */
  strided?: { shape: number[]; stride: number[]; itemBytes: number; extentBytes: number };
  /** A tensor in row blocks of other files (a Distributed Checkpoint's chunks): its bytes are theirs, in order. */
  parts?: TensorSpan[];
  /** A tensor in blocks along other dimensions (dcp-data.ts): read whole, each block copied into place. */
  assembled?: (options: { signal: AbortSignal; purpose: ReadPurpose }) => Promise<Uint8Array>;
  /** The gathered elements, once read. */
  gathered?: Promise<Uint8Array>;
  /** A big-endian tensor: the fields each read's bytes have reversed, so readers see little-endian bytes. */
  swap?: ByteSwap;
}

/** The bytes of `row`, or a ValuesUnavailable that says why they cannot be read. */
export function locateTensor(
  columns: TensorColumns,
  row: number,
  locate: (row: number) => DataLocation | null,
): TensorSpan {
  const begin = columns.begin[row];
  const end = columns.end[row];
  if (!Number.isFinite(begin) || !(end >= begin)) {
    throw new ValuesUnavailable(
      'This tensor has no offsets in a flat data region (a PyTorch checkpoint keeps it in a storage), so its values are not read yet.',
    );
  }
  const location = locate(row);
  if (location === null) {
    throw new ValuesUnavailable('The file that holds this tensor is no longer open: load the model again.');
  }
  const start = location.dataStart + begin;
  const size = location.reader.size;
  if (size !== null && start + (end - begin) > size) {
    throw new ValuesUnavailable(
      `The header places this tensor at bytes ${start}–${start + (end - begin)}, past the end of the ${size}-byte file: the file is truncated.`,
    );
  }
  return { reader: location.reader, start, length: end - begin, ...rowByteSwap(columns, row, location) };
}

/** What a checkpoint load keeps to locate its tensors: per-row storage, offset and strides, and the zip members. */
export interface CheckpointStorage {
  rows: { storage: ReadonlyArray<string | null>; offset: readonly number[]; stride: ReadonlyArray<readonly number[]> };
  /** Absent for a legacy (torch < 1.6) stream or a bare pickle. */
  members?: Readonly<Record<string, StorageMember>>;
  /** A legacy stream's storages: first data byte and byte size, by key. */
  legacy?: Readonly<Record<string, { dataAt: number; bytes: number }>>;
  /** Member data starts already read from their local headers, by storage key. */
  dataStarts?: Map<string, number>;
  /** A Distributed Checkpoint's chunks, in torch.save archives of the files beside its `.metadata` (dcp-data.ts). */
  dcp?: DcpStorage;
}

/** Where the load's rows are: `locate` for the file, `storage` for a checkpoint's storages. */
export interface TensorData {
  locate: (row: number) => DataLocation | null;
  storage?: CheckpointStorage;
}

/** True when `stride` is the row-major layout of `shape` (dims of size 1 may have any stride, as in torch). */
export function isRowMajor(shape: readonly number[], stride: readonly number[]): boolean {
  if (shape.length !== stride.length) {
    return false;
  }
  let expected = 1;
  for (let dim = shape.length - 1; dim >= 0; dim--) {
    if (shape[dim] !== 1 && stride[dim] !== expected) {
      return false;
    }
    expected *= shape[dim];
  }
  return true;
}

/** Bytes a row's values take when read whole, or 0 when they cannot be located without reading. */
export function locatedByteLength(columns: TensorColumns, row: number, storage?: CheckpointStorage): number {
  const begin = columns.begin[row];
  const end = columns.end[row];
  if (Number.isFinite(begin) && end >= begin) {
    return end - begin;
  }
  const chunks = storage?.dcp?.rows[row];
  if (chunks !== undefined) {
    const itemBits = elementBits(columns, row);
    const held = chunks.length > 0 && chunks.every((chunk) => chunk.file !== null);
    return held && itemBits > 0 && itemBits % 8 === 0 ? (columns.elements[row] * itemBits) / 8 : 0;
  }
  const key = storage?.rows.storage[row];
  const located =
    key != null &&
    ((storage?.members && Object.hasOwn(storage.members, key)) ||
      (storage?.legacy && Object.hasOwn(storage.legacy, key)));
  if (!located) {
    return 0;
  }
  const extent = storageExtent(columns, row, storage?.rows.stride[row] ?? [], storage?.rows.offset[row] ?? 0);
  return typeof extent === 'string' ? 0 : extent.length;
}

interface StorageExtent {
  /** Bytes from the storage's start to the tensor's first element. */
  offset: number;
  /** Bytes of the tensor's values once read (row-major). */
  length: number;
  /** How a view that is not row-major is gathered; null when its bytes are one run. */
  layout: TensorSpan['strided'] | null;
}

/**
 * Where a checkpoint row's values sit in its storage, or why they are not read. A sub-byte dtype (torch's
 * float4_e2m1fn_x2, listed as F4 with two values a byte) is read only as one row-major run from a whole byte.
 */
function storageExtent(
  columns: TensorColumns,
  row: number,
  stride: readonly number[],
  offsetElements: number,
): StorageExtent | string {
  const itemBits = elementBits(columns, row);
  if (!(itemBits > 0)) {
    return 'Not located: this dtype has no known item size.';
  }
  const shape = tensorShape(columns, row);
  if (itemBits % 8 !== 0) {
    if (!isRowMajor(shape, stride) || (offsetElements * itemBits) % 8 !== 0) {
      return `Not read: a view of a ${itemBits}-bit dtype that does not start on a whole byte or is not row-major.`;
    }
    return {
      offset: (offsetElements * itemBits) / 8,
      length: Math.ceil((columns.elements[row] * itemBits) / 8),
      layout: null,
    };
  }
  const itemBytes = itemBits / 8;
  const layout = stridedLayout(shape, stride, itemBytes);
  if (typeof layout === 'string') {
    return layout;
  }
  return { offset: offsetElements * itemBytes, length: columns.elements[row] * itemBytes, layout };
}

/**
 * How a view that is not row-major is read: the storage extent it spans (1 + Σ (size − 1) × stride elements), or
 * why it is not read. Null for a row-major view.
 */
export function stridedLayout(
  shape: readonly number[],
  stride: readonly number[],
  itemBytes: number,
): TensorSpan['strided'] | null | string {
  if (isRowMajor(shape, stride)) {
    return null;
  }
  if (stride.length !== shape.length || !stride.every((s) => Number.isInteger(s) && s >= 0)) {
    return `View with strides (${stride.join(', ')}) of shape (${shape.join(', ')}): these strides are not a layout this page reads (negative, fractional or of another rank).`;
  }
  const elements = shape.reduce((a, b) => a * b, 1);
  const extent = elements === 0 ? 0 : 1 + shape.reduce((sum, size, dim) => sum + (size - 1) * stride[dim], 0);
  if (extent * itemBytes > MAX_STRIDED_EXTENT_BYTES) {
    return `View with strides (${stride.join(', ')}) of shape (${shape.join(', ')}) spans ${extent * itemBytes} bytes of its storage, over the ${MAX_STRIDED_EXTENT_BYTES} this page gathers at once: not read.`;
  }
  return { shape: [...shape], stride: [...stride], itemBytes, extentBytes: extent * itemBytes };
}

/** The elements of a strided view in row-major order, from the storage extent that starts at its first element. */
export function gatherStrided(extent: Uint8Array, layout: NonNullable<TensorSpan['strided']>): Uint8Array {
  const { shape, stride, itemBytes } = layout;
  const dims = shape.length;
  const count = shape.reduce((a, b) => a * b, 1);
  const out = new Uint8Array(count * itemBytes);
  if (count === 0) {
    return out;
  }
  const index = new Array<number>(dims).fill(0);
  let source = 0;
  for (let element = 0; element < count; element++) {
    const from = source * itemBytes;
    const to = element * itemBytes;
    for (let b = 0; b < itemBytes; b++) {
      out[to + b] = extent[from + b];
    }
    // Next index, last dimension fastest (an odometer): advance by its stride, carry into the dimension before.
    for (let dim = dims - 1; dim >= 0; dim--) {
      index[dim]++;
      source += stride[dim];
      if (index[dim] < shape[dim]) {
        break;
      }
      source -= stride[dim] * shape[dim];
      index[dim] = 0;
    }
  }
  return out;
}

/**
 * `length` bytes of the tensor's row-major bytes from `at`, little-endian: read directly, or from the gathered strided
 * view. A big-endian tensor's read is widened to whole swap periods (a cut chunk of a Q6_K block still gets its
 * scale), swapped in a copy, then cut back.
 */
export async function readSpanBytes(
  span: TensorSpan,
  at: number,
  length: number,
  options: { signal: AbortSignal; purpose: ReadPurpose },
): Promise<Uint8Array> {
  const swap = span.swap;
  if (!swap) {
    return readStoredBytes(span, at, length, options);
  }
  const from = at - (at % swap.period);
  const to = Math.min(span.length, Math.ceil((at + length) / swap.period) * swap.period);
  const stored = await readStoredBytes(span, from, to - from, options);
  return littleEndianCopy(stored, swap).subarray(at - from, at - from + length);
}

/** A copy of whole periods of big-endian bytes, swapped (the bytes read may be a view others share). */
function littleEndianCopy(stored: Uint8Array, swap: ByteSwap): Uint8Array {
  const bytes = stored.slice();
  swapInPlace(bytes, swap);
  return bytes;
}

/** The tensor's bytes as the file stores them. */
function readStoredBytes(
  span: TensorSpan,
  at: number,
  length: number,
  options: { signal: AbortSignal; purpose: ReadPurpose },
): Promise<Uint8Array> {
  if (span.parts) {
    return readAcrossParts(span.parts, at, length, options);
  }
  const assembled = span.assembled;
  if (assembled) {
    if (span.gathered === undefined) {
      const gathering = assembled(options);
      // A cancelled or failed read is not kept: the next read assembles again.
      gathering.catch(() => span.gathered === gathering && delete span.gathered);
      span.gathered = gathering;
    }
    return span.gathered.then((all) => all.slice(at, at + length));
  }
  const layout = span.strided;
  if (!layout) {
    return span.reader.read(span.start + at, length, options);
  }
  span.gathered ??= (async () => {
    const extent = new Uint8Array(layout.extentBytes);
    for (let from = 0; from < layout.extentBytes; from += LOCAL_VALUES_CHUNK_BYTES) {
      const size = Math.min(LOCAL_VALUES_CHUNK_BYTES, layout.extentBytes - from);
      extent.set(await span.reader.read(span.start + from, size, options), from);
    }
    return gatherStrided(extent, layout);
  })();
  return span.gathered.then((all) => all.slice(at, at + length));
}

/** `length` bytes from `at` of parts read one after another: each part's share read, then joined. */
async function readAcrossParts(
  parts: readonly TensorSpan[],
  at: number,
  length: number,
  options: { signal: AbortSignal; purpose: ReadPurpose },
): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  const reads: Array<Promise<void>> = [];
  let partStart = 0;
  for (const part of parts) {
    const from = Math.max(at, partStart);
    const to = Math.min(at + length, partStart + part.length);
    if (from < to) {
      reads.push(readSpanBytes(part, from - partStart, to - from, options).then((bytes) => out.set(bytes, from - at)));
    }
    partStart += part.length;
  }
  await Promise.all(reads);
  return out;
}

/**
 * The bytes of `row` in any format: safetensors and GGUF through `locateTensor`, a torch.save zip's tensor by reading
 * its storage member's local header once (a 30-byte read, then the name and extra lengths give the data start).
 */
export async function locateTensorData(
  columns: TensorColumns,
  row: number,
  data: TensorData,
  signal: AbortSignal,
  /** What the reads that locate a checkpoint's storage are for, and a tally of their bytes. */
  reads: StorageReads = { purpose: 'values' },
): Promise<TensorSpan> {
  const storage = data.storage;
  if (!storage || Number.isFinite(columns.begin[row])) {
    return locateTensor(columns, row, data.locate);
  }
  if (storage.dcp) {
    return locateDcpTensor(columns, row, storage.dcp, signal, { locate: locateTensorData, read: readSpanBytes });
  }
  const key = storage.rows.storage[row];
  if (key == null) {
    throw new ValuesUnavailable('This tensor has no storage (a meta tensor): it holds no values.');
  }
  if (key.startsWith(PICKLED_ARRAY_STORAGE_PREFIX)) {
    throw new ValuesUnavailable(
      'A NumPy array kept inside the pickle itself, not in a storage: its values are not read here (numpy.load or pickle.load, in a sandbox, reads them).',
    );
  }
  const location = data.locate(row);
  if (location === null) {
    throw new ValuesUnavailable('The file that holds this tensor is no longer open: load the model again.');
  }
  const extent = storageExtent(columns, row, storage.rows.stride[row] ?? [], storage.rows.offset[row] ?? 0);
  if (typeof extent === 'string') {
    throw new ValuesUnavailable(extent);
  }
  const { offset, length, layout } = extent;
  const storageAt = await storageData(storage, key, location.reader, elementBits(columns, row) / 8, signal, reads);
  const spanned = layout ? layout.extentBytes : length;
  if (offset + spanned > storageAt.bytes) {
    throw new ValuesUnavailable(
      `The pickle places this tensor at bytes ${offset}–${offset + spanned} of storage ${key}, which holds ${storageAt.bytes} bytes: the checkpoint is inconsistent.`,
    );
  }
  const start = storageAt.dataStart + offset;
  const size = location.reader.size;
  if (size !== null && start + spanned > size) {
    throw new ValuesUnavailable(
      `Storage ${key} places this tensor at bytes ${start}–${start + spanned}, past the end of the ${size}-byte file: the file is truncated.`,
    );
  }
  return {
    reader: location.reader,
    start,
    length,
    ...(layout ? { strided: layout } : {}),
    ...rowByteSwap(columns, row, location),
  };
}

/** The purpose of the small reads that find where a storage starts, and a tally of their bytes. */
export interface StorageReads {
  purpose: ReadPurpose;
  tally?: (bytes: number) => void;
}

/** Where storage `key`'s bytes start in the file and how many it holds: a zip member or a legacy stream's storage. */
async function storageData(
  storage: CheckpointStorage,
  key: string,
  reader: ByteReader,
  itemBytes: number,
  signal: AbortSignal,
  reads: StorageReads,
): Promise<{ dataStart: number; bytes: number }> {
  storage.dataStarts ??= new Map();
  const known = storage.dataStarts.get(key);
  if (storage.legacy && Object.hasOwn(storage.legacy, key)) {
    const legacy = storage.legacy[key];
    if (known === undefined) {
      // The element count written before the storage's bytes must match its persistent id's size.
      const count = await reader.read(legacy.dataAt - 8, 8, { signal, purpose: reads.purpose });
      reads.tally?.(count.length);
      const elements =
        count.length === 8 ? Number(new DataView(count.buffer, count.byteOffset).getBigUint64(0, true)) : -1;
      if (elements * itemBytes !== legacy.bytes) {
        throw new ValuesUnavailable(
          `Not located: the legacy stream's count before storage ${key} says ${elements} elements where its pickle says ${legacy.bytes / itemBytes}: the file is not laid out as torch writes it.`,
        );
      }
      storage.dataStarts.set(key, legacy.dataAt);
    }
    return { dataStart: legacy.dataAt, bytes: legacy.bytes };
  }
  if (!storage.members) {
    throw new ValuesUnavailable(
      storage.legacy
        ? `Not located: storage ${key} of this legacy (torch < 1.6) stream follows one whose size is unknown.`
        : 'Not located: a bare pickle holds no storages (they were saved elsewhere).',
    );
  }
  if (!Object.hasOwn(storage.members, key)) {
    throw new ValuesUnavailable(`Not located: the archive has no member data/${key} for this tensor's storage.`);
  }
  const member = storage.members[key];
  if (member.method !== 0) {
    throw new ValuesUnavailable(
      `Not located: compressed member (data/${key} uses zip method ${member.method}; only stored members can be read by range).`,
    );
  }
  let dataStart = known;
  if (dataStart === undefined) {
    const header = await reader.read(member.headerAt, LOCAL_HEADER_SIZE, { signal, purpose: reads.purpose });
    reads.tally?.(header.length);
    try {
      dataStart = member.headerAt + readLocalHeader(header).dataOffset;
    } catch (error) {
      if (error instanceof ZipError) {
        throw new ValuesUnavailable(`Not located: storage member data/${key}: ${error.message}.`);
      }
      throw error;
    }
    storage.dataStarts.set(key, dataStart);
  }
  return { dataStart, bytes: member.bytes };
}

export interface ChunkReadOptions {
  signal: AbortSignal;
  remote: boolean;
  purpose: ReadPurpose;
  unit: DecodeUnit;
  /** Called once per chunk, in any order over the network: whole units starting at element `firstElement`. */
  onChunk: (bytes: Uint8Array, firstElement: number) => void;
  /** Bytes read so far. */
  onProgress?: (bytesRead: number) => void;
}

/**
 * A whole tensor's bytes (a scale, a GPTQ/AWQ companion, a quant state), read in chunks under `values` like any
 * other values read and gathered in order. For tensors small enough to hold whole; a large one goes through
 * `readTensorChunks` with a plan instead.
 */
export async function readWholeTensor(
  columns: TensorColumns,
  row: number,
  data: TensorData & { remote: boolean },
  signal: AbortSignal,
  onProgress?: (bytesRead: number) => void,
): Promise<Uint8Array> {
  const span = await locateTensorData(columns, row, data, signal);
  const out = new Uint8Array(span.length);
  await readTensorChunks(span, [{ start: 0, end: span.length, firstElement: 0 }], {
    signal,
    remote: data.remote,
    purpose: 'values',
    unit: { bytes: 1, elements: 1 },
    onChunk: (bytes, first) => out.set(bytes, first),
    onProgress,
  });
  return out;
}

interface Piece {
  start: number;
  end: number;
  firstElement: number;
}

/** Splits planned ranges into unit-aligned pieces of at most `chunk` bytes. */
function pieces(ranges: readonly PlannedRange[], unit: DecodeUnit, chunk: number): Piece[] {
  const size = Math.max(unit.bytes, Math.floor(chunk / unit.bytes) * unit.bytes);
  const out: Piece[] = [];
  for (const range of ranges) {
    for (let at = range.start; at < range.end; at += size) {
      const end = Math.min(range.end, at + size);
      out.push({
        start: at,
        end,
        firstElement: range.firstElement + ((at - range.start) / unit.bytes) * unit.elements,
      });
    }
  }
  return out;
}

/**
 * Reads `ranges` (offsets from the tensor's first byte) of `span`. A local file is read slice after slice with the
 * next slice already requested while the current one is decoded, so the disk never waits for the statistics; a URL
 * keeps REMOTE_VALUES_CONCURRENCY Range requests in flight.
 */
export async function readTensorChunks(
  span: TensorSpan,
  ranges: readonly PlannedRange[],
  options: ChunkReadOptions,
): Promise<void> {
  const { signal, purpose, onChunk, unit } = options;
  const list = pieces(ranges, unit, options.remote ? REMOTE_VALUES_CHUNK_BYTES : LOCAL_VALUES_CHUNK_BYTES);
  let bytesRead = 0;
  const readPiece = (piece: Piece) => readSpanBytes(span, piece.start, piece.end - piece.start, { signal, purpose });
  const deliver = (piece: Piece, bytes: Uint8Array) => {
    bytesRead += bytes.length;
    onChunk(bytes.subarray(0, bytes.length - (bytes.length % unit.bytes)), piece.firstElement);
    options.onProgress?.(bytesRead);
  };
  if (!options.remote) {
    await readAheadInOrder(
      signal,
      list.length,
      (i) => readPiece(list[i]),
      (i, bytes) => deliver(list[i], bytes),
    );
    return;
  }
  let cursor = 0;
  const worker = async () => {
    while (cursor < list.length) {
      const piece = list[cursor++];
      deliver(piece, await readPiece(piece));
    }
  };
  await Promise.all(Array.from({ length: Math.min(REMOTE_VALUES_CONCURRENCY, list.length) }, worker));
}

/** One tensor of a file-order read: its bytes and the unit its pieces are cut on. */
export interface OrderedSpan {
  span: TensorSpan;
  unit: DecodeUnit;
}

export interface OrderedReadOptions {
  signal: AbortSignal;
  /** A unit-aligned piece of tensor `index` (its order in the list); `last` on its final piece, also when empty. */
  onPiece: (index: number, bytes: Uint8Array, last: boolean) => void;
  /** Tensor bytes delivered so far (gaps read between tensors not counted). */
  onProgress?: (bytesRead: number) => void;
}

interface OrderedPiece extends Piece {
  index: number;
  last: boolean;
}

/** Consecutive pieces of one reader read as one slice, and where each piece lies in it. */
interface Window {
  reader: ByteReader;
  start: number;
  end: number;
  pieces: OrderedPiece[];
  /** A strided view's piece: read through its gathered elements, never with neighbours. */
  strided: TensorSpan | null;
}

/** Padding or a skipped tensor between two read tensors is read through up to this size rather than cut. */
const MAX_READ_THROUGH_BYTES = 64 * 1024;

function orderedWindows(list: readonly OrderedSpan[]): Window[] {
  const windows: Window[] = [];
  let open: Window | null = null;
  list.forEach(({ span, unit }, index) => {
    const usable = span.length - (span.length % unit.bytes);
    const parts = pieces([{ start: 0, end: usable, firstElement: 0 }], unit, LOCAL_VALUES_CHUNK_BYTES);
    if (parts.length === 0) {
      parts.push({ start: 0, end: 0, firstElement: 0 });
    }
    parts.forEach((part, k) => {
      const piece: OrderedPiece = { ...part, index, last: k === parts.length - 1 };
      const start = span.start + part.start;
      const end = span.start + part.end;
      if (span.strided || span.parts || span.assembled) {
        open = null;
        windows.push({ reader: span.reader, start: part.start, end: part.end, pieces: [piece], strided: span });
        return;
      }
      const joins =
        open !== null &&
        open.reader === span.reader &&
        start >= open.end &&
        start - open.end <= MAX_READ_THROUGH_BYTES &&
        end - open.start <= LOCAL_VALUES_CHUNK_BYTES;
      if (!joins) {
        open = { reader: span.reader, start, end, pieces: [], strided: null };
        windows.push(open);
      }
      const window = open as Window;
      window.pieces.push({ ...piece, start: start - window.start, end: end - window.start });
      window.end = end;
    });
  });
  return windows;
}

/**
 * Reads many tensors of local files whole, in the order given (file order, for disk speed): neighbouring tensors
 * share one slice of up to LOCAL_VALUES_CHUNK_BYTES, a larger tensor is cut into unit-aligned slices, and the next
 * slice is requested while the current one is counted, across tensor boundaries too. A model of thousands of small
 * tensors then costs a few hundred reads, not one per tensor.
 */
export async function readSpansInOrder(list: readonly OrderedSpan[], options: OrderedReadOptions): Promise<void> {
  const { signal, onPiece } = options;
  const windows = orderedWindows(list);
  const readWindow = (window: Window): Promise<Uint8Array> => {
    if (window.start === window.end) {
      return Promise.resolve(new Uint8Array(0));
    }
    return window.strided
      ? readSpanBytes(window.strided, window.start, window.end - window.start, { signal, purpose: 'values' })
      : window.reader.read(window.start, window.end - window.start, { signal, purpose: 'values' });
  };
  let delivered = 0;
  await readAheadInOrder(
    signal,
    windows.length,
    (i) => readWindow(windows[i]),
    (i, bytes) => {
      const window = windows[i];
      for (const piece of window.pieces) {
        const offset = window.strided ? 0 : piece.start;
        const length = piece.end - piece.start;
        if (bytes.length < offset + length) {
          throw new ValuesUnavailable(
            `The file ended ${offset + length - bytes.length} bytes before the data its header places at ${window.start + offset}: the file is truncated.`,
          );
        }
        const stored = bytes.subarray(offset, offset + length);
        // A strided window came through readSpanBytes, already little-endian; a piece is whole decode units.
        const swap = window.strided ? undefined : list[piece.index].span.swap;
        onPiece(piece.index, swap ? littleEndianCopy(stored, swap) : stored, piece.last);
        delivered += length;
      }
      options.onProgress?.(delivered);
    },
  );
}

/**
 * Local reads 0 … count − 1, used in order, with up to LOCAL_VALUES_READS_AHEAD of the next ones already requested
 * while one is consumed, so the file is read while the values are counted; stops before consuming any after `signal` aborts.
 */
async function readAheadInOrder(
  signal: AbortSignal,
  count: number,
  read: (index: number) => Promise<Uint8Array>,
  consume: (index: number, bytes: Uint8Array) => void,
): Promise<void> {
  const queued: Promise<Uint8Array>[] = [];
  let requested = 0;
  const request = () => {
    while (requested < count && queued.length < LOCAL_VALUES_READS_AHEAD) {
      const reading = read(requested++);
      // A read no longer awaited (the signal aborted, or a consumer threw) must not surface as an unhandled rejection.
      reading.catch(() => undefined);
      queued.push(reading);
    }
  };
  request();
  for (let i = 0; i < count; i++) {
    const bytes = await (queued.shift() as Promise<Uint8Array>);
    // Reads already made when the signal aborted still resolve: none of them is used after it.
    signal.throwIfAborted();
    request();
    consume(i, bytes);
  }
}
