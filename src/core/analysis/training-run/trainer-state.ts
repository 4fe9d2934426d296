/**
 * trainer_state.json, as transformers' Trainer writes it into each checkpoint folder and `save_state()` writes it at
 * the end (`TrainerState`, trainer_callback.py): the step and epoch reached, the run's plan (max_steps,
 * num_train_epochs), the best checkpoint by the chosen metric, and `log_history`, one entry per logging or
 * evaluation step ({step, epoch, loss, grad_norm, learning_rate} or {step, epoch, eval_loss, eval_runtime, …}), plus
 * a last entry with the run's totals (train_loss, train_runtime, …) once training ends.
 */
import { MAX_TRAINING_CHART_BUCKETS, MAX_TRAINING_LOG_ENTRIES, MAX_TRAINING_SERIES } from '../analysis-limits';
import type { RunSettings } from './run-settings';

/** The file's name, as the Trainer writes it into each checkpoint folder and the run's output folder. */
export const TRAINER_STATE_FILE = 'trainer_state.json';
/** The run's TrainingArguments, pickled beside it (read by core/formats/pytorch/training-arguments.ts). */
export const TRAINING_ARGS_FILE = 'training_args.bin';

/** A non-finite value as Python's json module spells it (and as the report keeps it: JSON has no NaN). */
export type NonFiniteSpelling = 'NaN' | 'Infinity' | '-Infinity';

/** One value logged at one step: a number, or the spelling of a non-finite one. */
export interface LoggedValue {
  step: number;
  value: number | NonFiniteSpelling;
}

/** One key of log_history over the run (`loss`, `eval_loss`, `learning_rate`, `grad_norm`, …). */
export interface TrainingSeries {
  key: string;
  /** Entries that log it. */
  count: number;
  /**
   * The finite values to draw, in step order: every one up to MAX_TRAINING_CHART_BUCKETS, else each bucket's lowest
   * and highest (so a spike stays drawn).
   */
  steps: number[];
  values: number[];
  first: LoggedValue;
  last: LoggedValue;
  /** The lowest and highest finite values, null when none is finite. */
  min: LoggedValue | null;
  max: LoggedValue | null;
  /** Values that are NaN or ±Infinity: how many, and the first. */
  nonFinite: { count: number; first: LoggedValue } | null;
}

/** What trainer_state.json says of its run (report section `trainingRun`). */
export interface TrainingRunSection {
  /** The file's path as the source names it. */
  file: string;
  /** N when the file sits in a `checkpoint-N` folder whose N is its global_step: the checkpoint it describes. */
  checkpointStep: number | null;
  globalStep: number | null;
  maxSteps: number | null;
  epoch: number | null;
  numTrainEpochs: number | null;
  /** Per device. */
  trainBatchSize: number | null;
  totalFlos: number | null;
  /** Counted only when the run asked for it (include_num_input_tokens_seen); 0 is left out as "not counted". */
  inputTokensSeen: number | null;
  loggingSteps: number | null;
  evalSteps: number | null;
  saveSteps: number | null;
  /** TrainerControl's should_training_stop: true once the run ended (or was stopped early by a callback). */
  trainingStopped: boolean | null;
  /** The best checkpoint by the run's metric_for_best_model, when the run tracked one. */
  best: {
    metric: number;
    /**
     * The logged key the best checkpoint is chosen by: training_args.bin's metric_for_best_model when read, else the
     * key whose value at the best step is the best metric (`eval_loss`), when one matches.
     */
    metricKey: string | null;
    /** training_args.bin's greater_is_better, when read. */
    greaterIsBetter: boolean | null;
    checkpoint: string | null;
    step: number | null;
  } | null;
  /** The last entry's totals, present once training ended (save_state after train()). */
  totals: {
    trainLoss: number | NonFiniteSpelling | null;
    runtimeSeconds: number | null;
    samplesPerSecond: number | null;
    stepsPerSecond: number | null;
  } | null;
  /** log_history's entries, and the series its keys make (at most MAX_TRAINING_SERIES, loss first). */
  logEntries: number;
  /** True when log_history ran past MAX_TRAINING_LOG_ENTRIES and only the first entries were read. */
  logTruncated: boolean;
  series: TrainingSeries[];
  /** Keys beyond MAX_TRAINING_SERIES, counted and left out. */
  seriesLeftOut: number;
  /** The first step at which a loss or the gradient norm was logged NaN or infinite: where the run diverged. */
  divergedAtStep: number | null;
  /** The run's settings from the training_args.bin beside it, when one was read. */
  settings: RunSettings | null;
}

/** Keys of an entry that place it, not values logged over the run. */
const PLACE_KEYS: ReadonlySet<string> = new Set(['step', 'epoch']);
/** Keys of the totals entry train() logs last (Trainer._inner_training_loop's metrics). */
const TOTALS_KEYS: ReadonlySet<string> = new Set([
  'train_loss',
  'train_runtime',
  'train_samples_per_second',
  'train_steps_per_second',
  'total_flos',
]);
/** Series shown first, in this order; the rest follow by name. */
const LEADING_KEYS: readonly string[] = ['loss', 'eval_loss', 'learning_rate', 'grad_norm'];

/** A trainer_state.json's summary, or null when the value is not one (no log_history and no global_step). */
export function summarizeTrainerState(
  file: string,
  state: unknown,
  settings: RunSettings | null = null,
): TrainingRunSection | null {
  if (!isRecord(state) || (!Array.isArray(state.log_history) && typeof state.global_step !== 'number')) {
    return null;
  }
  const entries = Array.isArray(state.log_history) ? state.log_history : [];
  const read = entries.length > MAX_TRAINING_LOG_ENTRIES ? entries.slice(0, MAX_TRAINING_LOG_ENTRIES) : entries;
  const globalStep = finiteNumber(state.global_step);
  const { series, seriesLeftOut, totals } = seriesOf(read);
  const best = bestOf(state, read, settings);
  return {
    file,
    checkpointStep: checkpointStepOf(file, globalStep),
    globalStep,
    maxSteps: positive(state.max_steps),
    epoch: finiteNumber(state.epoch),
    numTrainEpochs: positive(state.num_train_epochs),
    trainBatchSize: positive(state.train_batch_size),
    totalFlos: positive(state.total_flos),
    inputTokensSeen: positive(state.num_input_tokens_seen),
    loggingSteps: positive(state.logging_steps),
    evalSteps: positive(state.eval_steps),
    saveSteps: positive(state.save_steps),
    trainingStopped: trainingStoppedOf(state),
    best,
    totals,
    logEntries: entries.length,
    logTruncated: read.length < entries.length,
    series,
    seriesLeftOut,
    divergedAtStep: divergedAtStepOf(series),
    settings,
  };
}

/** Series whose non-finite values mean the run diverged: a loss, or the gradient norm. */
export function isDivergenceSignal(series: TrainingSeries): boolean {
  return series.key === 'grad_norm' || /(^|_)loss$/.test(series.key);
}

function divergedAtStepOf(series: readonly TrainingSeries[]): number | null {
  let step: number | null = null;
  for (const one of series) {
    if (isDivergenceSignal(one) && one.nonFinite !== null && (step === null || one.nonFinite.first.step < step)) {
      step = one.nonFinite.first.step;
    }
  }
  return step;
}

/** The spelling of a non-finite number, as the report keeps it. */
function spellNonFinite(value: number): NonFiniteSpelling {
  return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
}

interface SeriesBuilder {
  key: string;
  steps: number[];
  values: number[];
}

function seriesOf(entries: readonly unknown[]): {
  series: TrainingSeries[];
  seriesLeftOut: number;
  totals: TrainingRunSection['totals'];
} {
  const builders = new Map<string, SeriesBuilder>();
  let totals: TrainingRunSection['totals'] = null;
  for (const entry of entries) {
    if (!isRecord(entry)) {
      continue;
    }
    const step = finiteNumber(entry.step);
    if (step === null) {
      continue;
    }
    if (typeof entry.train_runtime === 'number' || typeof entry.train_loss === 'number') {
      totals = totalsOf(entry);
    }
    for (const key of Object.keys(entry)) {
      const value = entry[key];
      if (typeof value !== 'number' || PLACE_KEYS.has(key) || TOTALS_KEYS.has(key)) {
        continue;
      }
      let builder = builders.get(key);
      if (builder === undefined) {
        builder = { key, steps: [], values: [] };
        builders.set(key, builder);
      }
      builder.steps.push(step);
      builder.values.push(value);
    }
  }
  const ordered = [...builders.values()].sort((a, b) => rankOf(a.key) - rankOf(b.key) || a.key.localeCompare(b.key));
  return {
    series: ordered.slice(0, MAX_TRAINING_SERIES).map(finishSeries),
    seriesLeftOut: Math.max(0, ordered.length - MAX_TRAINING_SERIES),
    totals,
  };
}

function rankOf(key: string): number {
  const at = LEADING_KEYS.indexOf(key);
  return at < 0 ? LEADING_KEYS.length : at;
}

function totalsOf(entry: Record<string, unknown>): NonNullable<TrainingRunSection['totals']> {
  const loss = entry.train_loss;
  return {
    trainLoss: typeof loss !== 'number' ? null : Number.isFinite(loss) ? loss : spellNonFinite(loss),
    runtimeSeconds: finiteNumber(entry.train_runtime),
    samplesPerSecond: finiteNumber(entry.train_samples_per_second),
    stepsPerSecond: finiteNumber(entry.train_steps_per_second),
  };
}

function finishSeries({ key, steps, values }: SeriesBuilder): TrainingSeries {
  let min: LoggedValue | null = null;
  let max: LoggedValue | null = null;
  let nonFinite: { count: number; first: LoggedValue } | null = null;
  const finiteSteps: number[] = [];
  const finiteValues: number[] = [];
  for (let at = 0; at < values.length; at++) {
    const value = values[at];
    const step = steps[at];
    if (!Number.isFinite(value)) {
      if (nonFinite) {
        nonFinite.count++;
      } else {
        nonFinite = { count: 1, first: { step, value: spellNonFinite(value) } };
      }
      continue;
    }
    finiteSteps.push(step);
    finiteValues.push(value);
    if (min === null || value < (min.value as number)) {
      min = { step, value };
    }
    if (max === null || value > (max.value as number)) {
      max = { step, value };
    }
  }
  const drawn = drawnPoints(finiteSteps, finiteValues);
  return {
    key,
    count: values.length,
    steps: drawn.steps,
    values: drawn.values,
    first: loggedAt(steps, values, 0),
    last: loggedAt(steps, values, values.length - 1),
    min,
    max,
    nonFinite,
  };
}

function loggedAt(steps: readonly number[], values: readonly number[], at: number): LoggedValue {
  const value = values[at];
  return { step: steps[at], value: Number.isFinite(value) ? value : spellNonFinite(value) };
}

/** Every point up to the bucket count; past it each bucket's lowest and highest, in step order. */
function drawnPoints(steps: number[], values: number[]): { steps: number[]; values: number[] } {
  if (values.length <= MAX_TRAINING_CHART_BUCKETS) {
    return { steps, values };
  }
  const drawnSteps: number[] = [];
  const drawnValues: number[] = [];
  const perBucket = values.length / MAX_TRAINING_CHART_BUCKETS;
  for (let bucket = 0; bucket < MAX_TRAINING_CHART_BUCKETS; bucket++) {
    const start = Math.floor(bucket * perBucket);
    const end = Math.floor((bucket + 1) * perBucket);
    let low = start;
    let high = start;
    for (let at = start + 1; at < end; at++) {
      if (values[at] < values[low]) {
        low = at;
      }
      if (values[at] > values[high]) {
        high = at;
      }
    }
    for (const at of low === high ? [low] : low < high ? [low, high] : [high, low]) {
      drawnSteps.push(steps[at]);
      drawnValues.push(values[at]);
    }
  }
  return { steps: drawnSteps, values: drawnValues };
}

function bestOf(
  state: Record<string, unknown>,
  entries: readonly unknown[],
  settings: RunSettings | null,
): TrainingRunSection['best'] {
  const metric = finiteNumber(state.best_metric);
  if (metric === null) {
    return null;
  }
  const checkpointPath = typeof state.best_model_checkpoint === 'string' ? state.best_model_checkpoint : null;
  // Written by transformers since 4.52; older files name the checkpoint only.
  const step = finiteNumber(state.best_global_step) ?? (checkpointPath ? checkpointNumber(checkpointPath) : null);
  // The folder's name: the path is the training machine's, with `\\` on Windows.
  const checkpoint = checkpointPath === null ? null : (checkpointPath.split(/[\\/]/).findLast(Boolean) ?? null);
  const metricKey = settings?.bestMetricKey ?? (step === null ? null : metricKeyAt(entries, step, metric));
  return { metric, metricKey, greaterIsBetter: settings?.greaterIsBetter ?? null, checkpoint, step };
}

/** The key that logged `metric` at `step`, preferring eval_ keys (metric_for_best_model is an eval metric). */
function metricKeyAt(entries: readonly unknown[], step: number, metric: number): string | null {
  let found: string | null = null;
  for (const entry of entries) {
    if (!isRecord(entry) || entry.step !== step) {
      continue;
    }
    for (const key of Object.keys(entry)) {
      const better = found === null || (!found.startsWith('eval_') && key.startsWith('eval_'));
      if (better && !PLACE_KEYS.has(key) && entry[key] === metric) {
        found = key;
      }
    }
  }
  return found;
}

/** N of a `checkpoint-N` path, or null. */
function checkpointNumber(path: string): number | null {
  const match = /(?:^|[\\/])checkpoint-(\d+)[\\/]?$/.exec(path);
  return match ? Number(match[1]) : null;
}

function checkpointStepOf(file: string, globalStep: number | null): number | null {
  const folder = file.slice(0, Math.max(0, file.lastIndexOf('/')));
  const step = checkpointNumber(folder);
  return step !== null && step === globalStep ? step : null;
}

function trainingStoppedOf(state: Record<string, unknown>): boolean | null {
  const callbacks = state.stateful_callbacks;
  const control = isRecord(callbacks) ? callbacks.TrainerControl : undefined;
  const args = isRecord(control) ? control.args : undefined;
  const stop = isRecord(args) ? args.should_training_stop : undefined;
  return typeof stop === 'boolean' ? stop : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finiteNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function positive(value: unknown): number | null {
  const number = finiteNumber(value);
  return number !== null && number > 0 ? number : null;
}
