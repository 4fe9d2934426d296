/**
 * "Compare values" of a stack of experts, expert by expert: a tensor [E, …] holding every expert of a layer
 * (llama.cpp's `ffn_gate_exps`, gpt-oss's and Llama 4's `experts.gate_up_proj`, MLX's `switch_mlp`), or a GGUF
 * stack paired slice by slice with the per-expert tensors of a Hugging Face model. One figure for the whole stack
 * hides what a mixture-of-experts fine-tune did: an expert-specialized fine-tune (ESFT) trains the few experts a task
 * routes to and leaves the rest bit for bit as they were, and a merge or an upcycling may move some experts and not
 * others. Per expert, in Float64 as the whole tensor's figures: ‖b − a‖ / ‖a‖, the cosine, max |b − a| and the share
 * of its values that differ.
 */
import type { Decoded } from './decode';
import { wholeScale } from './channel-scales';
import { forEachExpertSpan } from './expert-spans';

export interface ExpertChange {
  expert: number;
  /** ‖b − a‖ / ‖a‖ over the expert's values read; 0 when both are all zeros, null when only A is. */
  relL2: number | null;
  cosine: number | null;
  maxAbs: number;
  /** Values that differ (bit for bit after decoding: ±0 told apart, NaN equal to NaN) over the values read. */
  changedShare: number;
  /** Values read: the expert's size, or the rows of it a remote sample read. */
  elements: number;
  /**
   * B's expert is A's times this one factor (channel-scales.ts wholeScale: the least-squares factor explains nine
   * tenths of the change and of B): a merge or an upcycling that scaled the expert; null otherwise.
   */
  scale: number | null;
}

export interface ExpertChanges {
  /** Experts in the stack: its first dimension, or the per-expert tensors paired with its slices. */
  experts: number;
  /** Experts with values read, in expert order: all of them, or those a remote sample reached. */
  read: ExpertChange[];
  /** Experts read whose every value is equal on both sides. */
  unchanged: number;
}

/**
 * Per-expert sums, one slot per expert, filled piece by piece as the comparison reads the stack. Its loop is the
 * whole tensor's (DiffAccumulator.addValues) but counts the values that differ, where that one stops testing at the
 * first: counting there made every comparison's pass ~20 % slower (Node, 16.8 M F32 values, 38 → 46 ms).
 */
export class ExpertChangesTracker {
  private readonly diff2: Float64Array;
  private readonly a2: Float64Array;
  private readonly b2: Float64Array;
  private readonly ab: Float64Array;
  private readonly maxAbs: Float64Array;
  private readonly elements: Float64Array;
  private readonly differing: Float64Array;

  /** `perExpert`: values in one expert's slice of the flattened stack. */
  constructor(
    readonly experts: number,
    private readonly perExpert: number,
  ) {
    [this.diff2, this.a2, this.b2, this.ab, this.maxAbs, this.elements, this.differing] = Array.from(
      { length: 7 },
      () => new Float64Array(experts),
    );
  }

  /** Values of the stack from its element `first` on, in row-major order: split where one expert ends. */
  add(a: Decoded, b: Decoded, first: number): void {
    forEachExpertSpan(first, Math.min(a.length, b.length), this.perExpert, this.experts, (expert, start, end) =>
      this.addTo(expert, a, b, start, end),
    );
  }

  /** Values of expert `expert` alone (a GGUF slice against that expert's own tensor). */
  addExpert(expert: number, a: Decoded, b: Decoded): void {
    if (expert >= 0 && expert < this.experts) {
      this.addTo(expert, a, b, 0, Math.min(a.length, b.length));
    }
  }

  private addTo(expert: number, a: Decoded, b: Decoded, start: number, end: number): void {
    let diff2 = 0;
    let a2 = 0;
    let b2 = 0;
    let ab = 0;
    let maxAbs = this.maxAbs[expert];
    let differing = 0;
    for (let i = start; i < end; i++) {
      const x = a[i];
      const y = b[i];
      // The whole tensor's test (compare-values.ts DiffAccumulator): ±0 told apart, NaN matches NaN.
      if (x === y ? x === 0 && 1 / x !== 1 / y : x === x || y === y) {
        differing++;
      }
      const d = y - x;
      if (d - d !== 0) {
        continue;
      }
      const m = d < 0 ? -d : d;
      if (m > maxAbs) {
        maxAbs = m;
      }
      diff2 += d * d;
      a2 += x * x;
      b2 += y * y;
      ab += x * y;
    }
    this.diff2[expert] += diff2;
    this.a2[expert] += a2;
    this.b2[expert] += b2;
    this.ab[expert] += ab;
    this.maxAbs[expert] = maxAbs;
    this.elements[expert] += end - start;
    this.differing[expert] += differing;
  }

  /** Every expert read, or null when fewer than two were (nothing to tell apart). */
  result(): ExpertChanges | null {
    const read: ExpertChange[] = [];
    let unchanged = 0;
    for (let expert = 0; expert < this.experts; expert++) {
      const elements = this.elements[expert];
      if (elements === 0) {
        continue;
      }
      const [a2, b2, diff2] = [this.a2[expert], this.b2[expert], this.diff2[expert]];
      if (this.differing[expert] === 0) {
        unchanged++;
      }
      const relL2 = a2 > 0 ? Math.sqrt(diff2) / Math.sqrt(a2) : diff2 === 0 ? 0 : null;
      read.push({
        expert,
        relL2,
        cosine: a2 > 0 && b2 > 0 ? this.ab[expert] / Math.sqrt(a2 * b2) : null,
        maxAbs: this.maxAbs[expert],
        changedShare: this.differing[expert] / elements,
        elements,
        scale: wholeScale(a2, this.ab[expert], b2, relL2),
      });
    }
    return read.length >= 2 ? { experts: this.experts, read, unchanged } : null;
  }
}
