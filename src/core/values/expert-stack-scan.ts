/**
 * "Scan all values" and "Read values" of a stack of experts, expert by expert: a tensor [E, …] holding a layer's
 * experts (llama.cpp's `ffn_*_exps`, gpt-oss's and Llama 4's `experts.*`, MLX's `switch_mlp`) is one tensor to them,
 * so an expert all zeros, one holding the stack's only NaN, experts that are copies of one another or one whose
 * scale is far from the others' hides in the stack's figures. Per expert: count, zeros, NaN and infinities, the
 * moments and (from decoded values) the abs-max, from which:
 * - experts all zeros (an expert dropped, pruned, or never written);
 * - experts with a NaN or an infinity;
 * - experts holding the same values, by the rule duplicate-tensors.ts uses for whole tensors: an upcycled model
 *   (each expert started as a copy of the dense FFN) whose experts never diverged, or a merge that filled some
 *   experts with one source;
 * - experts whose root mean square is over EXPERT_RMS_FACTOR× the stack's median, or under its reciprocal.
 * Separate tensors per expert need none of this: the scan's own lists and copies already see each. Pure.
 */
import { isPackedExpertTensor } from '../analysis/architecture-stack';
import { MIN_COMPARED_ELEMENTS } from './duplicate-tensors';
import { median } from '../median';
import { MAX_STACKED_EXPERTS } from './values-limits';
import { forEachExpertSpan } from './expert-spans';

/** An expert's RMS this many times the stack's median (or under its reciprocal) stands out. */
export const EXPERT_RMS_FACTOR = 10;

/** A median over fewer experts than this says nothing. */
const MIN_EXPERTS_FOR_MEDIAN = 3;

/** Relative agreement of two experts' mean and std to count as the same values (sums taken in another order). */
const MOMENT_TOLERANCE = 1e-12;

/** Experts named per list in the view's words; the report has them all. */
export const MAX_EXPERTS_LISTED = 64;

/** What the scan found in one stack's experts. */
export interface ExpertStackFigures {
  experts: number;
  /** Experts whose every value is zero (±0). */
  zeroExperts: number[];
  /** Experts holding a NaN or an infinity. */
  nonFiniteExperts: number[];
  /** Groups of two or more experts holding the same values, each ascending, by their first expert. */
  copies: number[][];
  /** Experts whose RMS is over EXPERT_RMS_FACTOR× the stack's median RMS or under its reciprocal, largest ratio out first. */
  rmsOutliers: Array<{ expert: number; rms: number; ratio: number }>;
  /** The median RMS of the stack's experts with a finite value other than zero; null with fewer than three. */
  medianRms: number | null;
  /** Each expert's RMS over its finite values, in expert order; null for one with none (or, sampled, none read). */
  rms: Array<number | null>;
}

/** A stack with an expert that stands out, as the scan lists it. */
export interface ExpertStackScan extends ExpertStackFigures {
  tensor: string;
  /** Its row in the load's table. */
  row: number;
}

/** Experts along the first dim of tensor `name` of `shape`, when it stacks 2 to MAX_STACKED_EXPERTS; else null. */
export function stackedExperts(name: string, shape: readonly number[]): number | null {
  const experts = shape[0];
  return isPackedExpertTensor(name, shape.length) && experts >= 2 && experts <= MAX_STACKED_EXPERTS ? experts : null;
}

/** Whether the figures name any expert. */
export function standsOut(figures: ExpertStackFigures): boolean {
  const { zeroExperts, nonFiniteExperts, copies, rmsOutliers } = figures;
  return zeroExperts.length + nonFiniteExperts.length + copies.length + rmsOutliers.length > 0;
}

interface CodeKinds {
  finite: Float32Array;
  isZero: Uint8Array;
  isNonFinite: Uint8Array;
}

const CODE_KINDS = new WeakMap<Float32Array, CodeKinds>();

/** Per code of a `codeTable`: its value with NaN and infinities as 0, and 1 where it is zero or not finite. */
function codeKinds(table: Float32Array): CodeKinds {
  let kinds = CODE_KINDS.get(table);
  if (!kinds) {
    kinds = {
      finite: table.map((x) => (x - x === 0 ? x : 0)),
      isZero: Uint8Array.from(table, (x) => (x === 0 ? 1 : 0)),
      isNonFinite: Uint8Array.from(table, (x) => (x - x === 0 ? 0 : 1)),
    };
    CODE_KINDS.set(table, kinds);
  }
  return kinds;
}

/**
 * One stack's per-expert sums, fed as the scan reads the stack (TensorScanAccumulator): its decoded values, or the
 * codes of an 8- or 16-bit float, looked up and never decoded into a copy.
 */
export class ExpertSums {
  /** The sums for tensor `name` of `shape` holding `elements` values when it is a stack of experts; else null. */
  static forTensor(name: string, shape: readonly number[], elements: number): ExpertSums | null {
    const experts = stackedExperts(name, shape);
    return experts === null ? null : new ExpertSums(experts, elements / experts);
  }

  readonly count: Float64Array;
  readonly zeros: Float64Array;
  readonly nonFinite: Float64Array;
  readonly sum: Float64Array;
  readonly sum2: Float64Array;
  readonly absMax: Float64Array;

  constructor(
    readonly experts: number,
    readonly perExpert: number,
  ) {
    [this.count, this.zeros, this.nonFinite, this.sum, this.sum2, this.absMax] = Array.from(
      { length: 6 },
      () => new Float64Array(experts),
    );
  }

  /** Values from element `first` of the stack on, or with `table` the codes of an 8- or 16-bit float. */
  add(items: ArrayLike<number>, first: number, table: Float32Array | null): void {
    forEachExpertSpan(first, items.length, this.perExpert, this.experts, (expert, start, end) => {
      if (table) {
        this.addCodes(expert, items, table, start, end);
      } else {
        this.addValues(expert, items, start, end);
      }
    });
  }

  /**
   * The codes path, lookups in tables made once per dtype: the value with NaN and infinities as 0, and 1 or 0 for a
   * zero and for a non-finite code, summed so the loop has no branch and no counter in memory; abs-max stays 0
   * (copies are told by the rest).
   */
  private addCodes(expert: number, codes: ArrayLike<number>, table: Float32Array, start: number, end: number): void {
    const { finite, isZero, isNonFinite } = codeKinds(table);
    let zeros = 0;
    let nonFinite = 0;
    // Two lanes of sums, so each add need not wait on the one before (the loop is bound by their latency).
    let sumA = 0;
    let sumB = 0;
    let sum2A = 0;
    let sum2B = 0;
    let i = start;
    for (; i + 1 < end; i += 2) {
      const a = codes[i];
      const b = codes[i + 1];
      const x = finite[a];
      const y = finite[b];
      sumA += x;
      sumB += y;
      sum2A += x * x;
      sum2B += y * y;
      zeros += isZero[a] + isZero[b];
      nonFinite += isNonFinite[a] + isNonFinite[b];
    }
    if (i < end) {
      const x = finite[codes[i]];
      sumA += x;
      sum2A += x * x;
      zeros += isZero[codes[i]];
      nonFinite += isNonFinite[codes[i]];
    }
    this.note(expert, end - start, zeros, nonFinite, sumA + sumB, sum2A + sum2B, this.absMax[expert]);
  }

  private addValues(expert: number, values: ArrayLike<number>, start: number, end: number): void {
    let zeros = 0;
    let nonFinite = 0;
    let sum = 0;
    let sum2 = 0;
    let absMax = this.absMax[expert];
    for (let i = start; i < end; i++) {
      const x = values[i];
      if (x === 0) {
        zeros++;
      } else if (x - x !== 0) {
        nonFinite++;
        continue;
      }
      sum += x;
      sum2 += x * x;
      const m = x < 0 ? -x : x;
      if (m > absMax) {
        absMax = m;
      }
    }
    this.note(expert, end - start, zeros, nonFinite, sum, sum2, absMax);
  }

  private note(
    expert: number,
    count: number,
    zeros: number,
    nonFinite: number,
    sum: number,
    sum2: number,
    absMax: number,
  ): void {
    this.count[expert] += count;
    this.zeros[expert] += zeros;
    this.nonFinite[expert] += nonFinite;
    this.sum[expert] += sum;
    this.sum2[expert] += sum2;
    this.absMax[expert] = absMax;
  }
}

/**
 * What the experts read whole show; every list empty when nothing stands out. `sampled`: the values are a row sample
 * (a remote Read values), so each expert read at all counts, over its rows read, and copies are not looked for (two
 * experts' samples hold different rows).
 */
export function expertStackFigures(sums: ExpertSums, sampled = false): ExpertStackFigures {
  const experts = Array.from({ length: sums.experts }, (_, expert) => expert).filter((expert) =>
    sampled ? sums.count[expert] > 0 : sums.count[expert] === sums.perExpert,
  );
  const zeroExperts = experts.filter((expert) => sums.zeros[expert] === sums.count[expert]);
  const nonFiniteExperts = experts.filter((expert) => sums.nonFinite[expert] > 0);
  const rmsOf = expertRms(sums);
  const rms = (expert: number) => rmsOf[expert] ?? 0;
  // Experts with a finite value other than zero: the ones an RMS, a median and a copy mean something for.
  const live = experts.filter((expert) => sums.count[expert] - sums.nonFinite[expert] > sums.zeros[expert]);
  const medianRms = live.length >= MIN_EXPERTS_FOR_MEDIAN ? median(live.map(rms)) : null;
  const rmsOutliers =
    medianRms !== null && medianRms > 0
      ? live
          .map((expert) => ({ expert, rms: rms(expert), ratio: rms(expert) / medianRms }))
          .filter(({ ratio }) => ratio > EXPERT_RMS_FACTOR || ratio < 1 / EXPERT_RMS_FACTOR)
          .sort((x, y) => Math.abs(Math.log(y.ratio)) - Math.abs(Math.log(x.ratio)))
      : [];
  const copies = !sampled && sums.perExpert >= MIN_COMPARED_ELEMENTS ? copyGroups(sums, live) : [];
  return {
    experts: sums.experts,
    zeroExperts,
    nonFiniteExperts,
    copies,
    rmsOutliers,
    medianRms,
    rms: rmsOf,
  };
}

/** Each expert's root mean square over its finite values read, in expert order; null for one not read. */
function expertRms(sums: ExpertSums): Array<number | null> {
  return Array.from({ length: sums.experts }, (_, expert) => {
    const finite = sums.count[expert] - sums.nonFinite[expert];
    return finite > 0 ? Math.sqrt(sums.sum2[expert] / finite) : null;
  });
}

function close(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= MOMENT_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

/** Experts with equal counts, zeros, non-finite counts and abs-max, and mean and std within MOMENT_TOLERANCE. */
function copyGroups(sums: ExpertSums, experts: readonly number[]): number[][] {
  const moments = (expert: number) => {
    const n = sums.count[expert] - sums.nonFinite[expert];
    const mean = sums.sum[expert] / n;
    return { mean, std: Math.sqrt(Math.max(0, sums.sum2[expert] / n - mean * mean)) };
  };
  const buckets = new Map<string, number[]>();
  // An expert with no finite value has no moments to compare (NaN, which equals nothing, not even itself).
  for (const expert of experts.filter((e) => sums.count[e] > sums.nonFinite[e])) {
    const key = `${sums.zeros[expert]}|${sums.nonFinite[expert]}|${sums.absMax[expert]}`;
    const bucket = buckets.get(key);
    if (bucket) {
      bucket.push(expert);
    } else {
      buckets.set(key, [expert]);
    }
  }
  const groups: number[][] = [];
  for (const bucket of buckets.values()) {
    const left = [...bucket];
    while (left.length > 1) {
      const first = moments(left[0]);
      // The first expert always takes its own group, so each turn of the loop shrinks `left`.
      const group = left.filter((expert, at) => {
        const other = moments(expert);
        return at === 0 || (close(first.mean, other.mean) && close(first.std, other.std));
      });
      if (group.length > 1 && first.std > 0) {
        groups.push(group);
      }
      const taken = new Set(group);
      left.splice(0, left.length, ...left.filter((expert) => !taken.has(expert)));
    }
  }
  return groups.sort((x, y) => x[0] - y[0]);
}
