/**
 * Two training runs side by side in the compare view, when each side came with its trainer_state.json
 * (core/analysis/training-run/): where each stood (step, epoch), its last logged loss and eval loss, its best
 * checkpoint, and whether it diverged. Two checkpoints of one run (checkpoint-500 against checkpoint-1000) read as
 * how far apart they are in that run; the tensors' differences are in the tables below.
 */
import type { TrainingRunSection } from '../../core/analysis/training-run/trainer-state';
import { groupDigits } from '../../core/number-format';
import { bestText, epochText, loggedValueText, stepText } from '../training/run-text';
import { TableHead } from '../../lib/TableHead';
import { useAppStore } from '../../state/store';

function lastOf(section: TrainingRunSection, key: string): string {
  const series = section.series.find((one) => one.key === key);
  return series ? `${loggedValueText(series.last.value)} @ ${groupDigits(series.last.step)}` : '—';
}

/** Logged losses the two runs share a step for, needed before two logs are called one run's. */
const MIN_SHARED_LOSSES = 2;

/**
 * How far apart two checkpoints of one run are: said when the losses both logs hold for the same steps are equal,
 * at least MIN_SHARED_LOSSES of them (two checkpoints of one run share their log up to the earlier one; runs with
 * another seed, data or learning rate part within a few steps), and only then.
 */
function sameRunNote(a: TrainingRunSection, b: TrainingRunSection): string | null {
  const lossA = a.series.find((one) => one.key === 'loss');
  const lossB = b.series.find((one) => one.key === 'loss');
  if (!lossA || !lossB || a.globalStep === null || b.globalStep === null) {
    return null;
  }
  const atStep = new Map(lossA.steps.map((step, at) => [step, lossA.values[at]]));
  let shared = 0;
  for (let at = 0; at < lossB.steps.length; at++) {
    const other = atStep.get(lossB.steps[at]);
    if (other === undefined) {
      continue;
    }
    if (other !== lossB.values[at]) {
      return null;
    }
    shared++;
  }
  if (shared < MIN_SHARED_LOSSES) {
    return null;
  }
  const apart = b.globalStep - a.globalStep;
  const logs = `The two logs agree on the ${groupDigits(shared)} losses they share`;
  if (apart === 0) {
    return `${logs}, and stop at the same step: one run's state at one step.`;
  }
  const later = apart > 0 ? 'B' : 'A';
  const earlier = apart > 0 ? 'A' : 'B';
  return `${logs}: checkpoints of one run, ${later} ${groupDigits(Math.abs(apart))} steps after ${earlier}.`;
}

/**
 * The card for the open comparison, from the two loads as they are now: a side's run arrives with its analyses, or
 * with a Training tab read, after the diff was drawn.
 */
export function TrainingRunsCard() {
  const runA = useAppStore((state) => (state.load.status === 'ready' ? state.load.result.sections.trainingRun : null));
  const runB = useAppStore((state) =>
    state.compareSource.status === 'ready' ? state.compareSource.result.sections.trainingRun : null,
  );
  return runA && runB ? <TrainingRuns runA={runA} runB={runB} /> : null;
}

/** Two runs side by side; exported for its tests. */
export function TrainingRuns({ runA, runB }: { runA: TrainingRunSection; runB: TrainingRunSection }) {
  const rows: Array<[string, (section: TrainingRunSection) => string]> = [
    ['trainer_state.json', (section) => section.file],
    ['step', (section) => stepText(section, false) ?? '—'],
    ['epoch', (section) => epochText(section) ?? '—'],
    ['last loss', (section) => lastOf(section, 'loss')],
    ['last eval loss', (section) => lastOf(section, 'eval_loss')],
    ['best checkpoint', (section) => (section.best === null ? 'not tracked' : bestText(section.best, false, '—'))],
    [
      'diverged',
      (section) =>
        section.divergedAtStep === null ? 'no' : `NaN or Inf from step ${groupDigits(section.divergedAtStep)}`,
    ],
  ];
  const note = sameRunNote(runA, runB);
  return (
    <section className="insight training-runs" aria-label="Training runs" data-testid="compare-training-runs">
      <h3>Training runs</h3>
      {note && (
        <p className="muted" data-testid="compare-training-same-run">
          {note}
        </p>
      )}
      <div className="table-scroll">
        <table className="plain-table">
          <TableHead columns={['', 'A', 'B']} />
          <tbody>
            {rows.map(([label, text]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td className="mono">{text(runA)}</td>
                <td className="mono">{text(runB)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
