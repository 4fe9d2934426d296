/**
 * "Scan all values": every tensor's counts and extremes, then what stands out — tensors holding NaN or ±Inf, tensors
 * whose every value is zero, rows and columns all zeros, matrices with input channels far above the rest, and
 * outliers: a tensor whose abs-max is far above the other tensors of the same role across layers (the same name with
 * its numbers blanked: `model.layers.#.mlp.down_proj.weight`).
 */
import {
  ExpertSums,
  expertStackFigures,
  standsOut,
  type ExpertStackFigures,
  type ExpertStackScan,
} from './expert-stack-scan';
import { codesOf, codeTable, decodeValues, MIN_NORMAL } from './decode';
import { StatsAccumulator, type ValueStats } from './value-stats';
import { splitAdapterTensor } from '../analysis/lora-markers';
import { median } from '../median';
import type { LoraUpdates } from './lora-update';
import type { UntrainedTokens } from './untrained-tokens';
import { duplicateGroups, duplicateTensors, type DuplicateTensors } from './duplicate-tensors';
import { expertScaleMap, type ExpertScaleMap } from './expert-scale-map';
import { numbersAsPlaceholders } from './layer-names';
import { initialNorms, type InitialNorms } from './initial-norms';
import { ZeroLinesTracker, type ZeroLines } from './zero-lines';
import { matrixShape } from './grid';
import { NonFiniteLocator, type NonFinitePositions } from './non-finite-positions';
import { LineMagnitudesTracker, withoutProfile, type LineMagnitudeSpread } from './line-magnitudes';
import { COLUMN_SCAN_ROWS } from './values-limits';

/** How far above its role's median abs-max a tensor must be to be named an outlier. */
export const OUTLIER_FACTOR = 10;

/** A role needs this many tensors for its median to mean something. */
export const OUTLIER_MIN_ROLE_SIZE = 3;

/** Tensors listed per kind in the report and the view; the counts stay exact. */
export const MAX_SCAN_LISTED = 200;

export interface ScanTensor {
  tensor: string;
  /** Its row in the load's table, to show it there. */
  row: number;
  dtype: string;
  count: number;
  nan: number;
  posInf: number;
  negInf: number;
  zeros: number;
  absMax: number | null;
  mean: number | null;
  std: number | null;
  /** Its rows and columns all zeros (zero-lines.ts); absent when none is. */
  zeroLines?: ZeroLines;
  /** Where its NaN and infinities are (non-finite-positions.ts); absent when it has none. */
  nonFinite?: NonFinitePositions;
  /** A matrix's columns over 10× the median column's abs-max (line-magnitudes.ts); absent when none is. */
  outlierColumns?: ScanOutlierColumns;
  /** A stack of experts read whole: what its experts show, expert by expert (expert-stack-scan.ts). */
  experts?: ExpertStackFigures;
}

/** A matrix's columns far above the rest, over the rows the scan looked at. */
export interface ScanOutlierColumns {
  /** Rows looked at: 0, rowStride, 2 · rowStride, …, at most COLUMN_SCAN_ROWS of the tensor's `rows`. */
  rowsRead: number;
  rowStride: number;
  rows: number;
  columns: Omit<LineMagnitudeSpread, 'profile'> & { rowsPeakingInOutliers: number };
}

export interface ScanOutlier {
  tensor: string;
  row: number;
  absMax: number;
  /** Median abs-max of the tensors of its role. */
  roleMedian: number;
  ratio: number;
}

export interface ValueScan {
  /** False when cancelled or stopped by an error before the last tensor. */
  done: boolean;
  /** Tensors scanned, and bytes read. */
  tensors: number;
  bytes: number;
  /** Tensors whose values are not decoded or not located (named in `skippedNames`, capped). */
  skipped: number;
  skippedNames: string[];
  nanTensors: ScanTensor[];
  infTensors: ScanTensor[];
  allZeroTensors: ScanTensor[];
  /**
   * Tensors with rows or columns all zeros (pruned or dead neurons, rows never written), but not all zeros, and not
   * the token embedding `untrainedTokens` measured.
   */
  zeroLineTensors: ScanTensor[];
  /** Matrices with input channels (columns) far above the rest: outlier features, which set per-row scales. */
  outlierColumnTensors: ScanTensor[];
  outliers: ScanOutlier[];
  /**
   * LoRA modules (an adapter's, or unmerged ones inside a model) whose up factor (lora_B, lora_up, …) was scanned,
   * and how many of those are all zeros: trainers start that factor at zero, so such a module changes nothing.
   * Null when no up factor was scanned.
   */
  zeroUpFactors: { modules: number; zero: number; examples: string[] } | null;
  /** How much each LoRA module changes its weight (‖scale · B·A‖_F); null without LoRA factors. */
  loraUpdates: LoraUpdates | null;
  /** Token embedding rows never trained (untrained-tokens.ts); null when none, or no embedding was read whole. */
  untrainedTokens: UntrainedTokens | null;
  /** Tensors that hold the same values, and layers that repeat earlier ones (duplicate-tensors.ts); null: none. */
  duplicates: DuplicateTensors | null;
  /**
   * Stacks of experts with an expert that stands out: all zeros, NaN or infinities, copies of one another, or a
   * scale far from the others' (expert-stack-scan.ts).
   */
  expertStacks: ExpertStackScan[];
  /** Stacks of experts read whole, expert by expert. */
  expertStacksScanned: number;
  /** Every expert's scale against its layer's others, layers × experts (expert-scale-map.ts); null: no experts. */
  expertScaleMap: ExpertScaleMap | null;
  /** Norm weights still at their initial 1.0 (initial-norms.ts); null when none is, or fewer than two were scanned. */
  initialNorms: InitialNorms | null;
  /** Every scanned tensor's figures, for the compare view and the report's per-tensor lines. */
  perTensor: ScanTensor[];
  ms: number;
}

/** What the scan keeps of one tensor's values. */
export interface TensorScanFigures {
  stats: ValueStats;
  zeroLines: ZeroLines | null;
  nonFinite: NonFinitePositions | null;
  outlierColumns: ScanOutlierColumns | null;
  experts: ExpertStackFigures | null;
}

/**
 * One tensor's scan figures (counts, extremes, moments; no sketch; rows and columns all zeros; where its NaN and
 * infinities are; a matrix's outlier columns), fed its bytes in whole units. 8- and 16-bit floats are counted by
 * code, one integer increment per value, when the tensor has at least as many values as the dtype has codes; a
 * smaller one (a norm, a bias) is decoded instead, since folding 65,536 counters would cost more than it.
 */
export class TensorScanAccumulator {
  private readonly stats: StatsAccumulator;
  private readonly table: Float32Array | null;
  private readonly lines: ZeroLinesTracker;
  private readonly locator: NonFiniteLocator;
  private readonly magnitudes: LineMagnitudesTracker;
  private readonly cols: number;
  private readonly rows: number;
  private readonly experts: ExpertSums | null;

  /** `name` marks a stack of experts, read expert by expert too (expert-stack-scan.ts). */
  constructor(
    private readonly dtype: string,
    elements: number,
    shape: readonly number[],
    name = '',
  ) {
    this.stats = new StatsAccumulator(MIN_NORMAL[dtype] ?? 0, false);
    const table = codeTable(dtype);
    this.table = table !== null && elements >= table.length ? table : null;
    this.lines = new ZeroLinesTracker(shape);
    const { rows, cols } = matrixShape(shape);
    this.cols = cols;
    this.rows = rows;
    this.locator = new NonFiniteLocator(shape, rows, cols);
    this.magnitudes = new LineMagnitudesTracker(shape, COLUMN_SCAN_ROWS);
    this.experts = ExpertSums.forTensor(name, shape, elements);
  }

  /** Whole units of the tensor, starting at element `firstElement`. */
  add(bytes: Uint8Array, firstElement: number): void {
    // Positions are looked for only in a chunk that held a NaN or an infinity: a finite tensor pays one sum per chunk.
    const nonFiniteBefore = this.stats.nonFiniteSoFar();
    const { table } = this;
    if (table) {
      const codes = codesOf(this.dtype, bytes);
      this.stats.addCodes(codes, table);
      this.lines.addCodes(codes, table, firstElement);
      this.magnitudes.addCodes(codes, table, firstElement);
      this.experts?.add(codes, firstElement, table);
      if (this.stats.nonFiniteSoFar() > nonFiniteBefore) {
        this.locate(codes, table, firstElement);
      }
      return;
    }
    const values = decodeValues(this.dtype, bytes);
    if (values) {
      this.stats.add(values);
      this.lines.add(values, firstElement);
      this.magnitudes.add(values, firstElement);
      this.experts?.add(values, firstElement, null);
      if (this.stats.nonFiniteSoFar() > nonFiniteBefore) {
        this.locate(values, null, firstElement);
      }
    }
  }

  /**
   * Tells the locator of each NaN and infinity among `items` (values, or codes of `table`), row by row, leaving a row
   * once nothing more of it can change the positions or the count of rows.
   */
  private locate(items: ArrayLike<number>, table: Float32Array | null, first: number): void {
    const { cols, locator } = this;
    const n = items.length;
    let i = 0;
    while (i < n) {
      const row = Math.floor((first + i) / cols);
      const rowEnd = Math.min(n, (row + 1) * cols - first);
      for (let j = i; j < rowEnd && !locator.settled(first + j, row); j++) {
        const x = table === null ? items[j] : table[items[j]];
        if (!(x - x === 0)) {
          locator.note(first + j, x);
        }
      }
      i = rowEnd;
    }
  }

  result(): TensorScanFigures {
    return {
      stats: this.stats.stats(),
      zeroLines: this.lines.result(true),
      nonFinite: this.locator.result(),
      outlierColumns: this.outlierColumns(),
      experts: this.experts && expertStackFigures(this.experts),
    };
  }

  private outlierColumns(): ScanOutlierColumns | null {
    const columns = this.magnitudes.result()?.columns;
    if (!columns || columns.outlierCount === 0) {
      return null;
    }
    const { rowStride } = this.magnitudes;
    return { rowsRead: Math.ceil(this.rows / rowStride), rowStride, rows: this.rows, columns: withoutProfile(columns) };
  }
}

export function scanTensor(
  row: number,
  tensor: string,
  dtype: string,
  { stats, zeroLines, nonFinite, outlierColumns, experts }: TensorScanFigures,
): ScanTensor {
  const scanned: ScanTensor = {
    tensor,
    row,
    dtype,
    count: stats.count,
    nan: stats.nan,
    posInf: stats.posInf,
    negInf: stats.negInf,
    zeros: stats.zeros,
    absMax: stats.absMax,
    mean: stats.mean,
    std: stats.std,
  };
  if (zeroLines) {
    scanned.zeroLines = zeroLines;
  }
  if (nonFinite) {
    scanned.nonFinite = nonFinite;
  }
  if (outlierColumns) {
    scanned.outlierColumns = outlierColumns;
  }
  if (experts) {
    scanned.experts = experts;
  }
  return scanned;
}

/** The role of a tensor: its name with its layer, expert and block numbers as `#`. */
export function tensorRole(name: string): string {
  return numbersAsPlaceholders(name);
}

/**
 * Items whose figure is over OUTLIER_FACTOR× the median of their group (at least OUTLIER_MIN_ROLE_SIZE items, a
 * positive median), largest ratio first: the scan's value outliers by role, the LoRA updates by target.
 */
export function outliersByGroup<T>(
  items: readonly T[],
  groupOf: (item: T) => string,
  figure: (item: T) => number,
): Array<{ item: T; groupMedian: number; ratio: number }> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groupOf(item);
    groups.set(group, [...(groups.get(group) ?? []), item]);
  }
  const outliers: Array<{ item: T; groupMedian: number; ratio: number }> = [];
  for (const members of groups.values()) {
    const groupMedian = median(members.map(figure)) ?? 0;
    if (members.length < OUTLIER_MIN_ROLE_SIZE || groupMedian <= 0) {
      continue;
    }
    for (const item of members) {
      const ratio = figure(item) / groupMedian;
      if (ratio > OUTLIER_FACTOR) {
        outliers.push({ item, groupMedian, ratio });
      }
    }
  }
  return outliers.sort((a, b) => b.ratio - a.ratio);
}

/** What stands out among the scanned tensors. */
export function summarizeScan(
  perTensor: ScanTensor[],
  extra: {
    done: boolean;
    bytes: number;
    skippedNames: string[];
    ms: number;
    loraUpdates?: LoraUpdates | null;
    untrainedTokens?: UntrainedTokens | null;
  },
): ValueScan {
  const outliers: ScanOutlier[] = outliersByGroup(
    perTensor.filter((entry) => entry.absMax !== null),
    (entry) => tensorRole(entry.tensor),
    (entry) => entry.absMax as number,
  ).map(({ item, groupMedian, ratio }) => ({
    tensor: item.tensor,
    row: item.row,
    absMax: item.absMax as number,
    roleMedian: groupMedian,
    ratio,
  }));
  const copies = duplicateGroups(perTensor);
  return {
    zeroUpFactors: zeroUpFactors(perTensor),
    loraUpdates: extra.loraUpdates ?? null,
    untrainedTokens: extra.untrainedTokens ?? null,
    expertStacks: perTensor
      .flatMap(({ tensor, row, experts }) => (experts && standsOut(experts) ? [{ tensor, row, ...experts }] : []))
      .slice(0, MAX_SCAN_LISTED),
    expertStacksScanned: perTensor.filter((entry) => entry.experts).length,
    expertScaleMap: expertScaleMap(perTensor, new Set(copies.flat())),
    duplicates: duplicateTensors(perTensor, copies),
    initialNorms: initialNorms(perTensor),
    done: extra.done,
    tensors: perTensor.length,
    bytes: extra.bytes,
    skipped: extra.skippedNames.length,
    skippedNames: extra.skippedNames.slice(0, MAX_SCAN_LISTED),
    nanTensors: perTensor.filter((entry) => entry.nan > 0).slice(0, MAX_SCAN_LISTED),
    infTensors: perTensor.filter((entry) => entry.posInf + entry.negInf > 0).slice(0, MAX_SCAN_LISTED),
    allZeroTensors: perTensor
      .filter((entry) => entry.count > 0 && entry.zeros === entry.count)
      .slice(0, MAX_SCAN_LISTED),
    zeroLineTensors: perTensor
      .filter(
        (entry) =>
          entry.zeroLines !== undefined && entry.zeros < entry.count && entry.tensor !== extra.untrainedTokens?.tensor,
      )
      .slice(0, MAX_SCAN_LISTED),
    outlierColumnTensors: perTensor.filter((entry) => entry.outlierColumns).slice(0, MAX_SCAN_LISTED),
    outliers: outliers.slice(0, MAX_SCAN_LISTED),
    perTensor,
    ms: extra.ms,
  };
}

/** The up factors among the scanned tensors, and which are all zeros (ValueScan.zeroUpFactors). */
function zeroUpFactors(perTensor: readonly ScanTensor[]): ValueScan['zeroUpFactors'] {
  let modules = 0;
  let zero = 0;
  const examples: string[] = [];
  for (const entry of perTensor) {
    // Every up factor's name says lora (lora_B, lora_up, lora.up, qkv_lora1.up); the split runs on those only.
    if (!entry.tensor.includes('lora') || entry.count === 0 || splitAdapterTensor(entry.tensor)?.part.role !== 'up') {
      continue;
    }
    modules++;
    if (entry.zeros === entry.count) {
      zero++;
      if (examples.length < MAX_SCAN_LISTED) {
        examples.push(entry.tensor);
      }
    }
  }
  return modules === 0 ? null : { modules, zero, examples };
}
