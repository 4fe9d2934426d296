/**
 * The training run beside a model (report section `trainingRun`): what the trainer_state.json read with it says
 * (trainer-state.ts), and two findings a user acts on: the log shows the run diverged (a NaN or infinite loss or
 * gradient norm), or the checkpoint at hand is not the one the run itself judged best.
 */
import { makeFinding } from '../../findings/make-finding';
import type { Finding } from '../../model';
import { formatValue, plural } from '../../number-format';
import type { Analysis, Sidecars } from '../analysis-types';
import { runSettingsOf } from './run-settings';
import {
  isDivergenceSignal,
  summarizeTrainerState,
  type LoggedValue,
  type TrainingRunSection,
  type TrainingSeries,
} from './trainer-state';

type TrainerStateSidecar = NonNullable<Sidecars['trainerState']>;
type TrainingArgsSidecar = Sidecars['trainingArgs'];

/**
 * Each trainer_state.json's summary, by the sidecar it came from and the training_args.bin read with it. The
 * analyses that read sidecars run again whenever another group is read on demand (a repository's tokenizer files
 * after its trainer state), with the same sidecar objects: a long run's log (tens of MB) is summarized once.
 */
const summaries = new WeakMap<TrainerStateSidecar, { args: TrainingArgsSidecar; section: TrainingRunSection | null }>();

function summaryOf(trainerState: TrainerStateSidecar, args: TrainingArgsSidecar): TrainingRunSection | null {
  const known = summaries.get(trainerState);
  if (known && known.args === args) {
    return known.section;
  }
  const settings = args ? runSettingsOf(args.file, args.fields) : null;
  const section = summarizeTrainerState(trainerState.file, trainerState.state, settings);
  summaries.set(trainerState, { args, section });
  return section;
}

export const trainingRunAnalysis: Analysis<'trainingRun', TrainingRunSection> = {
  id: 'trainingRun',
  readsSidecars: true,
  run: ({ sidecars }) => {
    const section = sidecars.trainerState ? summaryOf(sidecars.trainerState, sidecars.trainingArgs) : null;
    if (section === null) {
      return { section: null, findings: [] };
    }
    return { section, findings: [divergedFinding(section), notBestFinding(section)].flatMap((one) => one ?? []) };
  },
};

function divergedFinding(section: TrainingRunSection): Finding | null {
  const at = section.divergedAtStep;
  if (at === null) {
    return null;
  }
  const broken = section.series
    .filter((series) => isDivergenceSignal(series) && series.nonFinite !== null)
    .sort((a, b) => (a.nonFinite?.first.step ?? 0) - (b.nonFinite?.first.step ?? 0));
  const which = broken
    .map(
      (series) =>
        `${series.key} ${series.nonFinite?.first.value} from step ${series.nonFinite?.first.step} (${plural(series.nonFinite?.count ?? 0, 'logged value')} of ${series.count})`,
    )
    .join('; ');
  const lastGood = lastFiniteBefore(broken[0], at);
  return makeFinding(
    'training-diverged',
    `${section.file} logs ${which}: the training diverged there${lastGood ? ` (the last finite ${broken[0].key} was ${formatValue(lastGood.value as number)} at step ${lastGood.step})` : ''}. ` +
      `Weights saved at or after step ${at} are likely NaN or garbage: check them with Read values, and resume from an earlier checkpoint with a lower learning rate or gradient clipping.` +
      hiddenLossNote(section),
  );
}

function lastFiniteBefore(series: TrainingSeries, step: number): LoggedValue | null {
  for (let at = series.steps.length - 1; at >= 0; at--) {
    if (series.steps[at] < step) {
      return { step: series.steps[at], value: series.values[at] };
    }
  }
  return null;
}

/**
 * The Trainer leaves a NaN or infinite step loss out of the logged mean (logging_nan_inf_filter, on by default), so
 * while the gradient norm is NaN the logged loss can read a flat 0.
 */
function hiddenLossNote(section: TrainingRunSection): string {
  const gradNorm = section.series.find((series) => series.key === 'grad_norm');
  const loss = section.series.find((series) => series.key === 'loss');
  if (!gradNorm?.nonFinite || !loss || typeof loss.last.value !== 'number' || loss.last.value !== 0) {
    return '';
  }
  return ` Its loss reads 0 at those steps: the Trainer leaves NaN and infinite losses out of what it logs (logging_nan_inf_filter), so that 0 is not a real loss.`;
}

function notBestFinding(section: TrainingRunSection): Finding | null {
  const { best, checkpointStep } = section;
  if (best === null || best.step === null || checkpointStep === null || best.step === checkpointStep) {
    return null;
  }
  const metric = best.metricKey ?? 'its metric';
  const here = best.metricKey ? section.series.find((series) => series.key === best.metricKey) : undefined;
  const hereValue = here && here.last.step === checkpointStep ? ` (here: ${formatLogged(here.last)})` : '';
  return makeFinding(
    'training-checkpoint-not-best',
    `This checkpoint (step ${checkpointStep}) is not the run's best: ${best.checkpoint ?? `step ${best.step}`} had ${metric} ${formatValue(best.metric)}${hereValue}. ` +
      `To deploy the best weights take ${best.checkpoint ?? `the step ${best.step} checkpoint`}; this one is the one to resume training from.`,
  );
}

function formatLogged(logged: LoggedValue): string {
  return typeof logged.value === 'number' ? formatValue(logged.value) : logged.value;
}
