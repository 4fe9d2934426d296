/**
 * "Compare values" of a LoRA against its base: for each adapted module that fits its base weight
 * (core/compare/lora-fit.ts), the update ‖scale · B·A‖ from the adapter's factors (core/values/lora-update.ts, read
 * whole: factors are small) over ‖W‖ of the base weight, read as "Read values" reads it (whole when local, a row
 * sample past 16 MiB over HTTP; dequantized where the weight is FP8 with a scale, a GGUF block type or a packed 4-bit
 * layout). The ratio says how far the adapter moves each weight.
 */
import { loraRelativeByLayer, type LoraRelativeModule, type LoraRelativeUpdates } from '../core/values/compare-values';
import { decodeUnit } from '../core/values/decode';
import { LoraUpdateCollector, planLoraUpdates } from '../core/values/lora-update';
import { MAX_UNMEASURED_LISTED } from '../core/values/values-limits';
import { REMOTE_VALUES_SAMPLE_BYTES, REMOTE_VALUES_WHOLE_BYTES } from '../core/values/values-limits';
import { tensorShape } from '../core/model';
import { locatedByteLength, locateTensorData } from '../io/tensor-data';
import { ValuesUnavailable } from '../core/values/tensor-values';
import { NO_LORA_SCALING } from '../core/analysis/lora-scaling';
import type { KeptLoad } from './load-source';
import { readTensorValues, rowDtype, scanOneTensor, type ValuesJob } from './values-handler';

/** A module of the adapter and the row of the base weight it fits. */
export interface LoraBasePair {
  module: string;
  baseRow: number;
}

/** Bytes the measurement reads: every factor and alpha whole, each base weight as "Read values" would. */
export function loraRelativeBytes(adapter: KeptLoad, base: KeptLoad, pairs: readonly LoraBasePair[]): number {
  const plan = planLoraUpdates(adapter.names, (row) => tensorShape(adapter.columns, row));
  let bytes = 0;
  for (const row of [...(plan?.factors.keys() ?? []), ...(plan?.alphas.keys() ?? [])]) {
    bytes += locatedByteLength(adapter.columns, row, adapter.data?.storage);
  }
  for (const { baseRow } of pairs) {
    const whole = locatedByteLength(base.columns, baseRow, base.data?.storage);
    bytes += base.data?.remote && whole > REMOTE_VALUES_WHOLE_BYTES ? REMOTE_VALUES_SAMPLE_BYTES : whole;
  }
  return bytes;
}

/** The adapter's update per fitting module against its base weight; `onBytes` hears each read's bytes. */
export async function loraRelativeUpdates(
  adapter: KeptLoad,
  base: KeptLoad,
  adapterSide: 'a' | 'b',
  pairs: readonly LoraBasePair[],
  job: ValuesJob,
  onBytes: (bytes: number) => void,
): Promise<LoraRelativeUpdates> {
  const updates = await adapterUpdates(adapter, job, onBytes);
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
async function adapterUpdates(adapter: KeptLoad, job: ValuesJob, onBytes: (bytes: number) => void) {
  const plan = planLoraUpdates(adapter.names, (row) => tensorShape(adapter.columns, row));
  if (plan === null || !adapter.data) {
    return { modules: [], unmeasuredExamples: [] };
  }
  const collector = new LoraUpdateCollector(plan);
  for (const row of [...plan.factors.keys(), ...plan.alphas.keys()].sort((x, y) => x - y)) {
    const dtype = rowDtype(adapter, row);
    const unit = decodeUnit(dtype);
    if (unit === null) {
      continue;
    }
    try {
      const span = await locateTensorData(adapter.columns, row, adapter.data, job.signal);
      await scanOneTensor(span, dtype, unit, {
        signal: job.signal,
        remote: adapter.data.remote,
        onChunk: (chunk, first) => collector.add(row, dtype, chunk, first),
      });
      collector.end(row);
      onBytes(span.length);
    } catch (error) {
      // A factor not located (a compressed zip member): its module is listed as not read whole.
      if (job.signal.aborted || !(error instanceof ValuesUnavailable)) {
        throw error;
      }
    }
  }
  return collector.result(adapter.loraScaling?.() ?? NO_LORA_SCALING);
}
