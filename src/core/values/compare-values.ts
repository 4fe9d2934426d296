/**
 * "Compare values": how far tensor B is from tensor A, element by element over what was read (all of it, or the
 * same sampled rows of both): bit-identical bytes or not, max |b − a|, relative L2 ‖b − a‖ / ‖a‖ and cosine
 * a·b / (‖a‖‖b‖), accumulated in Float64. Pairs with a NaN or Inf on either side are counted and left out. Two
 * tensors of one dtype stored in one layout are identical when their bytes are; across dtypes or formats (BF16
 * against FP8, safetensors against GGUF) the decoded or dequantized values are compared, and "identical" means every
 * value is equal bit for bit after decoding (±0 told apart, NaN equal to NaN), which the result says in words.
 */
import { StackLayers, type StackLayer } from './layer-names';
import type { EmbeddingRowChanges } from './embedding-row-changes';
import type { ZeroLinesChange } from './zero-lines';
import type { OutlierColumnsChange } from './line-magnitudes';
import type { ChannelScales } from './channel-scales';
import type { ChangeRank } from './change-rank';
import type { ExpertChanges } from './expert-changes';
import type { ExpertChangeMap } from './expert-map';

export interface ValueComparison {
  tensor: string;
  /**
   * Same bytes (`identicalBy: "bytes"`) or the same decoded values (`"values"`) over what was read; with
   * `basis: "sampled"`, over the sample only.
   */
  identical: boolean;
  /** How `identical` was established: bytes when both sides share a dtype and a layout, else decoded values. */
  identicalBy: 'bytes' | 'values';
  /** How the values were obtained, in words: "dequantizing Q8_0 and decoding BF16". */
  decodedBy: string;
  /** How the two sides were lined up when not element for element (GGUF rows put back in order, a norm's + 1). */
  note: string | null;
  basis: 'all' | 'sampled';
  dtypeA: string;
  dtypeB: string;
  elements: number;
  nonFinitePairs: number;
  maxAbs: number;
  relL2: number | null;
  cosine: number | null;
  /** The token embedding compared whole: its rows, token by token (embedding-row-changes.ts). */
  rows?: EmbeddingRowChanges;
  /** Rows and columns all zeros on one side only, compared element for element (zero-lines.ts); absent: none. */
  zeroLines?: ZeroLinesChange;
  /** A matrix's outlier input channels on one side only, compared element for element (line-magnitudes.ts). */
  outlierColumns?: OutlierColumnsChange;
  /** The change is one factor per channel or for the whole tensor (channel-scales.ts), with who undoes it. */
  channelScales?: ChannelScales;
  /** A changed matrix: the singular values of B − A over an even spread of its rows (change-rank.ts). */
  changeRank?: ChangeRank;
  /** A changed stack of experts, expert by expert (expert-changes.ts). */
  experts?: ExpertChanges;
}

/** One adapted module against the base weight it changes. */
export interface LoraRelativeModule {
  module: string;
  /** What the module adapts, as the LoRA section names targets (q_proj, attn1_to_k). */
  target: string;
  /** The base tensor, as the base names it. */
  base: string;
  /** ‖ΔW‖_F = scale · ‖B·A‖_F, from the adapter's factors. */
  norm: number;
  /** ‖W‖_F of the base weight (estimated from a row sample when `sampled`). */
  baseNorm: number;
  /** norm / baseNorm: how far the adapter moves this weight, relative to it. */
  relative: number;
  sampled: boolean;
}

/** A LoRA against its base: how far each module moves its weight, relative to that weight. */
export interface LoraRelativeUpdates {
  adapterSide: 'a' | 'b';
  modules: LoraRelativeModule[];
  /** Mean relative update per layer, in layer order. */
  byLayer: Array<StackLayer & { relative: number; modules: number }>;
  /** Modules that fit but were not measured (a factor layout without a product, the adapter's work bound, a base weight not decoded), a few with the reason. */
  unmeasured: number;
  unmeasuredExamples: Array<{ module: string; reason: string }>;
}

/** One module two LoRAs both adapt, update against update (lora-pair.ts). */
export interface LoraPairModule {
  module: string;
  target: string;
  /** ‖ΔW‖_F on side A and on side B. */
  normA: number;
  normB: number;
  /** ⟨ΔW_A, ΔW_B⟩ / (‖ΔW_A‖·‖ΔW_B‖); null when either is zero. */
  cosine: number | null;
  /** ‖ΔW_B − ΔW_A‖ / ‖ΔW_A‖; null when ΔW_A is zero. */
  relDiff: number | null;
}

/** Two LoRAs compared as updates. */
export interface LoraPairComparison {
  modules: LoraPairModule[];
  /** Mean relative difference and cosine per layer, in layer order. */
  byLayer: Array<StackLayer & { relDiff: number; cosine: number; modules: number }>;
  /** Modules one side adapts and the other does not (or with other sizes). */
  onlyA: number;
  onlyB: number;
  unmeasured: number;
  unmeasuredExamples: Array<{ module: string; reason: string }>;
}

export interface ValuesComparisonResult {
  tensors: ValueComparison[];
  /** Pairs not compared, each with the reason in words. */
  skipped: SkippedValuePair[];
  byLayer: Array<StackLayer & { relL2: number; tensors: number }>;
  /** When one side is a LoRA that fits the other: each module's update relative to its base weight. */
  lora?: LoraRelativeUpdates;
  /** When both sides are LoRAs: each module both adapt, update against update. */
  loraPair?: LoraPairComparison;
  /** A mixture of experts: which experts of which layers changed (expert-map.ts). */
  expertMap?: ExpertChangeMap;
  bytes: number;
  /** False when cancelled: `tensors` holds those compared so far. */
  done: boolean;
  ms: number;
}

export interface SkippedValuePair {
  tensor: string;
  reason: string;
}

/** How a side's values come out of its bytes: dequantized (a block type, or scaled by a companion) or decoded. */
export function decodingOf(dtype: string, dequantized: boolean): string {
  return `${dequantized ? 'dequantizing' : 'decoding'} ${dtype}`;
}

/** "values equal after dequantizing Q8_0 and decoding BF16", "identical bytes"… : the verdict as a user reads it. */
export function verdictText(entry: Pick<ValueComparison, 'identical' | 'identicalBy' | 'decodedBy'>): string {
  if (entry.identicalBy === 'bytes') {
    return entry.identical ? 'identical bytes' : 'bytes differ';
  }
  return `values ${entry.identical ? 'equal' : 'differ'} after ${entry.decodedBy}`;
}

export class DiffAccumulator {
  private sameBytes = true;
  private sameValues = true;
  private maxAbs = 0;
  private diff2 = 0;
  private a2 = 0;
  private b2 = 0;
  private ab = 0;
  private elements = 0;
  private nonFinite = 0;

  constructor(readonly sameDtype: boolean) {}

  addBytes(a: Uint8Array, b: Uint8Array): void {
    if (!this.sameBytes || a.length !== b.length) {
      this.sameBytes = false;
      return;
    }
    for (let i = 0; i < a.length; i++) {
      if (a[i] !== b[i]) {
        this.sameBytes = false;
        return;
      }
    }
  }

  addValues(a: ArrayLike<number>, b: ArrayLike<number>): void {
    const n = Math.min(a.length, b.length);
    let maxAbs = this.maxAbs;
    let diff2 = 0;
    let a2 = 0;
    let b2 = 0;
    let ab = 0;
    let nonFinite = 0;
    let sameValues = this.sameValues;
    for (let i = 0; i < n; i++) {
      const x = a[i];
      const y = b[i];
      const d = y - x;
      // Bit-for-bit equal after decoding: ±0 told apart, NaN matches NaN.
      if (sameValues && (x === y ? x === 0 && 1 / x !== 1 / y : x === x || y === y)) {
        sameValues = false;
      }
      if (d - d !== 0) {
        nonFinite++;
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
    this.sameValues = sameValues && a.length === b.length;
    this.maxAbs = maxAbs;
    this.diff2 += diff2;
    this.a2 += a2;
    this.b2 += b2;
    this.ab += ab;
    this.elements += n;
    this.nonFinite += nonFinite;
  }

  result(
    tensor: string,
    dtypeA: string,
    dtypeB: string,
    sampled: boolean,
    how: { decodedBy: string; note: string | null } = { decodedBy: `decoding ${dtypeA}`, note: null },
  ): ValueComparison {
    return {
      tensor,
      identical: this.sameDtype ? this.sameBytes : this.sameValues,
      identicalBy: this.sameDtype ? 'bytes' : 'values',
      decodedBy: how.decodedBy,
      note: how.note,
      basis: sampled ? 'sampled' : 'all',
      dtypeA,
      dtypeB,
      elements: this.elements,
      nonFinitePairs: this.nonFinite,
      maxAbs: this.maxAbs,
      relL2: this.a2 > 0 ? Math.sqrt(this.diff2) / Math.sqrt(this.a2) : this.diff2 === 0 ? 0 : null,
      cosine: this.a2 > 0 && this.b2 > 0 ? this.ab / Math.sqrt(this.a2 * this.b2) : null,
    };
  }
}

/**
 * Means per layer of the figures each entry gives: the layer from `name` (a tensor's, or a module path with a dot
 * after it), entries outside numbered layers or with a null figure left out. Each stack of layers apart (Flux's
 * double_blocks and single_blocks, a vision tower's layers and the language model's), in the order the entries
 * name them first, each in layer order.
 */
export function meansByLayer<K extends string>(
  entries: ReadonlyArray<{ name: string; figures: Readonly<Record<K, number | null>> }>,
  keys: readonly K[],
): Array<StackLayer & { count: number; means: Record<K, number> }> {
  const slots = new StackLayers<{ sums: Record<string, number>; count: number }>(() => ({ sums: {}, count: 0 }));
  for (const { name, figures } of entries) {
    if (keys.some((key) => figures[key] === null)) {
      continue;
    }
    const slot = slots.at(name);
    if (slot === null) {
      continue;
    }
    for (const key of keys) {
      slot.sums[key] = (slot.sums[key] ?? 0) + (figures[key] as number);
    }
    slot.count++;
  }
  return slots.inOrder().map(({ stack, layer, slot }) => ({
    stack,
    layer,
    count: slot.count,
    means: Object.fromEntries(keys.map((key) => [key, slot.sums[key] / slot.count])) as Record<K, number>,
  }));
}

/** Mean relative L2 change per layer, in layer order: the chart of which blocks a finetune moved. */
export function changeByLayer(compared: readonly ValueComparison[]): ValuesComparisonResult['byLayer'] {
  return meansByLayer(
    compared.map((entry) => ({ name: entry.tensor, figures: { relL2: entry.relL2 } })),
    ['relL2'],
  ).map(({ stack, layer, count, means }) => ({ stack, layer, relL2: means.relL2, tensors: count }));
}

/** Mean relative update per layer (`layers.N.`, `blk.N.` in the adapter's module path), in layer order. */
export function loraRelativeByLayer(modules: readonly LoraRelativeModule[]): LoraRelativeUpdates['byLayer'] {
  return meansByLayer(
    modules.map((entry) => ({ name: `${entry.module}.`, figures: { relative: entry.relative } })),
    ['relative'],
  ).map(({ stack, layer, count, means }) => ({ stack, layer, relative: means.relative, modules: count }));
}
