/**
 * The LoRA update figures (lora-update.ts) gathered the ways a reader asks about them: by what a module adapts
 * (q_proj against v_proj), by layer, and the strongest modules.
 */
import { median } from '../median';
import { compareNatural } from '../natural-order';
import { StackLayers, stacksText } from './layer-names';
import type { LoraModuleUpdate } from './lora-update';
import { outliersByGroup } from './value-scan';

export interface TargetUpdates {
  target: string;
  modules: number;
  medianNorm: number;
  maxNorm: number;
  medianRms: number;
  /** Over the target's non-zero updates; null when all are zero. */
  medianStableRank: number | null;
}

/** Per target, strongest median first. */
export function updatesByTarget(modules: readonly LoraModuleUpdate[]): TargetUpdates[] {
  return [...groupByTarget(modules)]
    .map(([target, members]) => ({
      target,
      modules: members.length,
      medianNorm: median(members.map((m) => m.norm)) ?? 0,
      maxNorm: Math.max(...members.map((m) => m.norm)),
      medianRms: median(members.map((m) => m.rms)) ?? 0,
      medianStableRank: median(members.flatMap((m) => (m.stableRank === null ? [] : [m.stableRank]))),
    }))
    .sort((a, b) => b.medianNorm - a.medianNorm || a.target.localeCompare(b.target));
}

export interface UpdateBar {
  /** A per-layer bar's stack of layers (`model.layers.`, `double_blocks.`). */
  stack?: string;
  /** The layer number, or the module's place in name order (1, 2, …) when the modules have no layer numbers. */
  label: string;
  /** The module a per-module bar stands for. */
  module?: string;
  /** ‖ΔW‖_F of the bar's modules together: √Σ‖ΔW_m‖²_F (their updates touch different weights). */
  norm: number;
  modules: number;
}

/**
 * One bar per layer (`layers.N.`, `blk.N.`, kohya's `…_blocks_N_`, each stack of layers apart) when most modules sit
 * in numbered layers; otherwise one bar per module in natural name order (a UNet's mid block and convolutions sit in
 * no numbered stack).
 */
export function updateBars(modules: readonly LoraModuleUpdate[]): {
  byLayer: boolean;
  bars: UpdateBar[];
  /** The stacks the per-layer bars run through, said, when there are several (stacksText). */
  stacks: string | null;
} {
  const layers = new StackLayers(() => ({ squares: 0, modules: 0 }));
  let outside = 0;
  for (const module of modules) {
    const slot = layers.at(`${module.module}.`);
    if (slot === null) {
      outside++;
      continue;
    }
    slot.squares += module.norm * module.norm;
    slot.modules++;
  }
  const slots = layers.inOrder();
  if (slots.length > 0 && outside * 2 < modules.length) {
    const bars = slots.map(({ stack, layer, slot }) => ({
      stack,
      label: String(layer),
      norm: Math.sqrt(slot.squares),
      modules: slot.modules,
    }));
    return { byLayer: true, bars, stacks: stacksText(slots) };
  }
  const bars = [...modules]
    .sort((a, b) => compareNatural(a.module, b.module))
    .map((module, i) => ({ label: String(i + 1), module: module.module, norm: module.norm, modules: 1 }));
  return { byLayer: false, bars, stacks: null };
}

/** The `count` modules with the largest updates. */
export function strongestUpdates(modules: readonly LoraModuleUpdate[], count: number): LoraModuleUpdate[] {
  return [...modules].sort((a, b) => b.norm - a.norm || compareNatural(a.module, b.module)).slice(0, count);
}

export interface UpdateOutlier {
  module: LoraModuleUpdate;
  /** Median ‖ΔW‖ of the modules of its target. */
  targetMedian: number;
  ratio: number;
}

/**
 * Modules whose update is over OUTLIER_FACTOR× the median of their target's (q_proj against every q_proj), as the
 * scan names value outliers: a layer the training moved far more than its peers, largest ratio first.
 */
export function updateOutliers(modules: readonly LoraModuleUpdate[]): UpdateOutlier[] {
  return outliersByGroup(
    modules,
    (module) => module.target,
    (module) => module.norm,
  ).map(({ item, groupMedian, ratio }) => ({ module: item, targetMedian: groupMedian, ratio }));
}

/** The median and largest of a figure per target, largest median first: the by-target tables of the LoRA cards. */
export function byTarget<T extends { target: string }>(
  modules: readonly T[],
  figure: (module: T) => number,
): Array<{ target: string; modules: number; median: number; max: number }> {
  return [...groupByTarget(modules)]
    .map(([target, members]) => ({
      target,
      modules: members.length,
      median: median(members.map(figure)) ?? 0,
      max: Math.max(...members.map(figure)),
    }))
    .sort((a, b) => b.median - a.median || a.target.localeCompare(b.target));
}

/** Modules by what they adapt, in first-seen order. */
function groupByTarget<T extends { target: string }>(modules: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const module of modules) {
    groups.set(module.target, [...(groups.get(module.target) ?? []), module]);
  }
  return groups;
}
