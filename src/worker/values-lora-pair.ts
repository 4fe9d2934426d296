/**
 * "Compare values" of two LoRAs (two checkpoints of one training, two seeds, a retrained adapter): each module both
 * adapt, with the same in and out sizes, compared as updates (core/values/lora-pair.ts). Every factor and `.alpha` of
 * those modules is read whole (factors are small), decoded, and scaled as each adapter's loader scales it.
 */
import { isAdapterFile } from '../core/analysis/lora-markers';
import { moduleScale } from '../core/analysis/lora-scaling';
import { tensorShape } from '../core/model';
import {
  allFinite,
  moduleRows,
  planLoraUpdates,
  type LoraUpdatePlan,
  type ModulePlan,
} from '../core/values/lora-update';
import { MAX_LORA_UPDATE_WORK, MAX_UNMEASURED_LISTED } from '../core/values/values-limits';
import { compareUpdates, pairByLayer, type FactorValues, type ModuleFactors } from '../core/values/lora-pair';
import type { LoraPairComparison, LoraPairModule } from '../core/values/compare-values';
import type { KeptLoad } from './load-source';
import { rowsBytes, type ValuesJob } from './values-handler';
import { readLycorisParts, readModuleFactors } from './lora-factors';
import { lycorisFactors, lycorisRows } from '../core/values/lycoris-update';
import { lycorisScale } from '../core/values/lycoris-delta';

/** One module of one adapter as the comparison reads it: a LoRA pair, or a LyCORIS LoKr or LoHa module. */
type SideModule =
  | { kind: 'pair'; module: ModulePlan; out: number; in: number }
  | { kind: 'lycoris'; module: LoraUpdatePlan['lycoris'][number]; out: number; in: number };

/** Two LoRAs' plans, made once, and the modules both adapt with the same sizes. */
export interface LoraPairing {
  planA: LoraUpdatePlan;
  planB: LoraUpdatePlan;
  pairs: Array<{ module: SideModule; other: SideModule }>;
}

function adapterPlan(load: KeptLoad): LoraUpdatePlan | null {
  return isAdapterFile(load.names) ? planLoraUpdates(load.names, (row) => tensorShape(load.columns, row)) : null;
}

/** Every module of a plan with its ΔW's sizes, by name. */
function sideModules(plan: LoraUpdatePlan): Map<string, SideModule> {
  const modules = new Map<string, SideModule>();
  for (const module of plan.modules) {
    const out = plan.factors.get(module.upRow)?.length ?? 0;
    modules.set(module.module, { kind: 'pair', module, out, in: plan.factors.get(module.downRow)?.length ?? 0 });
  }
  for (const module of plan.lycoris) {
    modules.set(module.module, { kind: 'lycoris', module, out: module.outFeatures, in: module.inFeatures });
  }
  return modules;
}

function rowsOf(side: SideModule): number[] {
  return side.kind === 'pair' ? moduleRows(side.module) : lycorisRows(side.module);
}

/** What "Compare values" of two LoRAs compares; null unless both sides are LoRAs. */
export function loraPairPlan(a: KeptLoad, b: KeptLoad): LoraPairing | null {
  const planA = adapterPlan(a);
  const planB = adapterPlan(b);
  if (!planA || !planB) {
    return null;
  }
  const others = sideModules(planB);
  const pairs: LoraPairing['pairs'] = [];
  // A module trained as a LoRA pair on one side and as a LoKr on the other compares as well: both are updates.
  for (const [name, module] of sideModules(planA)) {
    const other = others.get(name);
    if (other && other.out === module.out && other.in === module.in) {
      pairs.push({ module, other });
    }
  }
  return { planA, planB, pairs };
}

/** Bytes the comparison reads: both sides' factors and alphas of the paired modules, whole. */
export function loraPairBytes(a: KeptLoad, b: KeptLoad, pairing: LoraPairing | null): number {
  let bytes = 0;
  for (const { module, other } of pairing?.pairs ?? []) {
    bytes += rowsBytes(a, rowsOf(module)) + rowsBytes(b, rowsOf(other));
  }
  return bytes;
}

/** One module's factors on one side, scaled; null when a factor is not decoded or not finite. */
async function moduleFactors(
  load: KeptLoad,
  plan: LoraUpdatePlan,
  side: SideModule,
  signal: AbortSignal,
  onBytes: (bytes: number) => void,
): Promise<ModuleFactors | null> {
  if (side.kind === 'lycoris') {
    const { module } = side;
    const read = await readLycorisParts(load, module, signal, onBytes);
    if (read.parts === null || ![...read.parts.values()].every(allFinite)) {
      return null;
    }
    const { up, down } = lycorisFactors(module, read.parts);
    return {
      down: { values: down, layout: { rank: module.rank, length: module.inFeatures, rankFirst: true } },
      up: { values: up, layout: { rank: module.rank, length: module.outFeatures, rankFirst: false } },
      scale: lycorisScale(load.loraScaling(), module, read.alpha).scale,
    };
  }
  const { module } = side;
  const read = await readModuleFactors(load, module, signal, onBytes);
  const downLayout = plan.factors.get(module.downRow);
  const upLayout = plan.factors.get(module.upRow);
  if (!read.down || !read.up || !downLayout || !upLayout || !allFinite(read.down) || !allFinite(read.up)) {
    return null;
  }
  const down: FactorValues = { values: read.down, layout: downLayout };
  const up: FactorValues = { values: read.up, layout: upLayout };
  const { scale } = moduleScale(load.loraScaling(), module.module, module.rank, read.alpha);
  return { down, up, scale };
}

/** Each module both LoRAs adapt, update against update; see the module comment. */
export async function compareLoraPair(
  a: KeptLoad,
  b: KeptLoad,
  pairing: LoraPairing,
  job: ValuesJob,
  onBytes: (bytes: number) => void,
): Promise<LoraPairComparison> {
  const { planA, planB, pairs } = pairing;
  const work = pairs.reduce(
    (sum, { module, other }) => sum + ((module.out + module.in) * (module.module.rank + other.module.rank) ** 2) / 2,
    0,
  );
  const unmeasured: LoraPairComparison['unmeasuredExamples'] = [];
  const modules: LoraPairModule[] = [];
  if (work > MAX_LORA_UPDATE_WORK) {
    const reason = `the two adapters' Gram matrices would take ${Math.round(work / 1e9)} billion multiply-adds, over the ${Math.round(MAX_LORA_UPDATE_WORK / 1e9)} billion allowed`;
    unmeasured.push(...pairs.map(({ module }) => ({ module: module.module.module, reason })));
  } else {
    for (const { module, other } of pairs) {
      const name = module.module.module;
      const first = await moduleFactors(a, planA, module, job.signal, onBytes);
      const second = await moduleFactors(b, planB, other, job.signal, onBytes);
      if (!first || !second) {
        unmeasured.push({ module: name, reason: 'a factor is not decoded, or holds NaN or ±Inf' });
        continue;
      }
      const figures = compareUpdates(first, second);
      if (![figures.normA, figures.normB, figures.cosine ?? 0, figures.relDiff ?? 0].every(Number.isFinite)) {
        unmeasured.push({ module: name, reason: 'its updates overflow a float64' });
        continue;
      }
      modules.push({ module: name, target: module.module.target, ...figures });
    }
  }
  const count = (plan: LoraUpdatePlan) => plan.modules.length + plan.lycoris.length;
  return {
    modules,
    byLayer: pairByLayer(modules),
    onlyA: count(planA) - pairs.length,
    onlyB: count(planB) - pairs.length,
    unmeasured: unmeasured.length,
    unmeasuredExamples: unmeasured.slice(0, MAX_UNMEASURED_LISTED),
  };
}
