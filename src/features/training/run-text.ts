/**
 * A training run's figures as the Training tab and the compare view's training runs card word them, so the two read
 * alike: the step against the plan, the epoch, the best checkpoint, a logged value.
 */
import type { LoggedValue, TrainingRunSection } from '../../core/analysis/training-run/trainer-state';
import { formatValue, groupDigits } from '../../core/number-format';

/** `500 of 1 000`, with `(50%)` when `share`; null when the file gives no step. */
export function stepText(section: TrainingRunSection, share: boolean): string | null {
  const { globalStep, maxSteps } = section;
  if (globalStep === null) {
    return null;
  }
  if (maxSteps === null) {
    return groupDigits(globalStep);
  }
  const of = `${groupDigits(globalStep)} of ${groupDigits(maxSteps)}`;
  return share ? `${of} (${Math.floor((globalStep / maxSteps) * 100)}%)` : of;
}

/** The epoch reached, to two decimals at most (`1.5`, `6`); null when the file gives none. */
export function epochText(section: TrainingRunSection): string | null {
  return section.epoch === null ? null : String(Number(section.epoch.toFixed(2)));
}

/**
 * `checkpoint-4: eval_loss 3.93`; with `detail`, also the step beside a named checkpoint and the metric's direction
 * when training_args.bin gave it (`checkpoint-4 (step 4): eval_loss 3.93, lower is better`).
 */
export function bestText(best: NonNullable<TrainingRunSection['best']>, detail: boolean, unnamed: string): string {
  const where = best.checkpoint ?? (best.step === null ? unnamed : `step ${groupDigits(best.step)}`);
  const step = detail && best.checkpoint !== null && best.step !== null ? ` (step ${groupDigits(best.step)})` : '';
  const direction =
    !detail || best.greaterIsBetter === null ? '' : best.greaterIsBetter ? ', higher is better' : ', lower is better';
  return `${where}${step}: ${best.metricKey ?? 'metric'} ${formatValue(best.metric)}${direction}`;
}

/** A logged value: a number in four significant digits, or the spelling of a non-finite one (`NaN`). */
export function loggedValueText(value: LoggedValue['value']): string {
  return typeof value === 'number' ? formatValue(value) : value;
}
