/**
 * How much each LoRA module changes its weight: ‖ΔW‖_F with ΔW = scale · B·A, measured during "Scan all values"
 * without ever forming ΔW (out × in values). With the factors' r × r Gram matrices G_A = A·Aᵀ and G_B = Bᵀ·B,
 * ‖B·A‖²_F = trace(Aᵀ·Bᵀ·B·A) = trace(G_B·G_A) = Σ_ij G_B[i][j]·G_A[i][j] (both symmetric): (in + out) · r² / 2
 * multiply-adds per module instead of in · out · r. A conv factor flattens its kernel into `in`, as kohya merges one.
 *
 * The factors arrive as the scan reads them, in file order, each in pieces; a factor is decoded into one buffer,
 * its Gram taken when its last piece is in, and the buffer dropped. A module's norm is kept once both Grams are in.
 */
import {
  adapterNaming,
  factorPair,
  FACTOR_PAIRS,
  mayBeAdapterTensor,
  PEFT_NON_LOW_RANK_SUFFIXES,
  RE_GGUF_TOKEN_EMBEDDING,
  splitAdapterTensor,
  targetOf,
} from '../analysis/lora-markers';
import { moduleScale, type LoraScaling, type ModuleScale } from '../analysis/lora-scaling';
import { lycorisScale } from './lycoris-delta';
import { isPackedExpertsOwner } from '../analysis/lora-parameter-targets';
import type { LoraNaming } from '../analysis/report-sections';
import { decodeValues } from './decode';
import { productNorm, rankGram } from './lora-gram';
import { topSquaredSingularValue } from './lora-spectrum';
import {
  isLycorisModule,
  lycorisProduct,
  lycorisRows,
  planLycorisModule,
  type LycorisModulePlan,
} from './lycoris-update';
import {
  MAX_LORA_FACTOR_VALUES,
  MAX_LORA_UPDATE_WORK,
  MAX_PENDING_GRAM_BYTES,
  MAX_UNMEASURED_LISTED,
} from './values-limits';

export interface LoraModuleUpdate {
  module: string;
  /** What the module adapts, as the LoRA section names targets (q_proj, attn1_to_k, img_attn.qkv). */
  target: string;
  rank: number;
  alpha: number | null;
  scale: number;
  scaleSource: ModuleScale['source'];
  /** ‖ΔW‖_F = scale · ‖B·A‖_F. */
  norm: number;
  /** norm / √(out · in): the update's root mean square per weight, comparable across module sizes. */
  rms: number;
  /** ‖ΔW‖₂ = scale · σ_max(B·A): the most the update stretches any input. */
  spectralNorm: number;
  /** ‖ΔW‖²_F / ‖ΔW‖²₂, from 1 (one direction) to the rank (all equally); null for a zero update. */
  stableRank: number | null;
  outFeatures: number;
  inFeatures: number;
  /** The module's rows in the load: its down and up factors (a LyCORIS module's parts), and its `.alpha`. */
  rows: number[];
  /**
   * A LyCORIS module's form: ΔW = W1 ⊗ W2 (LoKr), (A1·B1) ⊙ (A2·B2) (LoHa) or B·mid·A (a Tucker LoCon); absent for
   * B·A.
   */
  lycoris?: LycorisModulePlan['kind'];
}

export interface LoraUpdates {
  /** Measured modules in the order of their down factors' rows. */
  modules: LoraModuleUpdate[];
  /** Modules not measured, and a few of them with the reason. */
  unmeasured: number;
  unmeasuredExamples: Array<{ module: string; reason: string }>;
  /** DoRA's magnitude vectors rescale each output of W + ΔW as well; the norms are of ΔW = scale · B·A alone. */
  dora: boolean;
  /** Where a declared alpha came from, and whether the rank is rooted (rsLoRA), for saying how scales were found. */
  alphaFrom: string | null;
  rsLora: boolean;
  /** alpha_pattern keys not applied (regular expressions beyond a path; lora-scaling.ts). */
  unappliedPatterns: readonly string[];
}

type Side = 'down' | 'up';

/** One factor as the Grams read it: `vectors` rank vectors of `length` values each, along rows or columns. */
export interface FactorLayout {
  module: string;
  side: Side;
  rank: number;
  /** The other side's size: in (down, a conv kernel flattened in) or out (up). */
  length: number;
  /** True when the rank is the first dimension (rank vectors are rows), false when it is the last of a matrix. */
  rankFirst: boolean;
}

export interface ModulePlan {
  module: string;
  target: string;
  downRow: number;
  upRow: number;
  alphaRow: number | null;
  rank: number;
  /** An embedding's LoRA: ΔW = (B·A)ᵀ, [vocab, dim] as the embedding holds it (PEFT's and llama.cpp's). */
  embedding: boolean;
}

export interface LoraUpdatePlan {
  factors: ReadonlyMap<number, FactorLayout>;
  alphas: ReadonlyMap<number, string>;
  modules: readonly ModulePlan[];
  /** LyCORIS LoKr, LoHa and Tucker LoCon modules, measured from all their parts (lycoris-update.ts). */
  lycoris: ReadonlyArray<LycorisModulePlan & { target: string; alphaRow: number | null }>;
  unmeasured: Array<{ module: string; reason: string }>;
  dora: boolean;
}

/**
 * Which rows the update needs: each module's factor pair laid out as rank vectors, and its `.alpha` scalar. Null when
 * the names hold no LoRA module. `dims(row)` is the row's shape in PyTorch order. LyCORIS LoKr, LoHa and Tucker
 * LoCon (`lora_mid`) modules are planned from all their parts (lycoris-update.ts).
 */
export function planLoraUpdates(
  names: readonly string[],
  dims: (row: number) => readonly number[],
): LoraUpdatePlan | null {
  const parts = new Map<string, Map<string, number>>();
  let dora = false;
  for (let row = 0; row < names.length; row++) {
    const name = names[row];
    if (!mayBeAdapterTensor(name)) {
      continue;
    }
    const split = splitAdapterTensor(name);
    if (split === null) {
      continue;
    }
    dora ||= split.part.role === 'magnitude';
    const rows = parts.get(split.module) ?? new Map<string, number>();
    rows.set(split.part.suffix, row);
    parts.set(split.module, rows);
  }
  const naming: LoraNaming = adapterNaming(
    [...parts].flatMap(([module, rows]) => [...rows.keys()].map((suffix) => ({ module, suffix }))),
  );
  const factors = new Map<number, FactorLayout>();
  const alphas = new Map<number, string>();
  const modules: ModulePlan[] = [];
  const lycoris: Array<LoraUpdatePlan['lycoris'][number]> = [];
  const unmeasured: LoraUpdatePlan['unmeasured'] = [];
  for (const [module, rows] of parts) {
    if (isLycorisModule(rows.keys()) || rows.has('.lora_mid.weight')) {
      const planned = planLycorisModule(module, rows, dims);
      if (typeof planned === 'string') {
        unmeasured.push({ module, reason: planned });
        continue;
      }
      const alphaRow = rows.get('.alpha') ?? null;
      lycoris.push({ ...planned, target: targetOf(module, naming), alphaRow });
      if (alphaRow !== null) {
        alphas.set(alphaRow, module);
      }
      continue;
    }
    const measured = planModule(module, rows, dims);
    if (typeof measured === 'string') {
      if (measured !== '') {
        unmeasured.push({ module, reason: measured });
      }
      continue;
    }
    const alphaRow = rows.get('.alpha') ?? null;
    modules.push({ ...measured.plan, target: targetOf(module, naming), alphaRow });
    factors.set(measured.plan.downRow, measured.down);
    factors.set(measured.plan.upRow, measured.up);
    if (alphaRow !== null) {
      alphas.set(alphaRow, module);
    }
  }
  modules.sort((a, b) => a.downRow - b.downRow);
  const work =
    modules.reduce((sum, module) => sum + gramWork(factors, module), 0) +
    lycoris.reduce((sum, module) => sum + module.work, 0);
  if (work > MAX_LORA_UPDATE_WORK) {
    const billions = (value: number) => `${Math.round(value / 1e9)} billion`;
    const reason = `the adapter's Gram matrices would take ${billions(work)} multiply-adds, over the ${billions(MAX_LORA_UPDATE_WORK)} the scan allows (about 10 s)`;
    unmeasured.push(...[...modules, ...lycoris].map(({ module }) => ({ module, reason })));
    return { factors: new Map(), alphas: new Map(), modules: [], lycoris: [], unmeasured, dora };
  }
  return modules.length + lycoris.length + unmeasured.length === 0
    ? null
    : { factors, alphas, modules, lycoris, unmeasured, dora };
}

/** True when no value is NaN or ±Inf. */
export function allFinite(values: Float32Array): boolean {
  for (let i = 0; i < values.length; i++) {
    // x - x is 0 for every finite x and NaN for NaN and ±Inf.
    if (values[i] - values[i] !== 0) {
      return false;
    }
  }
  return true;
}

/** A module's rows in its load: the down and up factors, and the `.alpha` when it has one. */
export function moduleRows(module: ModulePlan): number[] {
  return [module.downRow, module.upRow, ...(module.alphaRow === null ? [] : [module.alphaRow])];
}

/** Multiply-adds of one module's two Grams: r² / 2 per value of each rank vector. */
function gramWork(factors: ReadonlyMap<number, FactorLayout>, module: ModulePlan): number {
  const down = factors.get(module.downRow) as FactorLayout;
  const up = factors.get(module.upRow) as FactorLayout;
  return ((down.length + up.length) * module.rank * module.rank) / 2;
}

/** A module's factor layouts, or why it is not measured ('' for parts that are no LoRA module: a lone alpha, DoRA). */
function planModule(
  module: string,
  rows: ReadonlyMap<string, number>,
  dims: (row: number) => readonly number[],
): { plan: Omit<ModulePlan, 'target' | 'alphaRow'>; down: FactorLayout; up: FactorLayout } | string {
  const found = factorPair(rows);
  // PEFT's LoRA on packed expert parameters (target_parameters) stacks every expert's factors in one A and B: their
  // product is no expert's update (core/analysis/lora-parameter-targets.ts).
  if (found !== null && isPackedExpertsOwner(module)) {
    return "a LoRA on packed expert parameters (PEFT's target_parameters) stacks every expert's factors: not measured";
  }
  // AdaLoRA's update is B · diag(E) · A / ranknum: B·A alone is not it.
  if (rows.has('.lora_E')) {
    return "AdaLoRA's update is B · diag(E) · A, scaled by its pruned rank: not measured";
  }
  if (found === null) {
    const suffixes = [...rows.keys()];
    if (suffixes.some((suffix) => PEFT_NON_LOW_RANK_SUFFIXES.has(suffix))) {
      return "PEFT's IA³, OFT, BOFT and VeRA modules scale or rotate the weight instead of adding B·A: not measured";
    }
    return suffixes.some((suffix) => FACTOR_PAIRS.some((pair) => pair.down === suffix || pair.up === suffix))
      ? 'one of its two factors is missing'
      : '';
  }
  const downShape = dims(found.down);
  const upShape = dims(found.up);
  // PEFT 0.2's MergedLinear: B is a Conv1d of g groups, [out, r, 1], over A's r × g rows (core/analysis/lora.ts).
  if (
    found.pair.down === '.lora_A.weight' &&
    upShape.length === 3 &&
    upShape[2] === 1 &&
    downShape.length === 2 &&
    downShape[0] > upShape[1] &&
    downShape[0] % upShape[1] === 0
  ) {
    return "PEFT 0.2's merged layout: lora_B is a grouped Conv1d, one rank-r block per fused projection: not measured";
  }
  const rank = found.pair.rankFromUp ? upShape[upShape.length - 1] : axisSize(downShape, found.pair.downDim);
  const down = factorLayout(module, 'down', downShape, found.pair.downDim, rank);
  const up = factorLayout(module, 'up', upShape, found.pair.upDim, rank);
  if (down === null || up === null || !(rank > 0)) {
    return 'its factor shapes do not multiply';
  }
  if (down.length === 0 || up.length === 0) {
    return 'a factor holds no values (a size of 0)';
  }
  if (rank * Math.max(down.length, up.length) > MAX_LORA_FACTOR_VALUES) {
    return `a factor holds over ${MAX_LORA_FACTOR_VALUES} values`;
  }
  const embedding =
    found.pair.down === '.lora_embedding_A' ||
    (found.pair.down === '.weight.lora_a' && RE_GGUF_TOKEN_EMBEDDING.test(module));
  return { plan: { module, downRow: found.down, upRow: found.up, rank, embedding }, down, up };
}

function axisSize(shape: readonly number[], dim: number): number {
  return shape[dim < 0 ? shape.length + dim : dim];
}

/**
 * A factor as rank vectors: rank first ([r, in, kh, kw] flattened), or rank last of a matrix ([out, r], conv's
 * [out, r, 1, 1]). llama.cpp stores token_embd's A as [vocab, r] where others are [r, in]: the axis holding `rank`
 * decides. Null when the rank sits elsewhere or the shape does not hold it.
 */
function factorLayout(
  module: string,
  side: Side,
  shape: readonly number[],
  dim: number,
  rank: number,
): FactorLayout | null {
  const trimmed =
    shape.length > 2 && shape.slice(2).every((size) => size === 1) && side === 'up' ? shape.slice(0, 2) : shape;
  let axis = dim < 0 ? trimmed.length + dim : dim;
  if (trimmed[axis] !== rank && trimmed.length === 2 && trimmed[1 - axis] === rank) {
    axis = 1 - axis;
  }
  if (trimmed[axis] !== rank || trimmed.length < 2) {
    return null;
  }
  if (axis === 0) {
    return { module, side, rank, length: trimmed.slice(1).reduce((a, b) => a * b, 1), rankFirst: true };
  }
  return axis === trimmed.length - 1 && trimmed.length === 2
    ? { module, side, rank, length: trimmed[0], rankFirst: false }
    : null;
}

/** A planned module as the result reads it: the loaders' dim its scale divides alpha by, its sizes and rows. */
interface MeasuredModule {
  plan: { module: string; target: string; rank: number };
  dim: number;
  outFeatures: number;
  inFeatures: number;
  rows: number[];
  lycoris?: LycorisModulePlan['kind'];
}

/** Feeds on the scan's pieces; see the module comment. */
export class LoraUpdateCollector {
  private readonly buffers = new Map<number, { values: Float32Array; filled: number; next: number }>();
  /** Grams of factors whose module's other factor is still to come. */
  private readonly grams = new Map<number, Float64Array>();
  /** ‖B·A‖²_F and σ²_max(B·A) per module whose two Grams met. */
  private readonly products = new Map<string, { frobenius2: number; spectral2: number }>();
  private readonly alphaValues = new Map<string, number>();
  /** Modules with a factor holding NaN or ±Inf: their update is not a number to show. */
  private readonly nonFinite = new Set<string>();
  private readonly byModule: ReadonlyMap<string, ModulePlan>;
  /** Each LyCORIS part's module and suffix, and the parts of each module decoded so far. */
  private readonly lycorisParts = new Map<number, { plan: LycorisModulePlan; suffix: string }>();
  private readonly lycorisValues = new Map<string, Map<string, Float32Array>>();
  private pendingBytes = 0;

  constructor(private readonly plan: LoraUpdatePlan) {
    this.byModule = new Map(plan.modules.map((module) => [module.module, module]));
    for (const module of plan.lycoris) {
      for (const [suffix, row] of module.parts) {
        this.lycorisParts.set(row, { plan: module, suffix });
      }
    }
  }

  wants(row: number): boolean {
    return this.plan.factors.has(row) || this.plan.alphas.has(row) || this.lycorisParts.has(row);
  }

  /** A piece of `row`'s bytes in whole units, starting at element `at` (default: after the previous piece). */
  add(row: number, dtype: string, piece: Uint8Array, at?: number): void {
    const values = decodeValues(dtype, piece);
    if (values === null) {
      return;
    }
    const module = this.plan.alphas.get(row);
    if (module !== undefined) {
      if (values.length > 0 && Number.isFinite(values[0])) {
        this.alphaValues.set(module, values[0]);
      }
      return;
    }
    const layout = this.plan.factors.get(row);
    const part = this.lycorisParts.get(row);
    const size = layout ? layout.rank * layout.length : part?.plan.sizes.get(row);
    if (size === undefined) {
      return;
    }
    let buffer = this.buffers.get(row);
    if (buffer === undefined) {
      buffer = { values: new Float32Array(size), filled: 0, next: 0 };
      this.buffers.set(row, buffer);
    }
    const start = at ?? buffer.next;
    const room = Math.max(0, Math.min(values.length, buffer.values.length - start));
    buffer.values.set(room === values.length ? values : values.subarray(0, room), start);
    buffer.filled += room;
    buffer.next = start + room;
  }

  /** `row` was read whole: its Gram replaces its values, and meets its partner's when that is in. */
  end(row: number): void {
    const part = this.lycorisParts.get(row);
    if (part !== undefined) {
      this.endLycorisPart(row, part.plan, part.suffix);
      return;
    }
    const buffer = this.buffers.get(row);
    const layout = this.plan.factors.get(row);
    this.buffers.delete(row);
    if (buffer === undefined || layout === undefined || buffer.filled < buffer.values.length) {
      return;
    }
    if (!allFinite(buffer.values)) {
      this.nonFinite.add(layout.module);
      return;
    }
    const plan = this.byModule.get(layout.module) as ModulePlan;
    const partnerRow = layout.side === 'down' ? plan.upRow : plan.downRow;
    const partner = this.grams.get(partnerRow);
    if (partner !== undefined) {
      this.grams.delete(partnerRow);
      this.pendingBytes -= partner.byteLength;
      const gram = rankGram(buffer.values, layout);
      const [down, up] = layout.side === 'down' ? [gram, partner] : [partner, gram];
      const frobenius = productNorm(down, up);
      this.products.set(layout.module, {
        frobenius2: frobenius * frobenius,
        spectral2: frobenius > 0 ? topSquaredSingularValue(down, up, layout.rank | 0) : 0,
      });
      return;
    }
    const gramBytes = layout.rank * layout.rank * 8;
    if (this.pendingBytes + gramBytes <= MAX_PENDING_GRAM_BYTES) {
      this.grams.set(row, rankGram(buffer.values, layout));
      this.pendingBytes += gramBytes;
    }
  }

  /** A LyCORIS part read whole: kept until its module's last part is in, then the module measured from them all. */
  private endLycorisPart(row: number, plan: LycorisModulePlan, suffix: string): void {
    const buffer = this.buffers.get(row);
    this.buffers.delete(row);
    if (buffer === undefined || buffer.filled < buffer.values.length) {
      return;
    }
    if (!allFinite(buffer.values)) {
      this.nonFinite.add(plan.module);
      return;
    }
    if (this.pendingBytes + buffer.values.byteLength > MAX_PENDING_GRAM_BYTES) {
      return;
    }
    const values = this.lycorisValues.get(plan.module) ?? new Map<string, Float32Array>();
    this.lycorisValues.set(plan.module, values);
    values.set(suffix, buffer.values);
    this.pendingBytes += buffer.values.byteLength;
    if (values.size === plan.parts.size) {
      this.lycorisValues.delete(plan.module);
      for (const held of values.values()) {
        this.pendingBytes -= held.byteLength;
      }
      this.products.set(plan.module, lycorisProduct(plan, values));
    }
  }

  result(scaling: LoraScaling): LoraUpdates {
    const modules: LoraModuleUpdate[] = [];
    const unmeasured = [...this.plan.unmeasured];
    const planned: MeasuredModule[] = [
      ...this.plan.modules.map((plan) => ({
        plan,
        dim: plan.rank,
        outFeatures: (this.plan.factors.get(plan.upRow) as FactorLayout).length,
        inFeatures: (this.plan.factors.get(plan.downRow) as FactorLayout).length,
        rows: moduleRows(plan),
      })),
      ...this.plan.lycoris.map((plan) => ({
        plan,
        dim: plan.dim,
        outFeatures: plan.outFeatures,
        inFeatures: plan.inFeatures,
        rows: lycorisRows(plan),
        lycoris: plan.kind,
      })),
    ].sort((a, b) => a.rows[0] - b.rows[0]);
    for (const entry of planned) {
      const { module } = entry.plan;
      const product = this.products.get(module);
      if (product === undefined) {
        const reason = this.nonFinite.has(module)
          ? 'a factor holds NaN or ±Inf'
          : 'a factor was not read whole or is not decoded';
        unmeasured.push({ module, reason });
        continue;
      }
      const alpha = this.alphaValues.get(module) ?? null;
      const scale = entry.lycoris
        ? lycorisScale(scaling, { kind: entry.lycoris, dim: entry.dim, module }, alpha)
        : moduleScale(scaling, module, entry.dim, alpha);
      const factor = Math.abs(scale.scale);
      const norm = factor * Math.sqrt(product.frobenius2);
      if (!Number.isFinite(norm) || !Number.isFinite(product.spectral2)) {
        unmeasured.push({ module, reason: `its update overflows a float64 (scale ${scale.scale})` });
        continue;
      }
      modules.push({
        module,
        target: entry.plan.target,
        rank: entry.plan.rank,
        alpha: scale.alpha,
        scale: scale.scale,
        scaleSource: scale.source,
        norm,
        rms: norm / Math.sqrt(entry.outFeatures * entry.inFeatures),
        spectralNorm: factor * Math.sqrt(product.spectral2),
        // The power iteration approaches σ²_max from below: never let rounding put the ratio under 1.
        stableRank: product.spectral2 > 0 ? Math.max(1, product.frobenius2 / product.spectral2) : null,
        outFeatures: entry.outFeatures,
        inFeatures: entry.inFeatures,
        rows: entry.rows,
        ...(entry.lycoris && { lycoris: entry.lycoris }),
      });
    }
    return {
      modules,
      unmeasured: unmeasured.length,
      unmeasuredExamples: unmeasured.slice(0, MAX_UNMEASURED_LISTED),
      dora: this.plan.dora,
      alphaFrom: scaling.alphaFrom,
      rsLora: scaling.rsLora,
      unappliedPatterns: scaling.unappliedPatterns,
    };
  }
}
