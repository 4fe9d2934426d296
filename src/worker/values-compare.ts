/**
 * "Compare values" in the worker: for every tensor both sides of a comparison share with the same shape, read the
 * same elements of A and B (all of them when both files are local, else the same row sample of each, as "Read
 * values" would take) piece by piece, and measure the difference (core/values/compare-values.ts). An FP8 or int8
 * side with a scale tensor beside it is dequantized first, so BF16 compares against FP8 in values.
 */
import { tensorShape } from '../core/model';
import {
  changeByLayer,
  DiffAccumulator,
  type ValueComparison,
  type ValuesComparisonResult,
} from '../core/values/compare-values';
import { decodeUnit, decodeValues, type DecodeUnit } from '../core/values/decode';
import { matrixShape } from '../core/values/grid';
import { planValuesRead } from '../core/values/read-plan';
import { scaleKind, scaleValues, type ValueScale } from '../core/values/tensor-values';
import { locatedByteLength, locateTensorData, readSpanBytes, type TensorSpan } from '../io/tensor-data';
import type { KeptLoad } from './load-source';
import { readScale, rowDtype, SCALED_DTYPES, type ValuesJob } from './values-handler';

/** Elements compared per read of each side: 4 MiB of F32, a multiple of every unit's element count (1 to 256). */
const PIECE_ELEMENTS = 1 << 20;

interface Side {
  load: KeptLoad;
  row: number;
  dtype: string;
  unit: DecodeUnit;
  span: TensorSpan;
  scale: ValueScale | null;
}

async function sideOf(load: KeptLoad, row: number, signal: AbortSignal): Promise<Side | null> {
  const dtype = rowDtype(load, row);
  const unit = decodeUnit(dtype);
  if (unit === null || !load.data) {
    return null;
  }
  const span = await locateTensorData(load.columns, row, load.data, signal);
  const scale = SCALED_DTYPES.has(dtype) ? await readScale(load, load.data, row, signal) : null;
  return { load, row, dtype, unit, span, scale };
}

async function readPiece(side: Side, first: number, count: number, rows: number, cols: number, signal: AbortSignal) {
  const start = (first / side.unit.elements) * side.unit.bytes;
  const length = (count / side.unit.elements) * side.unit.bytes;
  const bytes = await readSpanBytes(side.span, start, length, { signal, purpose: 'values' });
  const decoded = decodeValues(side.dtype, bytes) ?? new Float32Array(0);
  const values =
    side.scale && scaleKind(side.scale.values.length, rows, cols) !== null
      ? scaleValues(decoded, first, rows, cols, side.scale.values)
      : decoded;
  return { bytes, values };
}

export async function compareTensorValues(
  a: KeptLoad,
  b: KeptLoad,
  pairs: ReadonlyArray<[number, number]>,
  job: ValuesJob,
): Promise<ValuesComparisonResult> {
  const started = performance.now();
  const tensors: ValueComparison[] = [];
  const skipped: string[] = [];
  let bytes = 0;
  let done = true;
  const remote = Boolean(a.data?.remote || b.data?.remote);
  const total = pairs.reduce(
    (sum, [rowA, rowB]) => sum + plannedBytes(a, rowA, remote) + plannedBytes(b, rowB, remote),
    0,
  );
  job.progress(0, total);
  for (const [rowA, rowB] of pairs) {
    let sideA: Side | null;
    let sideB: Side | null;
    try {
      [sideA, sideB] = await Promise.all([sideOf(a, rowA, job.signal), sideOf(b, rowB, job.signal)]);
    } catch {
      if (job.signal.aborted) {
        done = false;
        break;
      }
      sideA = null;
      sideB = null;
    }
    const name = a.names[rowA];
    if (!sideA || !sideB) {
      skipped.push(name);
      continue;
    }
    const shape = tensorShape(a.columns, rowA);
    const { rows, cols } = matrixShape(shape);
    const plan = planValuesRead({ byteLength: sideA.span.length, unit: sideA.unit, rows, cols, whole: !remote });
    const diff = new DiffAccumulator(sideA.dtype === sideB.dtype && !sideA.scale && !sideB.scale);
    try {
      for (const range of plan.ranges) {
        const elements = ((range.end - range.start) / sideA.unit.bytes) * sideA.unit.elements;
        for (let at = 0; at < elements; at += PIECE_ELEMENTS) {
          const first = range.firstElement + at;
          const count = Math.min(PIECE_ELEMENTS, elements - at);
          const [pa, pb] = await Promise.all([
            readPiece(sideA, first, count, rows, cols, job.signal),
            readPiece(sideB, first, count, rows, cols, job.signal),
          ]);
          bytes += pa.bytes.length + pb.bytes.length;
          if (diff.sameDtype) {
            diff.addBytes(pa.bytes, pb.bytes);
          }
          diff.addValues(pa.values, pb.values);
          job.progress(Math.min(total, bytes), total);
        }
      }
    } catch (error) {
      if (job.signal.aborted) {
        done = false;
        break;
      }
      throw error;
    }
    tensors.push(diff.result(name, sideA.dtype, sideB.dtype, plan.sampled));
  }
  return { tensors, skipped, byLayer: changeByLayer(tensors), bytes, done, ms: performance.now() - started };
}

/**
 * Bytes the comparison will read of one side's tensor, as its read plan says (a checkpoint's tensors are located
 * through their storages, so their size comes from the kept storage table, not from data-region offsets).
 */
export function plannedBytes(load: KeptLoad, row: number, remote: boolean): number {
  const unit = decodeUnit(rowDtype(load, row));
  const byteLength = locatedByteLength(load.columns, row, load.data?.storage);
  if (unit === null || byteLength === 0) {
    return 0;
  }
  const { rows, cols } = matrixShape(tensorShape(load.columns, row));
  return planValuesRead({ byteLength, unit, rows, cols, whole: !remote }).bytes;
}
