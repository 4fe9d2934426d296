/**
 * The quantization analysis' pass over every row (quantization.ts): stored elements and bytes per dtype, the logical
 * parameter count, the rows no detector claimed and the matrices kept in high precision. From the table's per-dtype
 * sums where they can stand in for the rows, else row by row.
 */
import { DTYPES, SCALE_ONLY_DTYPES, type Dtype } from '../../dtypes';
import { dtypeSums, shadowedMask } from '../../stats';
import { MAX_LAYER_NAMES } from '../analysis-limits';
import type { DtypeShare, PrecisionSummary } from '../report-sections';
import { storedBytes, type TensorIndex } from '../tensor-index';
import { isHighPrecisionFloat } from './quant-types';

/** The precision pass' sums per dtype, in order of first appearance. */
class DtypeSlots {
  readonly dtypes: string[] = [];
  readonly tensors: number[] = [];
  readonly elementSums: number[] = [];
  readonly byteSums: number[] = [];
  readonly params: number[] = [];
  readonly scaleOnly: boolean[] = [];
  readonly highFloat: boolean[] = [];
  /** Slot per spec dtype code, -1 until seen. */
  readonly byCode = new Int32Array(256).fill(-1);
  private readonly byText = new Map<string, number>();

  /** The slot of `row`'s dtype, opened on its first row. */
  slotOf(index: TensorIndex, row: number, code: number): number {
    const dtype = index.dtype(row);
    let slot = this.byText.get(dtype) ?? -1;
    if (slot < 0) {
      slot = this.dtypes.length;
      this.dtypes.push(dtype);
      this.tensors.push(0);
      this.elementSums.push(0);
      this.byteSums.push(0);
      this.params.push(0);
      this.scaleOnly.push(SCALE_ONLY_DTYPES.has(dtype as Dtype));
      this.highFloat.push(isHighPrecisionFloat(dtype));
      this.byText.set(dtype, slot);
    }
    if (code < DTYPES.length) {
      this.byCode[code] = slot;
    }
    return slot;
  }
}

/**
 * Every row's stored elements and bytes per dtype, the parameters, the unclaimed rows and the high-precision
 * matrices. It runs once per load, mostly in V8's interpreter, so it reads typed columns and locals, and it is a
 * function of its own: V8 compiles a loop sooner the smaller the function around it (docs/performance.md, "Loops
 * that run once").
 */
function sumPrecisionRows(
  index: TensorIndex,
  rows: { claimed: Uint8Array; aux: Uint8Array; isBias: Uint8Array },
  weights: ModuleWeights,
  slots: DtypeSlots,
  modulesLogical: number,
): PrecisionSums {
  const { claimed, aux, isBias } = rows;
  const { weightLogical, isWeight } = weights;
  const { tensors, elementSums, byteSums, params, scaleOnly, highFloat, byCode } = slots;
  const columns = index.header.tensors;
  const { elements: elementColumn, begin, end, shapeStarts, dtype: codes } = columns;
  const { rowShape } = index.shapes();
  const known = DTYPES.length;
  let storedElements = 0;
  let allBytes = 0;
  let logicalParams = modulesLogical;
  const highPrecision: string[] = [];
  let highPrecisionCount = 0;
  const unclaimed: UnclaimedRows = { scaleOnly: 0, scaleOnlyElements: 0, rest: 0, restElements: 0 };
  // A repeated name counts once, as the reference keeps only its last entry.
  const shadowed = shadowedMask(columns.count, index.header.shadowedRows);
  const count = index.count;
  for (let row = 0; row < count; row++) {
    if (shadowed !== null && shadowed[row] === 1) {
      if (!claimed[row]) {
        countUnclaimed(unclaimed, SCALE_ONLY_DTYPES.has(index.dtype(row) as Dtype), elementColumn[row]);
      }
      continue;
    }
    const code = codes[row];
    let slot = code < known ? byCode[code] : -1;
    if (slot < 0) {
      slot = slots.slotOf(index, row, code);
    }
    const stored = elementColumn[row];
    // x - x === 0 exactly when x is finite.
    const finite = stored - stored === 0;
    const elements = finite ? stored : 0;
    const span = end[row] - begin[row];
    const bytes = span - span === 0 && span >= 0 ? span : storedBytes(columns, row);
    if (!claimed[row]) {
      countUnclaimed(unclaimed, scaleOnly[slot], elements);
    }
    if (finite) {
      storedElements += stored;
      if (!claimed[row] && !scaleOnly[slot]) {
        logicalParams += stored;
      }
    }
    allBytes += bytes;
    if (
      !claimed[row] &&
      highFloat[slot] &&
      shapeStarts[row + 1] - shapeStarts[row] >= 2 &&
      isBias[rowShape[row]] === 0
    ) {
      if (highPrecisionCount < MAX_LAYER_NAMES) {
        const name = index.names[row];
        highPrecision.push(name.endsWith('.weight') ? name.slice(0, -'.weight'.length) : name);
      }
      highPrecisionCount++;
    }
    tensors[slot]++;
    elementSums[slot] += elements;
    byteSums[slot] += bytes;
    // Parameters: the logical count of quantized weights, plus every unclaimed tensor; sidecars carry none.
    params[slot] +=
      isWeight[row] === 1 ? weightLogical[row] : !claimed[row] && !aux[row] && !scaleOnly[slot] ? elements : 0;
  }
  return { storedElements, allBytes, logicalParams, highPrecision, highPrecisionCount, unclaimed };
}

/**
 * Stored elements and bytes, the logical parameter count (the quantized modules' `logicalParams` plus every
 * unclaimed tensor), the high-precision matrices (only the first MAX_LAYER_NAMES names are made; the count stays
 * exact) and the per-dtype precision summary, from the per-dtype sums where they can stand in for the rows, else in
 * one pass over every row. Rows reach their dtype's accumulators through the dtype code (or the spelling, for codes
 * outside the spec), and the `bias` test is per name shape.
 */
export function measureRows(
  index: TensorIndex,
  rows: ClaimedRows,
  weights: ModuleWeights,
  modulesLogical: number,
): {
  storedElements: number;
  allBytes: number;
  logicalParams: number;
  highPrecision: string[];
  highPrecisionCount: number;
  precision: PrecisionSummary;
  unclaimed: UnclaimedRows;
} {
  const shapes = index.shapes();
  const isBias = new Uint8Array(shapes.count);
  for (let s = 0; s < shapes.count; s++) {
    isBias[s] = /bias$/i.test(shapes.text[s]) ? 1 : 0;
  }
  const slots = new DtypeSlots();
  const { storedElements, allBytes, logicalParams, highPrecision, highPrecisionCount, unclaimed } =
    precisionFromSums(index, rows, isBias, weights, slots, modulesLogical) ??
    sumPrecisionRows(index, { ...rows, isBias }, weights, slots, modulesLogical);
  const { dtypes, tensors, elementSums, byteSums, params } = slots;
  // Dtypes in order of first appearance, then by bytes (a stable sort keeps that order among equals).
  const entries: DtypeShare[] = dtypes.map((dtype, slot) => ({
    dtype,
    tensors: tensors[slot],
    elements: elementSums[slot],
    bytes: byteSums[slot],
    share: 0,
  }));
  const list = [...entries].sort((a, b) => b.bytes - a.bytes);
  for (const entry of list) {
    entry.share = storedElements > 0 ? entry.elements / storedElements : 0;
  }
  let dominant: string | null = null;
  let most = 0;
  for (let slot = 0; slot < dtypes.length; slot++) {
    if (params[slot] > most) {
      dominant = dtypes[slot];
      most = params[slot];
    }
  }
  return {
    storedElements,
    allBytes,
    logicalParams,
    highPrecision,
    highPrecisionCount,
    precision: { byDtype: list, dominant },
    unclaimed,
  };
}

/** The quantized weights' logical parameters, per row and per dtype code, as claimModuleRows records them. */
export interface ModuleWeights {
  weightLogical: Float64Array;
  isWeight: Uint8Array;
  /** Per dtype code: the logical parameters of the weights stored in it. */
  logicalByCode: Float64Array;
}

/** The rows the detections claimed (their modules' and their aux rows), with per-code counts and elements. */
export interface ClaimedRows {
  claimed: Uint8Array;
  aux: Uint8Array;
  claimedByCode: Uint32Array;
  claimedElementsByCode: Float64Array;
}

interface PrecisionSums {
  storedElements: number;
  allBytes: number;
  logicalParams: number;
  highPrecision: string[];
  highPrecisionCount: number;
  unclaimed: UnclaimedRows;
}

/**
 * sumPrecisionRows' answer from the table's per-dtype sums (stats.ts dtypeSums, taken for the load's totals before
 * the analyses run) and the claimed rows' per-code sums, leaving one lean pass for the high-precision matrices: each
 * pass over every row costs 10-20 ms in a load's tail (docs/performance.md, "Loops that run once"). Null where the
 * sums cannot stand in for the rows: repeated names (their rows are skipped), dtypes outside the known codes (summed
 * by spelling), or rows without valid offsets (sized differently there).
 */
function precisionFromSums(
  index: TensorIndex,
  rows: ClaimedRows,
  isBias: Uint8Array,
  weights: ModuleWeights,
  slots: DtypeSlots,
  modulesLogical: number,
): PrecisionSums | null {
  const columns = index.header.tensors;
  const sums = dtypeSums(columns);
  const shadowed = shadowedMask(columns.count, index.header.shadowedRows);
  if (shadowed !== null || sums.unknownRows.length > 0 || sums.rowsWithoutSpan > 0) {
    return null;
  }
  const { claimedByCode, claimedElementsByCode } = rows;
  const unclaimed: UnclaimedRows = { scaleOnly: 0, scaleOnlyElements: 0, rest: 0, restElements: 0 };
  let logicalParams = modulesLogical;
  const highFloatCode = new Uint8Array(256);
  for (const { code, row } of codesInOrderOfAppearance(columns.dtype, sums.tensorsByCode)) {
    const slot = slots.slotOf(index, row, code);
    const unclaimedTensors = sums.tensorsByCode[code] - claimedByCode[code];
    const unclaimedElements = sums.elementsByCode[code] - claimedElementsByCode[code];
    if (slots.scaleOnly[slot]) {
      unclaimed.scaleOnly += unclaimedTensors;
      unclaimed.scaleOnlyElements += unclaimedElements;
    } else {
      unclaimed.rest += unclaimedTensors;
      unclaimed.restElements += unclaimedElements;
      logicalParams += unclaimedElements;
    }
    slots.tensors[slot] = sums.tensorsByCode[code];
    slots.elementSums[slot] = sums.elementsByCode[code];
    slots.byteSums[slot] = sums.bytesByCode[code];
    // Parameters: the logical count of quantized weights, plus every unclaimed tensor; sidecars carry none.
    slots.params[slot] = weights.logicalByCode[code] + (slots.scaleOnly[slot] ? 0 : unclaimedElements);
    highFloatCode[code] = slots.highFloat[slot] ? 1 : 0;
  }
  const { names: highPrecision, count: highPrecisionCount } = highPrecisionMatrices(
    index,
    rows.claimed,
    isBias,
    highFloatCode,
  );
  return {
    storedElements: sums.elements,
    allBytes: sums.bytes,
    logicalParams,
    highPrecision,
    highPrecisionCount,
    unclaimed,
  };
}

/**
 * The dtype codes present (tensorsByCode > 0), each with its first row, in row order: the order sumPrecisionRows
 * opens its slots in. The scan stops once every present code was seen, within the first layer on real files.
 */
function codesInOrderOfAppearance(codes: Uint8Array, tensorsByCode: Float64Array): { code: number; row: number }[] {
  let left = 0;
  for (let code = 0; code < tensorsByCode.length; code++) {
    left += tensorsByCode[code] > 0 ? 1 : 0;
  }
  const seen = new Uint8Array(256);
  const order: { code: number; row: number }[] = [];
  for (let row = 0; row < codes.length && left > 0; row++) {
    const code = codes[row];
    if (seen[code] === 0 && tensorsByCode[code] > 0) {
      seen[code] = 1;
      order.push({ code, row });
      left--;
    }
  }
  return order;
}

/**
 * Unclaimed matrices (rank ≥ 2) in a high-precision float dtype, biases aside: their count and the first
 * MAX_LAYER_NAMES names. A small function of its own over typed columns, for the reason sumPrecisionRows is.
 */
function highPrecisionMatrices(
  index: TensorIndex,
  claimed: Uint8Array,
  isBias: Uint8Array,
  highFloatCode: Uint8Array,
): { names: string[]; count: number } {
  const { dtype: codes, shapeStarts } = index.header.tensors;
  const { rowShape } = index.shapes();
  const names: string[] = [];
  let count = 0;
  const rows = index.count;
  for (let row = 0; row < rows; row++) {
    if (
      claimed[row] === 0 &&
      highFloatCode[codes[row]] === 1 &&
      shapeStarts[row + 1] - shapeStarts[row] >= 2 &&
      isBias[rowShape[row]] === 0
    ) {
      if (count < MAX_LAYER_NAMES) {
        const name = index.names[row];
        names.push(name.endsWith('.weight') ? name.slice(0, -'.weight'.length) : name);
      }
      count++;
    }
  }
  return { names, count };
}

/** Rows no detector claimed: scale-only dtypes (sidecars of no known family) and the rest, counted as stored. */
export interface UnclaimedRows {
  scaleOnly: number;
  scaleOnlyElements: number;
  rest: number;
  restElements: number;
}

function countUnclaimed(counts: UnclaimedRows, scaleOnly: boolean, elements: number): void {
  const finite = Number.isFinite(elements) ? elements : 0;
  if (scaleOnly) {
    counts.scaleOnly++;
    counts.scaleOnlyElements += finite;
  } else {
    counts.rest++;
    counts.restElements += finite;
  }
}
