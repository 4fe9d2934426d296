/**
 * "Compare values" of a LoRA against its base: for each adapted module that fits its base weight
 * (core/compare/lora-fit.ts), the update ‖scale · B·A‖ from the adapter's factors (core/values/lora-update.ts, read
 * whole: factors are small; a LyCORIS LoKr's or LoHa's from all its parts) over ‖W‖ of the base weight, read as "Read values" reads it (whole when local, a row
 * sample past 16 MiB over HTTP; dequantized where the weight is FP8 with a scale, a GGUF block type or a packed 4-bit
 * layout). The ratio says how far the adapter moves each weight.
 */
import { loraRelativeByLayer, type LoraRelativeModule, type LoraRelativeUpdates } from '../core/values/compare-values';
import {
  LoraUpdateCollector,
  planLoraUpdates,
  type LoraModuleUpdate,
  type LoraUpdatePlan,
} from '../core/values/lora-update';
import { MAX_UNMEASURED_LISTED } from '../core/values/values-limits';
import { REMOTE_VALUES_SAMPLE_BYTES, REMOTE_VALUES_WHOLE_BYTES } from '../core/values/values-limits';
import { tensorShape } from '../core/model';
import { locatedByteLength } from '../io/tensor-data';
import { ValuesUnavailable } from '../core/values/tensor-values';
import type { KeptLoad } from './load-source';
import { readTensorValues, readWholeRow, rowDtype, rowsBytes, type ValuesJob } from './values-handler';

/** A module of the adapter and the row of the base weight it fits. */
export interface LoraBasePair {
  module: string;
  baseRow: number;
}

/** What the measurement needs, planned once: the fitting pairs and the adapter's factor layouts. */
export interface LoraRelativePlan {
  adapterSide: 'a' | 'b';
  pairs: readonly LoraBasePair[];
  plan: LoraUpdatePlan | null;
}

export function planLoraRelative(
  adapter: KeptLoad,
  fit: { adapterSide: 'a' | 'b'; pairs: readonly LoraBasePair[] },
): LoraRelativePlan {
  return {
    ...fit,
    plan: planLoraUpdates(adapter.names, (row) => tensorShape(adapter.columns, row)),
  };
}

/** Bytes the measurement reads: every factor and alpha whole, each base weight as "Read values" would. */
export function loraRelativeBytes(adapter: KeptLoad, base: KeptLoad, relative: LoraRelativePlan): number {
  let bytes = rowsBytes(adapter, factorAndAlphaRows(relative.plan));
  for (const { baseRow } of relative.pairs) {
    const whole = locatedByteLength(base.columns, baseRow, base.data?.storage);
    bytes += base.data?.remote && whole > REMOTE_VALUES_WHOLE_BYTES ? REMOTE_VALUES_SAMPLE_BYTES : whole;
  }
  return bytes;
}

function factorAndAlphaRows(plan: LoraUpdatePlan | null): number[] {
  const parts = plan?.lycoris.flatMap((module) => [...module.parts.values()]) ?? [];
  return plan ? [...plan.factors.keys(), ...parts, ...plan.alphas.keys()].sort((x, y) => x - y) : [];
}

const LYCORIS_NAMES = { lokr: 'LoKr', loha: 'LoHa', locon: 'LoCon' } as const;

/**
 * Why a LyCORIS module's update does not lie over its base weight, or null when it does: the fit checks a LoKr's
 * name only, and its ΔW [out, in] must be the weight's [out, in · kernel].
 */
function lycorisMismatch(update: LoraModuleUpdate, base: KeptLoad, baseRow: number): string | null {
  if (update.lycoris === undefined) {
    return null;
  }
  const shape = tensorShape(base.columns, baseRow);
  const inputs = shape.slice(1).reduce((product, dim) => product * dim, 1);
  return shape.length >= 2 && shape[0] === update.outFeatures && inputs === update.inFeatures
    ? null
    : `its ${LYCORIS_NAMES[update.lycoris]} update is ${update.outFeatures} × ${update.inFeatures}, its base weight [${shape.join(', ')}]`;
}

/** The adapter's update per fitting module against its base weight; `onBytes` hears each read's bytes. */
export async function loraRelativeUpdates(
  adapter: KeptLoad,
  base: KeptLoad,
  relative: LoraRelativePlan,
  job: ValuesJob,
  onBytes: (bytes: number) => void,
): Promise<LoraRelativeUpdates> {
  const { adapterSide, pairs } = relative;
  const updates = await adapterUpdates(adapter, relative.plan, job, onBytes);
  const byModule = new Map(updates.modules.map((module) => [module.module, module]));
  const reasonOf = new Map(updates.unmeasuredExamples.map(({ module, reason }) => [module, reason]));
  const unmeasured: LoraRelativeUpdates['unmeasuredExamples'] = [];
  const modules: LoraRelativeModule[] = [];
  for (const { module, baseRow } of pairs) {
    const update = byModule.get(module);
    if (update === undefined) {
      unmeasured.push({ module, reason: reasonOf.get(module) ?? "the adapter's factors of it were not measured" });
      continue;
    }
    const mismatch = lycorisMismatch(update, base, baseRow);
    if (mismatch !== null) {
      unmeasured.push({ module, reason: mismatch });
      continue;
    }
    let values;
    try {
      values = await readTensorValues(base, baseRow, false, { signal: job.signal, progress: () => undefined });
    } catch (error) {
      if (job.signal.aborted || !(error instanceof ValuesUnavailable)) {
        throw error;
      }
      unmeasured.push({ module, reason: `its base weight was not read: ${error.message}` });
      continue;
    }
    onBytes(values.read.bytes);
    const { stats, read } = values;
    const finite = stats.count - stats.nan - stats.posInf - stats.negInf;
    // Σ w² over what was read, scaled up to the whole tensor when a row sample was read.
    const squares =
      stats.mean === null || stats.std === null || read.elements === 0
        ? 0
        : finite * (stats.std * stats.std + stats.mean * stats.mean) * (read.ofElements / read.elements);
    const baseNorm = Math.sqrt(squares);
    if (!(baseNorm > 0) || !Number.isFinite(baseNorm)) {
      unmeasured.push({ module, reason: 'its base weight holds no finite non-zero value' });
      continue;
    }
    modules.push({
      module,
      target: update.target,
      base: base.names[baseRow],
      norm: update.norm,
      baseNorm,
      relative: update.norm / baseNorm,
      sampled: read.sampled,
    });
  }
  return {
    adapterSide,
    modules,
    byLayer: loraRelativeByLayer(modules),
    unmeasured: unmeasured.length,
    unmeasuredExamples: unmeasured.slice(0, MAX_UNMEASURED_LISTED),
  };
}

/** Every module's update from the adapter's factors and alphas, each read whole. */
async function adapterUpdates(
  adapter: KeptLoad,
  plan: LoraUpdatePlan | null,
  job: ValuesJob,
  onBytes: (bytes: number) => void,
) {
  if (plan === null) {
    return { modules: [], unmeasuredExamples: [] };
  }
  const collector = new LoraUpdateCollector(plan);
  for (const row of factorAndAlphaRows(plan)) {
    // A factor not located (a compressed zip member) is left out: its module is listed as not read whole.
    const bytes = await readWholeRow(adapter, row, job.signal);
    if (bytes !== null) {
      collector.add(row, rowDtype(adapter, row), bytes);
      collector.end(row);
      onBytes(bytes.length);
    }
  }
  return collector.result(adapter.loraScaling());
}
