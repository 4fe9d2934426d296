/**
 * "Compute ΔW" in a LoRA factor's details: both factors (and the `.alpha`) read whole, the module's update formed row
 * by row (core/values/lora-delta.ts) and counted as "Read values" counts a tensor: statistics, histogram, heatmap and
 * first values. The work pauses every few tens of milliseconds so a Cancel reaches it.
 */
import { deltaScaleDetail, loraDeltaChunks, loraDeltaLayout } from '../core/values/lora-delta';
import { moduleRows, planLoraUpdates } from '../core/values/lora-update';
import { NeedsWholeRead, ValuesAccumulator, ValuesUnavailable, type TensorValues } from '../core/values/tensor-values';
import { REMOTE_VALUES_WHOLE_BYTES } from '../core/values/values-limits';
import { formatBytes } from '../core/number-format';
import { moduleScale } from '../core/analysis/lora-scaling';
import { tensorShape } from '../core/model';
import { nextQueuedTask } from '../lib/after-paint';
import type { KeptLoad } from './load-source';
import { rowsBytes, type ValuesJob } from './values-handler';
import { readModuleFactors } from './lora-factors';

/** Work between pauses: long enough that pausing costs nothing, short enough that Cancel answers at once. */
const PAUSE_EVERY_MS = 40;

/** The update of the LoRA module whose factor (or `.alpha`) is `row`. */
export async function readLoraDeltaValues(
  load: KeptLoad,
  row: number,
  job: ValuesJob,
  whole = false,
): Promise<TensorValues> {
  const started = performance.now();
  if (!(row >= 0 && row < load.columns.count)) {
    throw new ValuesUnavailable('No such tensor in this load.');
  }
  const dims = (r: number) => tensorShape(load.columns, r);
  const layout = loraDeltaLayout(planLoraUpdates(load.names, dims), load.names, row, dims);
  if (typeof layout === 'string') {
    throw new ValuesUnavailable(layout);
  }
  const { module, rows, cols } = layout;
  // Over HTTP, factors past the budget Read values reads without asking (an embedding's at a high rank) wait for a
  // click that says their size.
  const factorBytes = rowsBytes(load, moduleRows(module));
  if (load.data?.remote && !whole && factorBytes > REMOTE_VALUES_WHOLE_BYTES) {
    throw new NeedsWholeRead(
      `ΔW of ${module.module} needs its two factors whole: ${formatBytes(factorBytes)} by Range requests, more than ` +
        `the ${formatBytes(REMOTE_VALUES_WHOLE_BYTES)} read without asking.`,
      factorBytes,
    );
  }
  const total = rows * cols;
  const { down, up, alpha } = await readModuleFactors(load, module, job.signal);
  if (down === null || up === null) {
    const missing = load.names[down === null ? module.downRow : module.upRow];
    throw new ValuesUnavailable(`${missing} cannot be read whole or is not decoded, so ΔW cannot be formed.`);
  }
  // Progress counts the factors' bytes, then ΔW's values as the Float32 bytes they would take.
  const workTotal = factorBytes + total * 4;
  job.progress(factorBytes, workTotal);
  const scaling = load.loraScaling();
  const scale = moduleScale(scaling, module.module, module.rank, alpha);
  const values = new ValuesAccumulator('F32', layout.shape, null);
  let paused = performance.now();
  for (const chunk of loraDeltaChunks(layout, down, up, scale.scale)) {
    values.addComputed(chunk.values, chunk.firstElement);
    if (performance.now() - paused > PAUSE_EVERY_MS) {
      job.progress(factorBytes + (chunk.firstElement + chunk.values.length) * 4, workTotal);
      await nextQueuedTask();
      if (job.signal.aborted) {
        throw new ValuesUnavailable('Cancelled.');
      }
      paused = performance.now();
    }
  }
  const tensors = moduleRows(module).map((r) => load.names[r]);
  const plan = { ranges: [], bytes: factorBytes, elements: total, sampled: false, rowsRead: rows, rows, seed: null };
  const result = values.result(`${module.module} ΔW`, row, plan, {
    tensorBytes: factorBytes,
    confirmed: false,
    started,
  });
  result.decoded = 'computed';
  result.computedBy = {
    module: module.module,
    tensors,
    rank: module.rank,
    scale: scale.scale,
    detail: deltaScaleDetail(scale, module.rank, scaling),
  };
  return result;
}
