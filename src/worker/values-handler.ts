/**
 * "Read values" and "Scan all values" in the worker: locate a kept load's tensor (io/tensor-data.ts), plan what to
 * read (core/values/read-plan.ts), read it chunk by chunk under the `values` purpose, and build the statistics
 * (core/values/tensor-values.ts, scan.ts). Progress is posted per chunk; the request's AbortSignal cancels the reads.
 */
import { dtypeName } from '../core/dtypes';
import { tensorShape } from '../core/model';
import { decodeUnit, decodeValues, realView, valuesDtype, type DecodeUnit } from '../core/values/decode';
import { matrixShape } from '../core/values/grid';
import { withTokenTexts } from '../core/values/non-finite-positions';
import { withRowTokenTexts } from '../core/values/line-magnitudes';
import { LoraUpdateCollector, planLoraUpdates } from '../core/values/lora-update';
import {
  embeddingPlanOf,
  untrainedRowsPlan,
  untrainedTokens,
  UntrainedRowsCollector,
} from '../core/values/untrained-tokens';
import { REMOTE_VALUES_WHOLE_BYTES } from '../core/values/values-limits';
import { packedPlan } from '../core/values/packed';
import { planValuesRead } from '../core/values/read-plan';
import {
  scanTensor,
  summarizeScan,
  TensorScanAccumulator,
  type TensorScanFigures,
  type ScanTensor,
  type ValueScan,
} from '../core/values/value-scan';
import {
  scaleCompanions,
  ValuesAccumulator,
  ValuesUnavailable,
  type TensorValues,
  type ValueScale,
} from '../core/values/tensor-values';
import {
  locatedByteLength,
  locateTensorData,
  readTensorChunks,
  readSpansInOrder,
  readWholeTensor,
  type TensorSpan,
} from '../io/tensor-data';
import type { KeptData, KeptLoad } from './load-source';
import { packedFacts, packedReadBytes, readDequantizedValues } from './values-packed';
import { packedScanPlan, scanDequantized, type PackedScan } from './scan-packed';
import { formatBytes } from '../core/number-format';

/** Scale tensors are a few values per row or block; one larger than this is not a scale. */
const MAX_SCALE_BYTES = 64 * 1024 * 1024;

/** Dtypes a scale tensor beside them dequantizes. */
export const SCALED_DTYPES: ReadonlySet<string> = new Set(['F8_E4M3', 'F8_E5M2', 'F8_E4M3FNUZ', 'F8_E5M2FNUZ', 'I8']);

export interface ValuesJob {
  signal: AbortSignal;
  progress: (bytesRead: number, bytesTotal: number) => void;
}

function dataOf(load: KeptLoad): KeptData {
  if (!load.data) {
    throw new ValuesUnavailable('This load has no parsed tensors to read.');
  }
  return load.data;
}

export function rowDtype(load: Pick<KeptLoad, 'columns' | 'data'>, row: number): string {
  return dtypeName(load.columns.dtype[row]) ?? load.data?.unknownDtypes.get(row) ?? 'unknown';
}

/** One tensor's values: whole when local or asked for, else a row sample past the remote limit. */
export async function readTensorValues(
  load: KeptLoad,
  row: number,
  whole: boolean,
  job: ValuesJob,
  stored = false,
): Promise<TensorValues> {
  const started = performance.now();
  const data = dataOf(load);
  if (!(row >= 0 && row < load.columns.count)) {
    throw new ValuesUnavailable('No such tensor in this load.');
  }
  const dtype = rowDtype(load, row);
  const packed = packedPlan(packedFacts(load, rowDtype), row);
  const packedBytes = packed ? packedReadBytes(load, packed) : 0;
  let notDequantized: string | null = null;
  if (packed && !stored && (!data.remote || whole || packedBytes <= REMOTE_VALUES_WHOLE_BYTES)) {
    try {
      return await readDequantizedValues(load, row, packed, whole, job, rowDtype);
    } catch (error) {
      // Companions that do not fit, or a weight too large to dequantize at once: the stored codes, and why.
      if (!(error instanceof ValuesUnavailable) || job.signal.aborted) {
        throw error;
      }
      notDequantized = error.message;
    }
  }
  const span = await locateTensorData(load.columns, row, data, job.signal);
  const found = SCALED_DTYPES.has(dtype) && !stored ? await readScale(load, data, row, job.signal) : null;
  const rowShape = tensorShape(load.columns, row);
  const real = realView(dtype, rowShape);
  const shape = real?.shape ?? rowShape;
  const { values, scale, scaleProblem } = accumulatorFor(real?.dtype ?? dtype, shape, found, load.names[row]);
  const { rows, cols } = matrixShape(shape);
  const plan = planValuesRead({ byteLength: span.length, unit: values.unit, rows, cols, whole: whole || !data.remote });
  // A token embedding read whole (its stored values) also says which of its rows were never trained.
  const embedding = scale === null ? embeddingPlanOf(row, load.names[row], () => shape) : null;
  const embeddingRows = embedding && !plan.sampled ? new UntrainedRowsCollector(embedding) : null;
  job.progress(0, plan.bytes);
  await readTensorChunks(span, plan.ranges, {
    signal: job.signal,
    remote: data.remote,
    purpose: 'values',
    unit: values.unit,
    onChunk: (bytes, firstElement) => {
      values.add(bytes, firstElement);
      embeddingRows?.add(row, dtype, bytes, firstElement);
    },
    onProgress: (bytesRead) => job.progress(bytesRead, plan.bytes),
  });
  const result = values.result(load.names[row], row, plan, {
    tensorBytes: span.length,
    confirmed: whole && data.remote,
    started,
  });
  const texts = embedding ? (load.tokenTexts?.() ?? null) : null;
  if (result.nonFinite && texts) {
    result.nonFinite = withTokenTexts(result.nonFinite, texts);
  }
  if (result.lineMagnitudes && texts) {
    result.lineMagnitudes = withRowTokenTexts(result.lineMagnitudes, texts);
  }
  if (embedding) {
    const ids = embeddingRows?.untrainedIds() ?? null;
    if (ids) {
      result.untrainedTokens = untrainedTokens(embedding, ids, texts);
    } else {
      result.notes.push('"Read all" also finds the token rows that were never trained: a sample cannot.');
    }
  }
  if (real) {
    result.dtype = dtype;
    result.notes.push(
      `A ${dtype} tensor, read as torch.view_as_real gives it: each element's real and imaginary parts as two ` +
        `${real.dtype} values, along a last dimension of 2.`,
    );
  }
  if (span.swap) {
    result.byteOrder = 'big-endian';
    result.notes.push(
      'The file stores these numbers big-endian: they were swapped to little-endian as read, as its loader swaps ' +
        'them, and the bytes shown beside each value are the swapped ones.',
    );
  }
  const scalable =
    SCALED_DTYPES.has(dtype) && scaleCompanions(load.names[row]).some((c) => load.names.includes(c.name));
  if (scaleProblem !== null) {
    result.notes.push(`${scaleProblem} The stored values are shown.`);
  }
  if (scale) {
    result.alternative = 'stored';
  } else if (packed || (scalable && scaleProblem === null)) {
    result.alternative = 'dequantized';
    if (notDequantized !== null) {
      result.notes.push(notDequantized);
    } else if (packed && !stored) {
      result.notes.push(
        `A ${packed.scheme} weight: its dequantized values need it and its companions read whole (${formatBytes(packedBytes)}), which "Read all" does.`,
      );
    }
  }
  return result;
}

/**
 * The accumulator of a tensor's values, dequantized by its scale tensor when that fits one of the scale layouts;
 * a scale that fits none (another tensor's size, a damaged file) leaves the stored values, with the reason.
 */
function accumulatorFor(
  dtype: string,
  shape: number[],
  scale: ValueScale | null,
  name: string,
): { values: ValuesAccumulator; scale: ValueScale | null; scaleProblem: string | null } {
  try {
    return { values: new ValuesAccumulator(dtype, shape, scale, name), scale, scaleProblem: null };
  } catch (error) {
    if (!(error instanceof ValuesUnavailable) || scale === null) {
      throw error;
    }
    return { values: new ValuesAccumulator(dtype, shape, null, name), scale: null, scaleProblem: error.message };
  }
}

/**
 * A tensor's bytes, read whole (a LoRA factor, an `.alpha`), or null when the load has no data or the tensor's bytes
 * are not located (a compressed zip member): the caller then leaves it out and says so.
 */
export async function readWholeRow(load: KeptLoad, row: number, signal: AbortSignal): Promise<Uint8Array | null> {
  if (!load.data) {
    return null;
  }
  try {
    return await readWholeTensor(load.columns, row, load.data, signal);
  } catch (error) {
    if (signal.aborted || !(error instanceof ValuesUnavailable)) {
      throw error;
    }
    return null;
  }
}

/** A tensor's values read whole and decoded (a LoRA factor, an `.alpha`), or null when not decoded or not located. */
export async function readDecodedRow(load: KeptLoad, row: number, signal: AbortSignal): Promise<Float32Array | null> {
  const bytes = await readWholeRow(load, row, signal);
  const decoded = bytes === null ? null : decodeValues(rowDtype(load, row), bytes);
  return decoded === null ? null : decoded instanceof Float32Array ? decoded.slice() : Float32Array.from(decoded);
}

/** Bytes the rows take where their data is (what reading them whole costs). */
export function rowsBytes(load: KeptLoad, rows: Iterable<number>): number {
  let bytes = 0;
  for (const row of rows) {
    bytes += locatedByteLength(load.columns, row, load.data?.storage);
  }
  return bytes;
}

/** The scale tensor beside an FP8 or int8 weight, decoded, or null when the model has none. */
export async function readScale(
  load: KeptLoad,
  data: KeptData,
  row: number,
  signal: AbortSignal,
): Promise<ValueScale | null> {
  for (const companion of scaleCompanions(load.names[row])) {
    const scaleRow = load.names.indexOf(companion.name);
    if (scaleRow < 0) {
      continue;
    }
    const dtype = rowDtype(load, scaleRow);
    const unit = decodeUnit(dtype);
    if (unit === null || locatedByteLength(load.columns, scaleRow, data.storage) > MAX_SCALE_BYTES) {
      return null;
    }
    const decoded = decodeValues(dtype, await readWholeTensor(load.columns, scaleRow, data, signal));
    if (decoded === null) {
      return null;
    }
    const values = companion.divisor === 1 ? decoded : decoded.map((value) => value / companion.divisor);
    return { tensor: companion.name, values };
  }
  return null;
}

/**
 * Bytes "Scan all values" would read: every located tensor whose dtype is decoded, except the code-only parts of a
 * packed layout, and for a packed weight the weight and its companions whole (scan-packed.ts).
 */
export function scanBytes(load: KeptLoad, packed: PackedScan = packedScanPlan(load)): number {
  let total = 0;
  for (let row = 0; row < load.columns.count; row++) {
    const plan = packed.weights.get(row);
    if (plan) {
      total += packedReadBytes(load, plan);
    } else if (!packed.codeOnly.has(row) && decodeUnit(valuesDtype(rowDtype(load, row))) !== null) {
      total += locatedByteLength(load.columns, row, load.data?.storage);
    }
  }
  return total;
}

/** Every tensor's counts and extremes, then what stands out (core/values/value-scan.ts). Cancelled: what was scanned. */
export async function scanValues(load: KeptLoad, job: ValuesJob): Promise<ValueScan> {
  const started = performance.now();
  const data = dataOf(load);
  const packed = packedScanPlan(load);
  const total = scanBytes(load, packed);
  const skipped: string[] = [];
  job.progress(0, total);
  // File order: a local scan then reads each file front to back, as fast as the disk streams it.
  const order = Array.from({ length: load.columns.count }, (_, row) => row).sort(
    (a, b) => (load.columns.begin[a] || 0) - (load.columns.begin[b] || 0),
  );
  const located: LocatedTensor[] = [];
  let done = true;
  for (const row of order) {
    if (packed.weights.has(row) || packed.codeOnly.has(row)) {
      continue;
    }
    const dtype = rowDtype(load, row);
    const unit = decodeUnit(valuesDtype(dtype));
    if (unit === null) {
      skipped.push(load.names[row]);
      continue;
    }
    try {
      located.push({ row, dtype, unit, span: await locateTensorData(load.columns, row, data, job.signal) });
    } catch {
      if (job.signal.aborted) {
        done = false;
        break;
      }
      skipped.push(load.names[row]);
    }
  }
  const shapeOf = (row: number) => tensorShape(load.columns, row);
  const plan = planLoraUpdates(load.names, shapeOf);
  const updates = plan ? new LoraUpdateCollector(plan) : null;
  const embedding = untrainedRowsPlan(load.names, shapeOf);
  const embeddingRows =
    embedding && located.some((tensor) => tensor.row === embedding.row) ? new UntrainedRowsCollector(embedding) : null;
  const sinks: ScanSink[] = [...(updates ? [updates] : []), ...(embeddingRows ? [embeddingRows] : [])];
  let scanned = done ? await scanLocated(load, located, total, job, sinks) : { perTensor: [], bytes: 0, done: false };
  if (scanned.done) {
    scanned = await scanPackedWeights(load, packed, scanned, total, job, skipped);
  }
  const untrainedIds = embeddingRows?.untrainedIds() ?? null;
  return summarizeScan(scanned.perTensor, {
    done: scanned.done,
    bytes: scanned.bytes,
    skippedNames: skipped,
    ms: performance.now() - started,
    loraUpdates: updates ? updates.result(load.loraScaling()) : null,
    untrainedTokens:
      embedding && untrainedIds ? untrainedTokens(embedding, untrainedIds, load.tokenTexts?.() ?? null) : null,
  });
}

/** What else reads the scan's bytes of some tensors (a LoRA's factors, the token embedding), in any chunk order. */
interface ScanSink {
  wants(row: number): boolean;
  /** A piece of `row` in whole units, from element `at` (default: after the previous piece). */
  add(row: number, dtype: string, piece: Uint8Array, at?: number): void;
  /** `row` was read to its end. */
  end(row: number): void;
}

interface LocatedTensor {
  row: number;
  dtype: string;
  span: TensorSpan;
  unit: DecodeUnit;
}

/**
 * The scan's reads: a local load in file order through one stream of slices shared by neighbouring tensors; a remote
 * one tensor after another, each with its own Range requests. Stops where it is when the job is cancelled.
 */
async function scanLocated(
  load: KeptLoad,
  list: readonly LocatedTensor[],
  total: number,
  job: ValuesJob,
  sinks: readonly ScanSink[],
): Promise<ScanSoFar> {
  const perTensor: ScanTensor[] = [];
  const remote = dataOf(load).remote;
  let bytes = 0;
  try {
    if (remote) {
      for (const { row, dtype, unit, span } of list) {
        const wanting = sinks.filter((sink) => sink.wants(row));
        const as = scannedAs(load, row, dtype);
        const scanned = await scanOneTensor(span, as.dtype, unit, as.shape, {
          name: load.names[row],
          signal: job.signal,
          remote,
          onProgress: (read) => job.progress(bytes + read, total),
          onChunk:
            wanting.length > 0
              ? (chunk, first) => wanting.forEach((sink) => sink.add(row, dtype, chunk, first))
              : undefined,
        });
        wanting.forEach((sink) => sink.end(row));
        bytes += span.length - (span.length % unit.bytes);
        perTensor.push(scanTensor(row, load.names[row], dtype, scanned));
      }
    } else {
      // Pieces come in list order, each tensor's together, so one accumulator is open at a time.
      let current: TensorScanAccumulator | null = null;
      let currentElement = 0;
      await readSpansInOrder(list, {
        signal: job.signal,
        onPiece: (index, piece, last) => {
          const { row, dtype, unit } = list[index];
          if (current === null) {
            const as = scannedAs(load, row, dtype);
            current = new TensorScanAccumulator(as.dtype, as.count, as.shape, load.names[row]);
            currentElement = 0;
          }
          current.add(piece, currentElement);
          currentElement += (piece.length / unit.bytes) * unit.elements;
          bytes += piece.length;
          for (const sink of sinks) {
            if (sink.wants(row)) {
              sink.add(row, dtype, piece);
              if (last) {
                sink.end(row);
              }
            }
          }
          if (last) {
            perTensor.push(scanTensor(row, load.names[row], dtype, current.result()));
            current = null;
          }
        },
        onProgress: (read) => job.progress(read, total),
      });
    }
  } catch (error) {
    if (!job.signal.aborted) {
      throw error;
    }
    return { perTensor, bytes, done: false };
  }
  return { perTensor, bytes, done: true };
}

/** The dtype, shape and value count a row's values are scanned as: a complex tensor's real view, else its own. */
function scannedAs(load: KeptLoad, row: number, dtype: string): { dtype: string; shape: number[]; count: number } {
  const shape = tensorShape(load.columns, row);
  const real = realView(dtype, shape);
  const count = load.columns.elements[row];
  return real ? { dtype: real.dtype, shape: real.shape, count: count * 2 } : { dtype, shape, count };
}

interface ScanSoFar {
  perTensor: ScanTensor[];
  bytes: number;
  done: boolean;
}

/** The packed weights, after the file-order pass: each dequantized whole, one at a time. */
async function scanPackedWeights(
  load: KeptLoad,
  packed: PackedScan,
  scanned: ScanSoFar,
  total: number,
  job: ValuesJob,
  skipped: string[],
): Promise<ScanSoFar> {
  let bytes = scanned.bytes;
  const perTensor = [...scanned.perTensor];
  for (const [row, plan] of packed.weights) {
    try {
      perTensor.push(await scanDequantized(load, row, plan, job.signal, (read) => job.progress(bytes + read, total)));
      bytes += packedReadBytes(load, plan);
    } catch (error) {
      if (job.signal.aborted) {
        return { perTensor, bytes, done: false };
      }
      if (!(error instanceof ValuesUnavailable)) {
        throw error;
      }
      // Its tensors do not fit together: listed as not scanned, as a tensor whose dtype is not decoded is.
      skipped.push(load.names[row]);
    }
  }
  return { perTensor, bytes, done: true };
}

/** One tensor of "Scan all values": counts, extremes, moments (no sketch) and zero lines, read whole. */
export async function scanOneTensor(
  span: TensorSpan,
  dtype: string,
  unit: DecodeUnit,
  shape: readonly number[],
  options: {
    /** The tensor's name: a stack of experts is also read expert by expert. */
    name?: string;
    signal: AbortSignal;
    remote: boolean;
    onProgress?: (bytesRead: number) => void;
    /** Also handed each chunk, after the statistics (the LoRA update's factors); over HTTP in any order. */
    onChunk?: (chunk: Uint8Array, firstElement: number) => void;
  },
): Promise<TensorScanFigures> {
  const usable = span.length - (span.length % unit.bytes);
  const stats = new TensorScanAccumulator(dtype, (usable / unit.bytes) * unit.elements, shape, options.name);
  await readTensorChunks(span, [{ start: 0, end: usable, firstElement: 0 }], {
    signal: options.signal,
    remote: options.remote,
    purpose: 'values',
    unit,
    onChunk: (chunk, first) => {
      stats.add(chunk, first);
      options.onChunk?.(chunk, first);
    },
    onProgress: options.onProgress,
  });
  return stats.result();
}
