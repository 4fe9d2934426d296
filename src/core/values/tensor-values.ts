/**
 * One tensor's values, read: the result "Read values" shows and the report lists, and the accumulator that builds it
 * chunk by chunk (decode → optional scale → statistics, grid, first values). Pure: the bytes come from the caller.
 */
import type { UntrainedTokens } from './untrained-tokens';
import { ASSUMED_BIT_ORDER, codesOf, codeTable, decodeUnit, decodeValues, MIN_NORMAL, type DecodeUnit } from './decode';
import { FP8_SCALE_BLOCK } from './dequant';
import { GridAccumulator, matrixShape, type ValueGrid } from './grid';
import { NonFiniteLocator, type NonFinitePositions } from './non-finite-positions';
import { ZeroLinesTracker, type ZeroLines } from './zero-lines';
import { LineMagnitudesTracker, type LineMagnitudes } from './line-magnitudes';
import { FIRST_VALUES } from './values-limits';
import type { ValuesReadPlan } from './read-plan';
import { StatsAccumulator, type Histogram, type ValueStats } from './value-stats';
import { ExpertSums, expertStackFigures, type ExpertStackFigures } from './expert-stack-scan';

export interface FirstValue {
  index: number;
  value: number;
  /**
   * The bytes that hold it, as hex (a sub-byte value shows the byte it shares); for a value of a quant block, the
   * block's first 8 bytes on the block's first value, and '' on the others.
   */
  raw: string;
  /** The quant block that holds it, when a block holds more than 4 values (a GGUF block, an MX group). */
  block?: { elements: number; bytes: number };
}

export interface TensorValues {
  tensor: string;
  row: number;
  dtype: string;
  shape: number[];
  /**
   * `stored`: the values as stored; `dequantized`: times the scale tensor named in `scaledBy` (or a packed layout's
   * `dequantizedBy`); `computed`: no tensor of the file, but values formed from some (`computedBy`).
   */
  decoded: 'stored' | 'dequantized' | 'computed';
  scaledBy?: { tensor: string; kind: 'tensor' | 'row' | 'block' };
  /** A packed layout's dequantization: its scheme, the companion tensors it read, and its formula. */
  dequantizedBy?: { scheme: string; tensors: string[]; detail: string };
  /** A LoRA module's update ΔW = scale · B·A: the module, the tensors read, the scale and where it came from. */
  computedBy?: LoraDeltaFacts;
  /** The other reading this tensor offers: its stored values beside dequantized ones, or the reverse. */
  alternative?: 'stored' | 'dequantized';
  read: {
    bytes: number;
    elements: number;
    /** The tensor's bytes and elements. */
    of: number;
    ofElements: number;
    sampled: boolean;
    /** The user asked for the full read (a remote tensor over the default). */
    confirmed: boolean;
    rowsRead: number;
    rows: number;
    seed: number | null;
  };
  stats: ValueStats;
  histogram: Histogram | null;
  grid: ValueGrid | null;
  first: FirstValue[];
  /** Said beside the values: an assumed bit order, a 64-bit integer range. */
  notes: string[];
  /** The file stores them big-endian: the values and the bytes shown with them were swapped to little-endian as read. */
  byteOrder?: 'big-endian';
  /**
   * A token embedding read whole: its rows never trained (untrained-tokens.ts), null when every row was trained;
   * absent for other tensors and sampled reads.
   */
  untrainedTokens?: UntrainedTokens | null;
  /** Where the NaN and infinities among the values read are (non-finite-positions.ts); absent when there are none. */
  nonFinite?: NonFinitePositions;
  /** Rows, and for a 2-D tensor read whole columns, whose every value is zero (zero-lines.ts); absent when none. */
  zeroLines?: ZeroLines;
  /** Each row's and a matrix's each column's abs-max: their spread and the lines far above it (line-magnitudes.ts). */
  lineMagnitudes?: LineMagnitudes;
  /**
   * A stack of experts: each expert's RMS over its values read, and the experts that stand out (all zeros, NaN or
   * infinities, copies of one another, an RMS far from the median: expert-stack-scan.ts).
   */
  experts?: ExpertStackFigures;
  ms: number;
}

export interface LoraDeltaFacts {
  module: string;
  /** The down and up factors, then the `.alpha` when the module has one. */
  tensors: string[];
  rank: number;
  scale: number;
  /** How the scale was found, in words (alpha over rank, and where alpha came from). */
  detail: string;
  /** A LyCORIS module's form: ΔW = scale · W1 ⊗ W2 (LoKr), · (A1·B1) ⊙ (A2·B2) (LoHa), · B·mid·A (LoCon); absent for B·A. */
  form?: 'lokr' | 'loha' | 'locon';
}

/** Why a tensor's values cannot be read; the view shows it as is. */
export class ValuesUnavailable extends Error {}

/** A remote read over the default budget, not asked for whole: the view offers it with its byte count. */
export class NeedsWholeRead extends ValuesUnavailable {
  constructor(
    message: string,
    readonly bytes: number,
  ) {
    super(message);
  }
}

export interface ValueScale {
  tensor: string;
  values: ArrayLike<number>;
}

export class ValuesAccumulator {
  readonly unit: DecodeUnit;
  private readonly stats: StatsAccumulator;
  private readonly grid: GridAccumulator;
  private readonly nonFinite: NonFiniteLocator;
  private readonly zeroLines: ZeroLinesTracker;
  private readonly magnitudes: LineMagnitudesTracker;
  private readonly rows: number;
  private readonly cols: number;
  private readonly scaleKind: 'tensor' | 'row' | 'block' | null;
  private readonly experts: ExpertSums | null;
  private first: FirstValue[] = [];

  /** `name` marks a stack of experts, whose values are also summed expert by expert (expert-stack-scan.ts). */
  constructor(
    readonly dtype: string,
    readonly shape: number[],
    private readonly scale: ValueScale | null,
    name = '',
  ) {
    const unit = decodeUnit(dtype);
    if (unit === null) {
      throw new ValuesUnavailable(`${dtype} values are not decoded: the view shows only what the header says.`);
    }
    this.unit = unit;
    ({ rows: this.rows, cols: this.cols } = matrixShape(shape));
    this.stats = new StatsAccumulator(scale ? 0 : (MIN_NORMAL[dtype] ?? 0));
    this.nonFinite = new NonFiniteLocator(shape, this.rows, this.cols);
    this.grid = new GridAccumulator(this.rows, this.cols, this.nonFinite);
    this.zeroLines = new ZeroLinesTracker(shape);
    this.magnitudes = new LineMagnitudesTracker(shape);
    this.experts = ExpertSums.forTensor(name, shape, this.rows * this.cols);
    this.scaleKind = scale ? scaleKind(scale.values.length, this.rows, this.cols) : null;
    if (scale && this.scaleKind === null) {
      throw new ValuesUnavailable(
        `${scale.tensor} has ${scale.values.length} values, which fits neither one scale, one per row nor one per ${FP8_SCALE_BLOCK}×${FP8_SCALE_BLOCK} block of a ${this.rows}×${this.cols} weight.`,
      );
    }
  }

  /** Whole units of the tensor, starting at element `firstElement`. */
  add(bytes: Uint8Array, firstElement: number): void {
    const decoded = decodeValues(this.dtype, bytes);
    if (decoded === null) {
      return;
    }
    const values = this.scale ? this.applyScale(decoded, firstElement) : decoded;
    if (firstElement === 0 && this.first.length === 0) {
      this.first = firstValues(values, bytes, this.unit);
    }
    const table = this.scale ? null : codeTable(this.dtype);
    if (table) {
      this.stats.addCodes(codesOf(this.dtype, bytes), table);
    } else {
      this.stats.add(values);
    }
    this.grid.add(values, firstElement);
    this.zeroLines.add(values, firstElement);
    this.magnitudes.add(values, firstElement);
    this.experts?.add(values, firstElement, null);
  }

  /** Values formed rather than read (a LoRA update's rows): no bytes hold them. */
  addComputed(values: Float32Array, firstElement: number): void {
    if (firstElement === 0 && this.first.length === 0) {
      this.first = Array.from(values.subarray(0, FIRST_VALUES), (value, index) => ({ index, value, raw: '' }));
    }
    this.stats.add(values);
    this.grid.add(values, firstElement);
    this.zeroLines.add(values, firstElement);
    this.magnitudes.add(values, firstElement);
  }

  private applyScale(values: ArrayLike<number>, firstElement: number): Float32Array {
    return scaleValues(values, firstElement, this.rows, this.cols, (this.scale as ValueScale).values);
  }

  result(
    tensor: string,
    row: number,
    plan: ValuesReadPlan,
    read: { tensorBytes: number; confirmed: boolean; started: number },
  ): TensorValues {
    const notes: string[] = [];
    if (ASSUMED_BIT_ORDER.has(this.dtype)) {
      notes.push(
        `No producer documents how ${this.dtype} packs its 6-bit values; they are read as one little-endian bit stream (value i in bits 6i to 6i + 5).`,
      );
    }
    if (this.dtype === 'I64' || this.dtype === 'U64') {
      notes.push('64-bit integers beyond ±2^53 are shown rounded to the nearest double.');
    }
    const result: TensorValues = {
      tensor,
      row,
      dtype: this.dtype,
      shape: this.shape,
      decoded: this.scale ? 'dequantized' : 'stored',
      read: {
        bytes: plan.bytes,
        elements: plan.elements,
        of: read.tensorBytes,
        ofElements: this.rows * this.cols,
        sampled: plan.sampled,
        confirmed: read.confirmed,
        rowsRead: plan.rowsRead,
        rows: plan.rows,
        seed: plan.seed,
      },
      stats: this.stats.stats(),
      histogram: this.stats.histogram(),
      grid: this.shape.length === 0 ? null : this.grid.grid(),
      first: this.first,
      notes,
      ms: performance.now() - read.started,
    };
    const nonFinite = this.nonFinite.result();
    if (nonFinite) {
      result.nonFinite = nonFinite;
    }
    const zeroLines = this.zeroLines.result(!plan.sampled);
    if (zeroLines) {
      result.zeroLines = zeroLines;
    }
    const lineMagnitudes = this.magnitudes.result();
    if (lineMagnitudes) {
      result.lineMagnitudes = lineMagnitudes;
    }
    if (this.experts) {
      result.experts = expertStackFigures(this.experts, plan.sampled);
    }
    if (this.scale && this.scaleKind) {
      result.scaledBy = { tensor: this.scale.tensor, kind: this.scaleKind };
    }
    return result;
  }
}

/** Values of elements `firstElement`… times their scale: one for the tensor, one per row, or one per 128×128 block. */
export function scaleValues(
  values: ArrayLike<number>,
  firstElement: number,
  rows: number,
  cols: number,
  scale: ArrayLike<number>,
): Float32Array {
  const kind = scaleKind(scale.length, rows, cols);
  const out = new Float32Array(values.length);
  const blockCols = Math.ceil(cols / FP8_SCALE_BLOCK);
  for (let i = 0; i < values.length; i++) {
    const element = firstElement + i;
    const row = Math.floor(element / cols);
    let s: number;
    if (kind === 'tensor') {
      s = scale[0];
    } else if (kind === 'row') {
      s = scale[row];
    } else {
      const col = element - row * cols;
      s = scale[Math.floor(row / FP8_SCALE_BLOCK) * blockCols + Math.floor(col / FP8_SCALE_BLOCK)];
    }
    out[i] = values[i] * s;
  }
  return out;
}

export function scaleKind(length: number, rows: number, cols: number): 'tensor' | 'row' | 'block' | null {
  if (length === 1) {
    return 'tensor';
  }
  if (length === rows) {
    return 'row';
  }
  return length === Math.ceil(rows / FP8_SCALE_BLOCK) * Math.ceil(cols / FP8_SCALE_BLOCK) ? 'block' : null;
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
}

function firstValues(values: ArrayLike<number>, bytes: Uint8Array, unit: DecodeUnit): FirstValue[] {
  const count = Math.min(FIRST_VALUES, values.length);
  const out: FirstValue[] = [];
  for (let index = 0; index < count; index++) {
    const value = values[index];
    if (unit.elements > 4) {
      // A quant block's values share its bytes: its first 8 go with its first value, not with each of them.
      const at = Math.floor(index / unit.elements) * unit.bytes;
      const raw = index % unit.elements === 0 ? hex(bytes.subarray(at, at + Math.min(8, unit.bytes))) : '';
      out.push({ index, value, raw, block: { elements: unit.elements, bytes: unit.bytes } });
      continue;
    }
    const start = Math.floor((index * unit.bytes) / unit.elements);
    const end = Math.max(start + 1, Math.floor(((index + 1) * unit.bytes) / unit.elements));
    out.push({ index, value, raw: hex(bytes.subarray(start, end)) });
  }
  return out;
}

/**
 * The scale tensor that dequantizes `name`, if the model has one: `<w>_scale` and `<w>_scale_inv` (compressed-tensors,
 * DeepSeek FP8, both multiplied), Mistral's native `<m>.qscale_weight` beside `<m>.weight` (multiplied, as vLLM's
 * weight_scale), or bitsandbytes' `SCB` beside an int8 `weight` (divided by 127).
 */
export function scaleCompanions(name: string): Array<{ name: string; divisor: number }> {
  const module = name.endsWith('.weight') ? name.slice(0, -'weight'.length) : null;
  return [
    { name: `${name}_scale`, divisor: 1 },
    { name: `${name}_scale_inv`, divisor: 1 },
    ...(module !== null
      ? [
          { name: `${module}qscale_weight`, divisor: 1 },
          { name: `${module}SCB`, divisor: 127 },
        ]
      : []),
  ];
}
