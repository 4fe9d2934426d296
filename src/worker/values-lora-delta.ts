/**
 * "Compute ΔW" in a LoRA factor's details: both factors (and the `.alpha`) read whole, the module's update formed row
 * by row (core/values/lora-delta.ts) and counted as "Read values" counts a tensor: statistics, histogram, heatmap and
 * first values. The work pauses every few tens of milliseconds so a Cancel reaches it.
 */
import { decodeValues } from '../core/values/decode';
import { deltaScaleDetail, loraDeltaChunks, loraDeltaLayout } from '../core/values/lora-delta';
import { moduleRows, planLoraUpdates } from '../core/values/lora-update';
import { NeedsWholeRead, ValuesAccumulator, ValuesUnavailable, type TensorValues } from '../core/values/tensor-values';
import { REMOTE_VALUES_WHOLE_BYTES } from '../core/values/values-limits';
import { formatBytes } from '../core/number-format';
import { locatedByteLength } from '../io/tensor-data';
import { moduleScale } from '../core/analysis/lora-scaling';
import { tensorShape } from '../core/model';
import { nextQueuedTask } from '../lib/after-paint';
import type { KeptLoad } from './load-source';
import { readWholeRow, rowDtype, type ValuesJob } from './values-handler';

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
  const factorBytes = moduleRows(module).reduce(
    (sum, r) => sum + locatedByteLength(load.columns, r, load.data?.storage),
    0,
  );
  if (load.data?.remote && !whole && factorBytes > REMOTE_VALUES_WHOLE_BYTES) {
    throw new NeedsWholeRead(
      `ΔW of ${module.module} needs its two factors whole: ${formatBytes(factorBytes)} by Range requests, more than ` +
        `the ${formatBytes(REMOTE_VALUES_WHOLE_BYTES)} read without asking.`,
      factorBytes,
    );
  }
  const factor = async (r: number): Promise<{ values: Float32Array; bytes: number }> => {
    const bytes = await readWholeRow(load, r, job.signal);
    const decoded = bytes === null ? null : decodeValues(rowDtype(load, r), bytes);
    if (bytes === null || decoded === null) {
      throw new ValuesUnavailable(`${load.names[r]} cannot be read whole or is not decoded, so ΔW cannot be formed.`);
    }
    return { values: decoded instanceof Float32Array ? decoded : Float32Array.from(decoded), bytes: bytes.length };
  };
  const total = rows * cols;
  // Progress counts the factors' bytes, then ΔW's values as the Float32 bytes they would take.
  const down = await factor(module.downRow);
  const up = await factor(module.upRow);
  let bytesRead = down.bytes + up.bytes;
  let alpha: number | null = null;
  if (module.alphaRow !== null) {
    const alphaTensor = await factor(module.alphaRow);
    bytesRead += alphaTensor.bytes;
    alpha = Number.isFinite(alphaTensor.values[0]) ? alphaTensor.values[0] : null;
  }
  const workTotal = bytesRead + total * 4;
  job.progress(bytesRead, workTotal);
  const scaling = load.loraScaling();
  const scale = moduleScale(scaling, module.module, module.rank, alpha);
  const values = new ValuesAccumulator('F32', layout.shape, null);
  let paused = performance.now();
  for (const chunk of loraDeltaChunks(layout, down.values, up.values, scale.scale)) {
    values.addComputed(chunk.values, chunk.firstElement);
    if (performance.now() - paused > PAUSE_EVERY_MS) {
      job.progress(bytesRead + (chunk.firstElement + chunk.values.length) * 4, workTotal);
      await nextQueuedTask();
      if (job.signal.aborted) {
        throw new ValuesUnavailable('Cancelled.');
      }
      paused = performance.now();
    }
  }
  const tensors = moduleRows(module).map((r) => load.names[r]);
  const plan = { ranges: [], bytes: bytesRead, elements: total, sampled: false, rowsRead: rows, rows, seed: null };
  const result = values.result(`${module.module} ΔW`, row, plan, { tensorBytes: bytesRead, confirmed: false, started });
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
