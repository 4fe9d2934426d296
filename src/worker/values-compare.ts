/**
 * "Compare values" in the worker: for every pair core/compare/value-pairs.ts lines up (same-name same-shape tensors,
 * or a GGUF tensor and its Hugging Face counterpart through llama.cpp's name map), read the same elements of A and B
 * (all of them when both files are local, else the same row sample of each, as "Read values" would take) piece by
 * piece, and measure the difference (core/values/compare-values.ts). Values are decoded or dequantized first (an FP8
 * or int8 side with a scale tensor beside it, a GGUF block type), so BF16 compares against FP8 or Q8_0 in values. A
 * pairing may reorder one side's rows per head, shift its values, or compare slices of a stacked tensor: the worker
 * applies what the pairing says and knows no format.
 */
import { permutedRowOf, type ValuePairing, type ValuePairings, type ValuePart } from '../core/compare/value-pairs';
import {
  changeByLayer,
  decodingOf,
  DiffAccumulator,
  type SkippedValuePair,
  type ValueComparison,
  type ValuesComparisonResult,
} from '../core/values/compare-values';
import { decodeUnit, decodeValues, isComplexDtype, type Decoded, type DecodeUnit } from '../core/values/decode';
import { ExpertChangesTracker, type ExpertChanges } from '../core/values/expert-changes';
import {
  expertChangeMap,
  numberedExpertObservation,
  stackObservations,
  type ExpertObservation,
} from '../core/values/expert-map';
import { stackedExperts } from '../core/values/expert-stack-scan';
import { matrixShape } from '../core/values/grid';
import { EmbeddingRowAccumulator } from '../core/values/embedding-row-changes';
import { zeroLinesChange, ZeroLinesTracker } from '../core/values/zero-lines';
import { LineMagnitudesTracker, outlierColumnsChange } from '../core/values/line-magnitudes';
import { applyChannelScales, ChannelScaleFit, fittedScales, type FittedScales } from '../core/values/channel-scales';
import { ChangeRankSampler } from '../core/values/change-rank';
import { CHANGE_RANK_ROWS, COLUMN_SCAN_ROWS, MAX_STACKED_EXPERTS } from '../core/values/values-limits';
import { embeddingPlanOf } from '../core/values/untrained-tokens';
import { planParts, planValuesRead, type ValuesReadPlan } from '../core/values/read-plan';
import { scaleKind, scaleValues, ValuesUnavailable, type ValueScale } from '../core/values/tensor-values';
import { locatedByteLength, locateTensorData, readSpanBytes, type TensorSpan } from '../io/tensor-data';
import { SourceError } from '../core/errors';
import { loraPairsOf, valuePairsReadingHeads } from './compare-handler';
import { loraRelativeBytes, loraRelativeUpdates, planLoraRelative } from './values-lora-relative';
import { compareLoraPair, loraPairBytes, loraPairPlan } from './values-lora-pair';
import { comparePackedPairing, packedPairBytes } from './values-compare-packed';
import { sourceReads, type KeptLoad } from './load-source';
import type { WorkerRequest, WorkerResponse } from './protocol';
import { readScale, rowDtype, SCALED_DTYPES, type ValuesJob } from './values-handler';

/** Elements compared per read of each side: 4 MiB of F32, a multiple of every unit's element count (1 to 256). */
const PIECE_ELEMENTS = 1 << 20;

interface Side {
  dtype: string;
  unit: DecodeUnit;
  span: TensorSpan;
  scale: ValueScale | null;
  /** The part's first element within the tensor. */
  first: number;
  /** This side's rows are in another order than the other side's (the pairing says how). */
  permuted: ValuePairing['permutedRows'];
  shift: number;
}

interface Piece {
  bytes: Uint8Array;
  values: Decoded;
}

interface PartView {
  rows: number;
  cols: number;
  elements: number;
}

async function sideOf(
  load: KeptLoad,
  row: number,
  first: number,
  pairing: ValuePairing,
  which: 'a' | 'b',
  signal: AbortSignal,
): Promise<Side | string> {
  const dtype = rowDtype(load, row);
  const unit = decodeUnit(dtype);
  if (isComplexDtype(dtype)) {
    return `${dtype} values are not compared (Read values shows them as torch.view_as_real gives them)`;
  }
  if (unit === null) {
    return `${dtype} values are not decoded`;
  }
  if (!load.data) {
    return 'the load holds no tensor data to read';
  }
  if (first % unit.elements !== 0) {
    return `its slice does not start on a ${dtype} block boundary`;
  }
  try {
    const span = await locateTensorData(load.columns, row, load.data, signal);
    const scale = SCALED_DTYPES.has(dtype) ? await readScale(load, load.data, row, signal) : null;
    return {
      dtype,
      unit,
      span,
      scale,
      first,
      permuted: pairing.permutedRows?.side === which ? pairing.permutedRows : null,
      shift: pairing.shift?.side === which ? pairing.shift.by : 0,
    };
  } catch (error) {
    if (error instanceof ValuesUnavailable && !signal.aborted) {
      return error.message;
    }
    throw error;
  }
}

/** The decoded (and scaled, and shifted) values of elements [first, first + count) of the part. */
async function readPiece(side: Side, first: number, count: number, view: PartView, signal: AbortSignal) {
  const at = side.first + first;
  const start = (at / side.unit.elements) * side.unit.bytes;
  const length = (count / side.unit.elements) * side.unit.bytes;
  const bytes = await readSpanBytes(side.span, start, length, { signal, purpose: 'values' });
  const decoded = decodeValues(side.dtype, bytes) ?? new Float32Array(0);
  let values: Decoded =
    side.scale && scaleKind(side.scale.values.length, view.rows, view.cols) !== null
      ? scaleValues(decoded, at, view.rows, view.cols, side.scale.values)
      : decoded;
  if (side.shift !== 0) {
    const shift = side.shift;
    values = Float64Array.from(values, (value) => value + shift);
  }
  return { bytes, values };
}

/**
 * Rows [r0, r1) in the other side's order: for a side whose rows are reordered per head, the rows holding them are
 * read as one extent (within the heads the run touches) and put in order in memory.
 */
async function readRows(side: Side, r0: number, r1: number, view: PartView, signal: AbortSignal): Promise<Piece> {
  const { cols } = view;
  const permuted = side.permuted;
  if (permuted === null) {
    return readPiece(side, r0 * cols, (r1 - r0) * cols, view, signal);
  }
  let lo = Infinity;
  let hi = -Infinity;
  for (let r = r0; r < r1; r++) {
    const mapped = permutedRowOf(r, permuted);
    lo = Math.min(lo, mapped);
    hi = Math.max(hi, mapped + 1);
  }
  const piece = await readPiece(side, lo * cols, (hi - lo) * cols, view, signal);
  const ordered =
    piece.values instanceof Float64Array ? new Float64Array((r1 - r0) * cols) : new Float32Array((r1 - r0) * cols);
  for (let r = r0; r < r1; r++) {
    const from = (permutedRowOf(r, permuted) - lo) * cols;
    ordered.set(piece.values.subarray(from, from + cols), (r - r0) * cols);
  }
  return { bytes: piece.bytes, values: ordered };
}

function partView(part: ValuePart, byRows: boolean): PartView {
  const elements = part.shape.reduce((product, dim) => product * dim, 1);
  if (byRows) {
    const rows = part.shape[0] ?? 1;
    return { rows, cols: rows > 0 ? elements / rows : 0, elements };
  }
  return { ...matrixShape(part.shape), elements };
}

/** Bytes of the part on one side: the located tensor's when the part is the whole tensor, else its slice's. */
function partBytes(load: KeptLoad, row: number, part: ValuePart, unit: DecodeUnit): number {
  const elements = part.shape.reduce((product, dim) => product * dim, 1);
  if (elements === load.columns.elements[row]) {
    return locatedByteLength(load.columns, row, load.data?.storage);
  }
  return Math.floor(elements / unit.elements) * unit.bytes;
}

function planOf(load: KeptLoad, row: number, part: ValuePart, byRows: boolean, remote: boolean): ValuesReadPlan | null {
  const unit = decodeUnit(rowDtype(load, row));
  if (unit === null) {
    return null;
  }
  const { rows, cols } = partView(part, byRows);
  return planValuesRead({ byteLength: partBytes(load, row, part, unit), unit, rows, cols, whole: !remote });
}

/** The parts of a pairing to read: all, or for a remote stacked tensor over the limit an even spread of them. */
function partsToRead(a: KeptLoad, pairing: ValuePairing, remote: boolean): { parts: ValuePart[]; sampled: boolean } {
  const [first] = pairing.parts;
  const unit = first ? decodeUnit(rowDtype(a, first.rowA)) : null;
  if (!first || unit === null || pairing.parts.length === 1) {
    return { parts: pairing.parts, sampled: false };
  }
  const chosen = planParts(pairing.parts.length, partBytes(a, first.rowA, first, unit), !remote);
  return { parts: chosen.parts.map((index) => pairing.parts[index]), sampled: chosen.sampled };
}

/** Row runs of a plan's ranges, cut into pieces of whole heads (whole reads) or at most PIECE_ELEMENTS. */
function rowPieces(plan: ValuesReadPlan, unit: DecodeUnit, view: PartView, headDim: number): Array<[number, number]> {
  const pieceRows = Math.max(headDim, Math.floor(PIECE_ELEMENTS / Math.max(1, view.cols) / headDim) * headDim);
  const pieces: Array<[number, number]> = [];
  for (const range of plan.ranges) {
    const elements = ((range.end - range.start) / unit.bytes) * unit.elements;
    const first = range.firstElement / view.cols;
    const last = first + elements / view.cols;
    for (let r = first; r < last; r += pieceRows) {
      pieces.push([r, Math.min(last, r + pieceRows)]);
    }
  }
  return pieces;
}

/**
 * Per-expert sums for a stack of experts: a GGUF stack paired slice by slice with per-expert tensors (one part per
 * expert), or one tensor [E, …] compared whole and element for element.
 */
function expertTrackerOf(pairing: ValuePairing): ExpertChangesTracker | null {
  const [first] = pairing.parts;
  if (!first) {
    return null;
  }
  const elements = first.shape.reduce((product, dim) => product * dim, 1);
  if (pairing.parts.length > 1) {
    return pairing.parts.length <= MAX_STACKED_EXPERTS
      ? new ExpertChangesTracker(pairing.parts.length, elements)
      : null;
  }
  const experts = pairing.permutedRows === null ? stackedExperts(pairing.tensor, first.shape) : null;
  return experts === null ? null : new ExpertChangesTracker(experts, elements / experts);
}

export interface PairOutcome {
  comparison: ValueComparison | null;
  skipped: SkippedValuePair | null;
  bytes: number;
  /** Whether the change is one factor per channel, to be set on the comparison once every pair is in. */
  scales?: FittedScales | null;
  /** A stack of experts compared expert by expert, identical or not: the cells of the expert map. */
  byExpert?: ExpertChanges | null;
}

async function comparePairing(
  a: KeptLoad,
  b: KeptLoad,
  pairing: ValuePairing,
  remote: boolean,
  job: ValuesJob,
  onBytes: (bytes: number) => void,
): Promise<PairOutcome> {
  const packed = await comparePackedPairing(a, b, pairing, job, onBytes);
  if (packed) {
    return packed;
  }
  const byRows = pairing.permutedRows !== null;
  let diff: DiffAccumulator | null = null;
  let embeddingRows: EmbeddingRowAccumulator | null = null;
  // Element for element, each side's lines all zeros: which rows and columns one side zeroes and the other does not.
  let lines: { a: ZeroLinesTracker; b: ZeroLinesTracker; rowDims: number[] } | null = null;
  // And each side's columns far above the rest, over at most COLUMN_SCAN_ROWS rows of a whole read.
  let magnitudes: { a: LineMagnitudesTracker; b: LineMagnitudesTracker } | null = null;
  // And whether B is A with each channel (or the whole tensor) scaled by one factor.
  let scales: ChannelScaleFit | null = null;
  // And how many directions the change of a matrix uses, over an even spread of its rows.
  let rank: ChangeRankSampler | null = null;
  const chosen = partsToRead(a, pairing, remote);
  // And a stack of experts, expert by expert.
  const experts = expertTrackerOf(pairing);
  let sampled = chosen.sampled;
  let bytes = 0;
  let decodedBy = '';
  let dtypes: [string, string] = ['', ''];
  for (const part of chosen.parts) {
    const [sideA, sideB] = await Promise.all([
      sideOf(a, part.rowA, part.firstA, pairing, 'a', job.signal),
      sideOf(b, part.rowB, part.firstB, pairing, 'b', job.signal),
    ]);
    if (typeof sideA === 'string' || typeof sideB === 'string') {
      return {
        comparison: null,
        skipped: { tensor: pairing.tensor, reason: String(typeof sideA === 'string' ? sideA : sideB) },
        bytes,
      };
    }
    const view = partView(part, byRows);
    if (byRows && (view.cols % sideA.unit.elements !== 0 || view.cols % sideB.unit.elements !== 0)) {
      return {
        comparison: null,
        skipped: {
          tensor: pairing.tensor,
          reason: `its rows split ${sideA.dtype}/${sideB.dtype} blocks, so they cannot be reordered`,
        },
        bytes,
      };
    }
    const plan = planValuesRead({
      byteLength: partBytes(a, part.rowA, part, sideA.unit),
      unit: sideA.unit,
      rows: view.rows,
      cols: view.cols,
      whole: !remote,
    });
    const byteComparable = sideA.dtype === sideB.dtype && !sideA.scale && !sideB.scale && !byRows && !pairing.shift;
    diff ??= new DiffAccumulator(byteComparable);
    // The token embedding compared whole and element for element: also row by row, token by token.
    const embedding =
      chosen.parts.length === 1 && !byRows && !pairing.shift && !plan.sampled
        ? embeddingPlanOf(part.rowA, a.names[part.rowA], () => [view.rows, view.cols])
        : null;
    embeddingRows = embedding ? new EmbeddingRowAccumulator(embedding.tensor, view.rows, view.cols) : null;
    lines =
      chosen.parts.length === 1 && !byRows && !pairing.shift
        ? { a: new ZeroLinesTracker(part.shape), b: new ZeroLinesTracker(part.shape), rowDims: part.shape.slice(0, -1) }
        : null;
    const rowsAtMost = plan.sampled ? Infinity : COLUMN_SCAN_ROWS;
    magnitudes = lines
      ? { a: new LineMagnitudesTracker(part.shape, rowsAtMost), b: new LineMagnitudesTracker(part.shape, rowsAtMost) }
      : null;
    // A matrix or a vector: a stack of matrices has no one input channel per column.
    scales = lines && part.shape.length <= 2 ? new ChannelScaleFit(part.shape) : null;
    rank =
      lines && part.shape.length === 2
        ? new ChangeRankSampler(
            part.shape,
            plan.sampled ? 1 : Math.ceil(view.rows / CHANGE_RANK_ROWS),
            // B's rounding is sized from its stored floats; dequantized values have no such grid.
            sideB.scale === null && sideB.unit.elements === 1 ? sideB.dtype : null,
          )
        : null;
    sampled ||= plan.sampled;
    dtypes = [sideA.dtype, sideB.dtype];
    // Rows compared in another order than stored are compared as values; the summary says why, not only how.
    decodedBy = describeDecoding(sideA, sideB) + (byRows ? ', rows put back in order' : '');
    const expert = pairing.parts.length > 1 ? pairing.parts.indexOf(part) : -1;
    const add = (pa: Piece, pb: Piece) => {
      bytes += pa.bytes.length + pb.bytes.length;
      onBytes(pa.bytes.length + pb.bytes.length);
      if (diff?.sameDtype) {
        diff.addBytes(pa.bytes, pb.bytes);
      }
      diff?.addValues(pa.values, pb.values);
      if (expert >= 0) {
        experts?.addExpert(expert, pa.values, pb.values);
      }
    };
    if (byRows) {
      for (const [r0, r1] of rowPieces(plan, sideA.unit, view, pairing.permutedRows?.headDim ?? 1)) {
        const [pa, pb] = await Promise.all([
          readRows(sideA, r0, r1, view, job.signal),
          readRows(sideB, r0, r1, view, job.signal),
        ]);
        add(pa, pb);
      }
      continue;
    }
    for (const range of plan.ranges) {
      const elements = ((range.end - range.start) / sideA.unit.bytes) * sideA.unit.elements;
      for (let at = 0; at < elements; at += PIECE_ELEMENTS) {
        const first = range.firstElement + at;
        const count = Math.min(PIECE_ELEMENTS, elements - at);
        const [pa, pb] = await Promise.all([
          readPiece(sideA, first, count, view, job.signal),
          readPiece(sideB, first, count, view, job.signal),
        ]);
        add(pa, pb);
        if (expert < 0) {
          experts?.add(pa.values, pb.values, first);
        }
        embeddingRows?.add(pa.values, pb.values, first);
        lines?.a.add(pa.values, first);
        lines?.b.add(pb.values, first);
        magnitudes?.a.add(pa.values, first);
        magnitudes?.b.add(pb.values, first);
        scales?.add(pa.values, pb.values, first);
        rank?.add(pa.values, pb.values, first);
      }
    }
  }
  if (!diff) {
    return { comparison: null, skipped: { tensor: pairing.tensor, reason: 'no elements to compare' }, bytes };
  }
  const comparison = diff.result(pairing.tensor, dtypes[0], dtypes[1], sampled, { decodedBy, note: pairing.note });
  const rows = embeddingRows?.result(b.tokenTexts?.() ?? null);
  if (rows) {
    comparison.rows = rows;
  }
  const zeroLines = lines && zeroLinesChange(lines.a, lines.b, lines.rowDims, !sampled);
  if (zeroLines) {
    comparison.zeroLines = zeroLines;
  }
  const outlierColumns = magnitudes && outlierColumnsChange(magnitudes.a, magnitudes.b);
  if (outlierColumns) {
    comparison.outlierColumns = outlierColumns;
  }
  // Lines zeroed on one side are a pruning, as many directions as lines, which the zero-line note says.
  const changeRank = !comparison.identical && !zeroLines && rank?.result();
  if (changeRank) {
    comparison.changeRank = changeRank;
  }
  const byExpert = experts?.result() ?? null;
  if (byExpert && !comparison.identical) {
    comparison.experts = byExpert;
  }
  return { comparison, skipped: null, bytes, scales: scales && fittedScales(scales, pairing.tensor), byExpert };
}

function describeDecoding(a: Side, b: Side): string {
  const words = [a, b].map((side) => decodingOf(side.dtype, side.unit.elements > 1 || side.scale !== null));
  return words[0] === words[1] ? words[0] : `${words[0]} and ${words[1]}`;
}

export async function compareTensorValues(
  a: KeptLoad,
  b: KeptLoad,
  lined: ValuePairings,
  job: ValuesJob,
  lora: LoraPairs | null = null,
): Promise<ValuesComparisonResult> {
  const started = performance.now();
  const tensors: ValueComparison[] = [];
  const fits: Array<{ into: ValueComparison; fit: FittedScales }> = [];
  const experts: ExpertObservation[] = [];
  const skipped: SkippedValuePair[] = [...lined.skipped];
  let bytes = 0;
  let done = true;
  const remote = Boolean(a.data?.remote || b.data?.remote);
  const [adapter, base] = lora?.adapterSide === 'a' ? [a, b] : [b, a];
  const relative = lora ? planLoraRelative(adapter, lora) : null;
  const loraPairs = loraPairPlan(a, b);
  const total =
    lined.pairings.reduce((sum, pairing) => sum + plannedBytes(a, b, pairing, remote), 0) +
    (relative ? loraRelativeBytes(adapter, base, relative) : 0) +
    loraPairBytes(a, b, loraPairs);
  job.progress(0, total);
  for (const pairing of lined.pairings) {
    try {
      const outcome = await comparePairing(a, b, pairing, remote, job, (read) => {
        bytes += read;
        job.progress(Math.min(total, bytes), total);
      });
      if (outcome.comparison) {
        tensors.push(outcome.comparison);
        if (outcome.scales) {
          fits.push({ into: outcome.comparison, fit: outcome.scales });
        }
        const numbered = numberedExpertObservation(outcome.comparison);
        experts.push(
          ...(outcome.byExpert
            ? stackObservations(pairing.tensor, outcome.byExpert, outcome.comparison.basis === 'sampled')
            : []),
        );
        experts.push(...(numbered ? [numbered] : []));
      }
      if (outcome.skipped) {
        skipped.push(outcome.skipped);
      }
    } catch (error) {
      if (job.signal.aborted) {
        done = false;
        break;
      }
      throw error;
    }
  }
  applyChannelScales(fits);
  const result: ValuesComparisonResult = {
    tensors,
    skipped,
    byLayer: changeByLayer(tensors),
    bytes,
    done,
    ms: 0,
  };
  const expertMap = expertChangeMap(experts);
  if (expertMap) {
    result.expertMap = expertMap;
  }
  const onBytes = (read: number) => {
    bytes += read;
    job.progress(Math.min(total, bytes), total);
  };
  try {
    if (relative && result.done) {
      result.lora = await loraRelativeUpdates(adapter, base, relative, job, onBytes);
    }
    if (loraPairs && loraPairs.pairs.length > 0 && result.done) {
      result.loraPair = await compareLoraPair(a, b, loraPairs, job, onBytes);
    }
  } catch (error) {
    if (!job.signal.aborted) {
      throw error;
    }
    result.done = false;
  }
  return Object.assign(result, { bytes, ms: performance.now() - started });
}

type LoraPairs = NonNullable<ReturnType<typeof loraPairsOf>>;

/** Bytes the comparison will read of a pairing's two sides, as their read plans say. */
export function plannedBytes(a: KeptLoad, b: KeptLoad, pairing: ValuePairing, remote: boolean): number {
  const packed = packedPairBytes(a, b, pairing);
  if (packed !== null) {
    return packed;
  }
  const byRows = pairing.permutedRows !== null;
  let bytes = 0;
  for (const part of partsToRead(a, pairing, remote).parts) {
    bytes += planOf(a, part.rowA, part, byRows, remote)?.bytes ?? 0;
    bytes += planOf(b, part.rowB, part, byRows, remote)?.bytes ?? 0;
  }
  return bytes;
}

/**
 * The worker's answer to a `compare-values` request: the pairs lined up from the kept loads as they are now (reading
 * the Hugging Face side's config.json first when q/k pairs need its head counts), compared, with what both loads
 * have read after it. A failure is the answer's error.
 */
export async function compareValuesReply(
  request: Extract<WorkerRequest, { type: 'compare-values' }>,
  loadOf: (loadId: number) => KeptLoad | undefined,
  job: ValuesJob,
): Promise<Extract<WorkerResponse, { type: 'compare-values-result' }>> {
  const { id } = request;
  const a = loadOf(request.loadA);
  const b = loadOf(request.loadB);
  const reads = () => ({ a: sourceReads(a), b: sourceReads(b) });
  try {
    const pairs = await valuePairsReadingHeads(request.compareId, loadOf, job.signal);
    if (!a || !b || !pairs) {
      throw new ValuesUnavailable(
        'One of the two sources is no longer loaded in the worker: open it again to compare.',
      );
    }
    const result = await compareTensorValues(a, b, pairs, job, loraPairsOf(request.compareId, loadOf));
    return { type: 'compare-values-result', id, result, error: null, reads: reads() };
  } catch (error) {
    const message =
      error instanceof ValuesUnavailable || error instanceof SourceError
        ? error.message
        : `Unexpected error while comparing values: ${String(error)}. This is a bug in Safetensors Lens.`;
    return { type: 'compare-values-result', id, result: null, error: message, reads: reads() };
  }
}
