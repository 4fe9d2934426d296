/**
 * Where a Distributed Checkpoint tensor's bytes are (core/formats/pytorch/dcp-metadata.ts lists its chunks): each
 * chunk is one torch.save archive at an offset of a `.distcp` file beside the `.metadata`, so a chunk's bytes are
 * found by reading that archive as a checkpoint of its own (its directory and data.pkl, never its storage) and
 * locating its one tensor there. A tensor whose chunks split it along its first dimension only (row blocks: FSDP,
 * a ChunkShardingSpec on dim 0) reads as the chunks one after another; other splits say they are not read.
 */
import type { ByteReader } from '../core/bytes/byte-reader';
import { dtypeName } from '../core/dtypes';
import type { DcpChunk } from '../core/formats/pytorch/dcp-metadata';
import { readCheckpoint } from '../core/formats/pytorch/read-checkpoint';
import { tensorShape, type TensorColumns } from '../core/model';
import { ValuesUnavailable } from '../core/values/tensor-values';
import type { TensorData, TensorSpan } from './tensor-data';

/** io/tensor-data.ts's checkpoint locator, handed in so the two modules do not import each other at run time. */
type LocateCheckpointTensor = (
  columns: TensorColumns,
  row: number,
  data: TensorData,
  signal: AbortSignal,
) => Promise<TensorSpan>;

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

/** `length` bytes of `reader` from `start`, as a reader of their own (a chunk's torch.save archive). */
export function sliceReader(reader: ByteReader, start: number, length: number): ByteReader {
  return {
    name: reader.name,
    size: length,
    preferredFirstRead: reader.preferredFirstRead,
    ...(reader.cheapReads !== undefined && { cheapReads: reader.cheapReads }),
    read: (offset, count, options) => {
      const end = Math.min(length, offset + count);
      return end <= offset ? Promise.resolve(new Uint8Array(0)) : reader.read(start + offset, end - offset, options);
    },
    stats: () => reader.stats(),
  };
}

/**
 * The chunks in row-block order when each spans every dimension but the first and together they tile the first
 * dimension; otherwise why they are not read.
 */
function rowBlocks(chunks: readonly DcpChunk[], shape: readonly number[]): DcpChunk[] | string {
  if (shape.length === 0) {
    return chunks.length === 1 ? [...chunks] : `This scalar was saved in ${chunks.length} chunks: not read.`;
  }
  const ordered = [...chunks].sort((a, b) => (a.at[0] ?? 0) - (b.at[0] ?? 0));
  let next = 0;
  for (const chunk of ordered) {
    const whole = chunk.sizes.every((size, dim) => dim === 0 || (chunk.at[dim] === 0 && size === shape[dim]));
    if (chunk.sizes.length !== shape.length || !whole) {
      return (
        `This tensor was saved in ${chunks.length} chunks split along more than its first dimension ` +
        '(tensor parallelism); chunks are read only when they are blocks of rows.'
      );
    }
    if (chunk.at[0] !== next) {
      return `This tensor's chunks do not tile its first dimension (a gap or an overlap at row ${next}): not read.`;
    }
    next += chunk.sizes[0];
  }
  return next === shape[0] ? ordered : `This tensor's chunks end at row ${next} of ${shape[0]}: not read.`;
}

async function locateChunk(
  dcp: DcpStorage,
  chunk: DcpChunk,
  dtype: string | null,
  signal: AbortSignal,
  locate: LocateCheckpointTensor,
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
  const archive = sliceReader(reader, chunk.offset, chunk.length);
  const first = await archive.read(0, Math.min(chunk.length, CHUNK_FIRST_READ_BYTES), { signal, purpose: 'values' });
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
  return locate(
    header.tensors,
    0,
    {
      locate: () => ({ reader: archive, dataStart: 0 }),
      storage: { rows: checkpoint.rows, members: checkpoint.members },
    },
    signal,
  );
}

/**
 * The bytes of DCP tensor `row`: one chunk's span as it is (a view included), or the row blocks one after another.
 */
export async function locateDcpTensor(
  columns: TensorColumns,
  row: number,
  dcp: DcpStorage,
  signal: AbortSignal,
  locate: LocateCheckpointTensor,
): Promise<TensorSpan> {
  const chunks = dcp.rows[row] ?? [];
  if (chunks.length === 0) {
    throw new ValuesUnavailable('The metadata lists no chunk of this tensor: nothing holds its values.');
  }
  const blocks = rowBlocks(chunks, tensorShape(columns, row));
  if (typeof blocks === 'string') {
    throw new ValuesUnavailable(blocks);
  }
  const dtype = dtypeName(columns.dtype[row]);
  dcp.located ??= new Map();
  const located = dcp.located;
  const parts = await Promise.all(
    blocks.map((chunk) => {
      const key = `${chunk.file}\n${chunk.offset}`;
      let span = located.get(key);
      if (span === undefined) {
        span = locateChunk(dcp, chunk, dtype, signal, locate);
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
  if (parts.some((part) => part.strided)) {
    throw new ValuesUnavailable('A chunk of this tensor was saved as a view of a larger storage: not read in chunks.');
  }
  return {
    reader: parts[0].reader,
    start: parts[0].start,
    length: parts.reduce((total, part) => total + part.length, 0),
    parts,
  };
}
