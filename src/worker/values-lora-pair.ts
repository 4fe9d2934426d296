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
import { readModuleFactors } from './lora-factors';

/** Two LoRAs' plans, made once, and the modules both adapt with the same sizes. */
export interface LoraPairing {
  planA: LoraUpdatePlan;
  planB: LoraUpdatePlan;
  pairs: Array<{ module: ModulePlan; other: ModulePlan }>;
}

function adapterPlan(load: KeptLoad): LoraUpdatePlan | null {
  return isAdapterFile(load.names) ? planLoraUpdates(load.names, (row) => tensorShape(load.columns, row)) : null;
}

/** What "Compare values" of two LoRAs compares; null unless both sides are LoRAs. */
export function loraPairPlan(a: KeptLoad, b: KeptLoad): LoraPairing | null {
  const planA = adapterPlan(a);
  const planB = adapterPlan(b);
  if (!planA || !planB) {
    return null;
  }
  const byModule = new Map(planB.modules.map((module) => [module.module, module]));
  const pairs: LoraPairing['pairs'] = [];
  for (const module of planA.modules) {
    const other = byModule.get(module.module);
    if (
      other &&
      planA.factors.get(module.downRow)?.length === planB.factors.get(other.downRow)?.length &&
      planA.factors.get(module.upRow)?.length === planB.factors.get(other.upRow)?.length
    ) {
      pairs.push({ module, other });
    }
  }
  return { planA, planB, pairs };
}

/** Bytes the comparison reads: both sides' factors and alphas of the paired modules, whole. */
export function loraPairBytes(a: KeptLoad, b: KeptLoad, pairing: LoraPairing | null): number {
  let bytes = 0;
  for (const { module, other } of pairing?.pairs ?? []) {
    for (const [load, plan] of [
      [a, module],
      [b, other],
    ] as const) {
      bytes += rowsBytes(load, moduleRows(plan));
    }
  }
  return bytes;
}

/** One module's factors on one side, scaled; null when a factor is not decoded. */
async function moduleFactors(
  load: KeptLoad,
  plan: LoraUpdatePlan,
  module: ModulePlan,
  signal: AbortSignal,
  onBytes: (bytes: number) => void,
): Promise<ModuleFactors | null> {
  const read = await readModuleFactors(load, module, signal, onBytes);
  const layoutOf = (row: number) => plan.factors.get(row);
  const downLayout = layoutOf(module.downRow);
  const upLayout = layoutOf(module.upRow);
  if (!read.down || !read.up || !downLayout || !upLayout || !allFinite(read.down) || !allFinite(read.up)) {
    return null;
  }
  const down: FactorValues = { values: read.down, layout: downLayout };
  const up: FactorValues = { values: read.up, layout: upLayout };
  const alpha = read.alpha;
  const { scale } = moduleScale(load.loraScaling(), module.module, module.rank, alpha);
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
  const work = pairs.reduce((sum, { module, other }) => {
    const length = (planA.factors.get(module.downRow)?.length ?? 0) + (planA.factors.get(module.upRow)?.length ?? 0);
    return sum + (length * (module.rank + other.rank) ** 2) / 2;
  }, 0);
  const unmeasured: LoraPairComparison['unmeasuredExamples'] = [];
  const modules: LoraPairModule[] = [];
  if (work > MAX_LORA_UPDATE_WORK) {
    const reason = `the two adapters' Gram matrices would take ${Math.round(work / 1e9)} billion multiply-adds, over the ${Math.round(MAX_LORA_UPDATE_WORK / 1e9)} billion allowed`;
    unmeasured.push(...pairs.map(({ module }) => ({ module: module.module, reason })));
  } else {
    for (const { module, other } of pairs) {
      const first = await moduleFactors(a, planA, module, job.signal, onBytes);
      const second = await moduleFactors(b, planB, other, job.signal, onBytes);
      if (!first || !second) {
        unmeasured.push({ module: module.module, reason: 'a factor is not decoded, or holds NaN or ±Inf' });
        continue;
      }
      const figures = compareUpdates(first, second);
      if (![figures.normA, figures.normB, figures.cosine ?? 0, figures.relDiff ?? 0].every(Number.isFinite)) {
        unmeasured.push({ module: module.module, reason: 'its updates overflow a float64' });
        continue;
      }
      modules.push({ module: module.module, target: module.target, ...figures });
    }
  }
  return {
    modules,
    byLayer: pairByLayer(modules),
    onlyA: planA.modules.length - pairs.length,
    onlyB: planB.modules.length - pairs.length,
    unmeasured: unmeasured.length,
    unmeasuredExamples: unmeasured.slice(0, MAX_UNMEASURED_LISTED),
  };
}
