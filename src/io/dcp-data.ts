/**
 * Where a Distributed Checkpoint tensor's bytes are (core/formats/pytorch/dcp-metadata.ts lists its chunks): each
 * chunk is one torch.save archive at an offset of a `.distcp` file beside the `.metadata`, so a chunk's bytes are
 * found by reading that archive as a checkpoint of its own (its directory and data.pkl, never its storage) and
 * locating its one tensor there. A tensor whose chunks split it along its first dimension only (row blocks: FSDP,
 * a ChunkShardingSpec on dim 0) reads as the chunks one after another; one split along other dimensions too (tensor
 * parallelism) is read whole, each chunk copied into its place, up to MAX_ASSEMBLED_TENSOR_BYTES.
 */
import { sliceReader, type ByteReader, type ReadPurpose } from '../core/bytes/byte-reader';
import { product } from '../core/analysis/values';
import { dtypeName } from '../core/dtypes';
import type { DcpChunk } from '../core/formats/pytorch/dcp-metadata';
import { readCheckpoint } from '../core/formats/pytorch/read-checkpoint';
import { tensorShape, type TensorColumns } from '../core/model';
import { ValuesUnavailable } from '../core/values/tensor-values';
import { MAX_ASSEMBLED_CHUNKS, MAX_ASSEMBLED_TENSOR_BYTES } from '../core/values/values-limits';
import type { TensorData, TensorSpan } from './tensor-data';

/** io/tensor-data.ts's own locator and span reader, handed in so the two modules do not import each other at run time. */
export interface SpanIo {
  locate: (columns: TensorColumns, row: number, data: TensorData, signal: AbortSignal) => Promise<TensorSpan>;
  read: (
    span: TensorSpan,
    at: number,
    length: number,
    options: { signal: AbortSignal; purpose: ReadPurpose },
  ) => Promise<Uint8Array>;
}

/** First read of a chunk's archive: torch.save puts data.pkl first, and a small chunk is read whole. */
const CHUNK_FIRST_READ_BYTES = 64 * 1024;

/** A checkpoint's chunks and how to open the files beside its `.metadata`. */
export interface DcpStorage {
  rows: ReadonlyArray<readonly DcpChunk[]>;
  /** A reader of the file beside the `.metadata`, by its name in storage_data; null when it is not at hand. */
  open: (file: string) => ByteReader | null;
  /** Chunks already located, by file and offset: a scan, then a read, parse each archive once. */
  located?: Map<string, Promise<TensorSpan>>;
}

/** Whether two chunks share an element: their ranges overlap along every dimension. */
function overlap(a: DcpChunk, b: DcpChunk): boolean {
  return a.at.every((at, dim) => at < b.at[dim] + b.sizes[dim] && b.at[dim] < at + a.sizes[dim]);
}

/** Why chunks in blocks along any dimensions do not tile `shape` exactly once, or null when they do. */
function tilingProblem(chunks: readonly DcpChunk[], shape: readonly number[]): string | null {
  if (chunks.length > MAX_ASSEMBLED_CHUNKS) {
    return `This tensor was saved in ${chunks.length} chunks, over the ${MAX_ASSEMBLED_CHUNKS} this page assembles.`;
  }
  let elements = 0;
  for (const chunk of chunks) {
    const inside =
      chunk.at.length === shape.length &&
      chunk.sizes.length === shape.length &&
      chunk.at.every((at, dim) => at >= 0 && at + chunk.sizes[dim] <= shape[dim]);
    if (!inside) {
      return `A chunk of this tensor at [${chunk.at.join(', ')}] reaches outside its size: not read.`;
    }
    elements += product(chunk.sizes);
  }
  for (let a = 0; a < chunks.length; a++) {
    for (let b = a + 1; b < chunks.length; b++) {
      if (overlap(chunks[a], chunks[b])) {
        return `Two chunks of this tensor overlap (at [${chunks[a].at.join(', ')}] and [${chunks[b].at.join(', ')}]): not read.`;
      }
    }
  }
  const total = product(shape);
  return elements === total ? null : `This tensor's chunks hold ${elements} of its ${total} elements: not read.`;
}

/** Copies a chunk's row-major bytes into its block of the whole tensor's row-major bytes. */
export function placeBlock(
  out: Uint8Array,
  shape: readonly number[],
  chunk: Pick<DcpChunk, 'at' | 'sizes'>,
  bytes: Uint8Array,
  itemBytes: number,
): void {
  const dims = shape.length;
  const strides = new Array<number>(dims).fill(1);
  for (let dim = dims - 2; dim >= 0; dim--) {
    strides[dim] = strides[dim + 1] * shape[dim + 1];
  }
  const run = (chunk.sizes[dims - 1] ?? 1) * itemBytes;
  const runs = product(chunk.sizes.slice(0, -1));
  const index = new Array<number>(Math.max(0, dims - 1)).fill(0);
  for (let k = 0; k < runs; k++) {
    let element = chunk.at[dims - 1] ?? 0;
    for (let dim = 0; dim < dims - 1; dim++) {
      element += (chunk.at[dim] + index[dim]) * strides[dim];
    }
    out.set(bytes.subarray(k * run, (k + 1) * run), element * itemBytes);
    for (let dim = dims - 2; dim >= 0; dim--) {
      if (++index[dim] < chunk.sizes[dim]) {
        break;
      }
      index[dim] = 0;
    }
  }
}

/** The chunks in row order when each spans every dimension but the first (FSDP's row blocks), else null. */
function rowBlocks(chunks: readonly DcpChunk[], shape: readonly number[]): DcpChunk[] | null {
  const rows = chunks.every((chunk) => chunk.sizes.every((size, dim) => dim === 0 || size === shape[dim]));
  return rows ? [...chunks].sort((a, b) => (a.at[0] ?? 0) - (b.at[0] ?? 0)) : null;
}

async function locateChunk(
  dcp: DcpStorage,
  chunk: DcpChunk,
  dtype: string | null,
  signal: AbortSignal,
  io: SpanIo,
): Promise<TensorSpan> {
  const file = chunk.file;
  if (file === null) {
    throw new ValuesUnavailable('The metadata gives no file for a chunk of this tensor: nothing holds its values.');
  }
  if (chunk.transforms) {
    throw new ValuesUnavailable(
      `This tensor's chunk in ${file} went through DCP's extensions (${chunk.transforms.join(', ')}) on the way to ` +
        'the file: its bytes are transformed (compressed), and not read here.',
    );
  }
  const reader = dcp.open(file);
  if (reader === null) {
    throw new ValuesUnavailable(
      `${file} is not open beside the .metadata: drop the checkpoint's whole folder (or open the .metadata by URL, ` +
        'with its .distcp files beside it) to read values.',
    );
  }
  const archive = sliceReader(reader, chunk.offset, chunk.length, 'values');
  const first = await archive.read(0, Math.min(chunk.length, CHUNK_FIRST_READ_BYTES), { signal });
  const loaded = await readCheckpoint(archive, first, 'zip', { signal });
  const header = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
  const checkpoint = header?.checkpoint;
  if (!header || !checkpoint?.members || header.tensors.count !== 1) {
    throw new ValuesUnavailable(
      `The chunk at byte ${chunk.offset} of ${file} is not one torch.save archive of one tensor: the file does not ` +
        'match its metadata.',
    );
  }
  const shape = tensorShape(header.tensors, 0);
  const chunkDtype = dtypeName(header.tensors.dtype[0]);
  if (shape.join(',') !== chunk.sizes.join(',') || (dtype !== null && chunkDtype !== dtype)) {
    throw new ValuesUnavailable(
      `The chunk at byte ${chunk.offset} of ${file} holds a ${chunkDtype ?? '?'} tensor of shape [${shape.join(', ')}] ` +
        `where the metadata says ${dtype ?? '?'} [${chunk.sizes.join(', ')}]: the file does not match its metadata.`,
    );
  }
  return io.locate(
    header.tensors,
    0,
    {
      // A chunk's own archive says its byte order (torch.save's byteorder record), as torch.load reads it.
      locate: () => ({ reader: archive, dataStart: 0, ...(header.byteOrder && { byteOrder: header.byteOrder }) }),
      storage: { rows: checkpoint.rows, members: checkpoint.members },
    },
    signal,
  );
}

/**
 * The bytes of DCP tensor `row`: one chunk's span as it is (a view included), the row blocks one after another, or
 * blocks along other dimensions assembled in memory.
 */
export async function locateDcpTensor(
  columns: TensorColumns,
  row: number,
  dcp: DcpStorage,
  signal: AbortSignal,
  io: SpanIo,
): Promise<TensorSpan> {
  const chunks = dcp.rows[row] ?? [];
  if (chunks.length === 0) {
    throw new ValuesUnavailable('The metadata lists no chunk of this tensor: nothing holds its values.');
  }
  const shape = tensorShape(columns, row);
  const problem = tilingProblem(chunks, shape);
  if (problem !== null) {
    throw new ValuesUnavailable(problem);
  }
  // Tiled exactly once: blocks of whole rows, in row order, are the tensor's bytes one after another.
  const rows = rowBlocks(chunks, shape);
  const blocks = rows ?? [...chunks];
  const dtype = dtypeName(columns.dtype[row]);
  dcp.located ??= new Map();
  const located = dcp.located;
  const parts = await Promise.all(
    blocks.map((chunk) => {
      const key = `${chunk.file}\n${chunk.offset}`;
      let span = located.get(key);
      if (span === undefined) {
        span = locateChunk(dcp, chunk, dtype, signal, io);
        // A failed or cancelled locate is tried again next time.
        span.catch(() => located.delete(key));
        located.set(key, span);
      }
      return span;
    }),
  );
  if (parts.length === 1) {
    return parts[0];
  }
  const length = parts.reduce((total, part) => total + part.length, 0);
  if (rows !== null && !parts.some((part) => part.strided)) {
    return { reader: parts[0].reader, start: parts[0].start, length, parts };
  }
  if (length > MAX_ASSEMBLED_TENSOR_BYTES) {
    throw new ValuesUnavailable(
      `This tensor's chunks split it along more than its first dimension, and it is ${length} bytes: over the ` +
        `${MAX_ASSEMBLED_TENSOR_BYTES} this page assembles in memory.`,
    );
  }
  const itemBytes = length / product(shape);
  return {
    reader: parts[0].reader,
    start: parts[0].start,
    length,
    assembled: async (options) => {
      const out = new Uint8Array(length);
      const read = await Promise.all(parts.map((part) => io.read(part, 0, part.length, options)));
      read.forEach((bytes, k) => placeBlock(out, shape, blocks[k], bytes, itemBytes));
      return out;
    },
  };
}
