/**
 * "Compute ΔW" in a LoRA factor's details: both factors (a LyCORIS module's every part) and the `.alpha` read whole,
 * the module's update formed row by row (core/values/lora-delta.ts, lycoris-delta.ts) and counted as "Read values"
 * counts a tensor: statistics, histogram, heatmap and first values. The work pauses every few tens of milliseconds so
 * a Cancel reaches it.
 */
import { deltaScaleDetail, loraDeltaChunks, loraDeltaLayout } from '../core/values/lora-delta';
import { moduleRows, planLoraUpdates, type LoraUpdatePlan } from '../core/values/lora-update';
import {
  NeedsWholeRead,
  ValuesAccumulator,
  ValuesUnavailable,
  type LoraDeltaFacts,
  type TensorValues,
} from '../core/values/tensor-values';
import { REMOTE_VALUES_WHOLE_BYTES } from '../core/values/values-limits';
import { formatBytes } from '../core/number-format';
import { moduleScale } from '../core/analysis/lora-scaling';
import { tensorShape } from '../core/model';
import { nextQueuedTask } from '../lib/after-paint';
import type { KeptLoad } from './load-source';
import { rowsBytes, type ValuesJob } from './values-handler';
import { readLycorisParts, readModuleFactors } from './lora-factors';
import { lycorisDeltaChunks, lycorisDeltaShape, lycorisScale } from '../core/values/lycoris-delta';
import { lycorisRows } from '../core/values/lycoris-update';

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
  const updates = planLoraUpdates(load.names, dims);
  const lycoris = updates?.lycoris.find(
    (module) => module.alphaRow === row || [...module.parts.values()].includes(row),
  );
  if (lycoris !== undefined) {
    return readLycorisDeltaValues(load, lycoris, row, job, whole, started);
  }
  const layout = loraDeltaLayout(updates, load.names, row, dims);
  if (typeof layout === 'string') {
    throw new ValuesUnavailable(layout);
  }
  const { module, rows, cols } = layout;
  // Over HTTP, factors past the budget Read values reads without asking (an embedding's at a high rank) wait for a
  // click that says their size.
  const factorBytes = rowsBytes(load, moduleRows(module));
  checkBudget(load, module.module, factorBytes, whole, 'its two factors');
  const { down, up, alpha } = await readModuleFactors(load, module, job.signal);
  if (down === null || up === null) {
    const missing = load.names[down === null ? module.downRow : module.upRow];
    throw new ValuesUnavailable(`${missing} cannot be read whole or is not decoded, so ΔW cannot be formed.`);
  }
  const scaling = load.loraScaling();
  const scale = moduleScale(scaling, module.module, module.rank, alpha);
  const values = new ValuesAccumulator('F32', layout.shape, null);
  await formChunks(values, loraDeltaChunks(layout, down, up, scale.scale), job, factorBytes, rows * cols);
  return computedResult(
    values,
    { row, rows, total: rows * cols, readBytes: factorBytes, started },
    {
      module: module.module,
      tensors: moduleRows(module).map((r) => load.names[r]),
      rank: module.rank,
      scale: scale.scale,
      detail: deltaScaleDetail(scale, module.rank, scaling),
    },
  );
}

/**
 * Adds ΔW's chunks to `values`, pausing every PAUSE_EVERY_MS so a Cancel reaches the work. Progress counts the bytes
 * read, then ΔW's values as the Float32 bytes they would take.
 */
async function formChunks(
  values: ValuesAccumulator,
  chunks: Iterable<{ values: Float32Array; firstElement: number }>,
  job: ValuesJob,
  readBytes: number,
  total: number,
): Promise<void> {
  const workTotal = readBytes + total * 4;
  job.progress(readBytes, workTotal);
  let paused = performance.now();
  for (const chunk of chunks) {
    values.addComputed(chunk.values, chunk.firstElement);
    if (performance.now() - paused > PAUSE_EVERY_MS) {
      job.progress(readBytes + (chunk.firstElement + chunk.values.length) * 4, workTotal);
      await nextQueuedTask();
      if (job.signal.aborted) {
        throw new ValuesUnavailable('Cancelled.');
      }
      paused = performance.now();
    }
  }
}

/** The formed ΔW as "Read values" shows a tensor, with what it was formed from. */
function computedResult(
  values: ValuesAccumulator,
  read: { row: number; rows: number; total: number; readBytes: number; started: number },
  facts: LoraDeltaFacts,
): TensorValues {
  const { row, rows, total, readBytes, started } = read;
  const plan = { ranges: [], bytes: readBytes, elements: total, sampled: false, rowsRead: rows, rows, seed: null };
  const result = values.result(`${facts.module} ΔW`, row, plan, { tensorBytes: readBytes, confirmed: false, started });
  result.decoded = 'computed';
  result.computedBy = facts;
  return result;
}

/** A remote read past the budget read without asking waits for a click that says its size. */
function checkBudget(load: KeptLoad, module: string, bytes: number, whole: boolean, what: string): void {
  if (load.data?.remote && !whole && bytes > REMOTE_VALUES_WHOLE_BYTES) {
    throw new NeedsWholeRead(
      `ΔW of ${module} needs ${what} whole: ${formatBytes(bytes)} by Range requests, more than the ` +
        `${formatBytes(REMOTE_VALUES_WHOLE_BYTES)} read without asking.`,
      bytes,
    );
  }
}

/** A LyCORIS LoKr or LoHa module's update (core/values/lycoris-delta.ts), shown as Compute ΔW shows a LoRA pair's. */
async function readLycorisDeltaValues(
  load: KeptLoad,
  module: LoraUpdatePlan['lycoris'][number],
  row: number,
  job: ValuesJob,
  whole: boolean,
  started: number,
): Promise<TensorValues> {
  const shape = lycorisDeltaShape(module, (r) => tensorShape(load.columns, r));
  if (typeof shape === 'string') {
    throw new ValuesUnavailable(shape);
  }
  const rowsRead = lycorisRows(module);
  const partBytes = rowsBytes(load, rowsRead);
  checkBudget(load, module.module, partBytes, whole, 'its parts');
  const { parts, missing, alpha } = await readLycorisParts(load, module, job.signal);
  if (parts === null) {
    throw new ValuesUnavailable(`${missing} cannot be read whole or is not decoded, so ΔW cannot be formed.`);
  }
  const scaling = load.loraScaling();
  const scale = lycorisScale(scaling, module, alpha);
  const values = new ValuesAccumulator('F32', shape, null);
  const total = module.outFeatures * module.inFeatures;
  await formChunks(values, lycorisDeltaChunks(module, parts, scale.scale), job, partBytes, total);
  return computedResult(
    values,
    { row, rows: shape[0], total, readBytes: partBytes, started },
    {
      module: module.module,
      tensors: rowsRead.map((r) => load.names[r]),
      rank: module.rank,
      scale: scale.scale,
      detail: deltaScaleDetail(scale, module.dim, scaling),
      form: module.kind,
    },
  );
}
