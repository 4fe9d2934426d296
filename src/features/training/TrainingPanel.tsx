/**
 * The Training tab: what the trainer_state.json beside the model says of its run (core/analysis/training-run/):
 * the step and epoch against the plan, the best checkpoint, the logged loss, learning rate and gradient norm over
 * the steps, and every logged key's first, last, lowest and highest value. Dropped, the file is read with the load;
 * in a repository, when this tab opens (one request).
 */
import type { RunSettings } from '../../core/analysis/training-run/run-settings';
import type { LoggedValue, TrainingRunSection, TrainingSeries } from '../../core/analysis/training-run/trainer-state';
import { formatCount, formatValue, groupDigits, plural } from '../../core/number-format';
import type { LoadResult } from '../../core/result';
import { MAX_TRAINER_STATE_BYTES } from '../../core/limits';
import { LinesChart } from '../../lib/lines/LazyLines';
import type { LineSeries, LinesSpec } from '../../lib/lines/lines-spec';
import { numeric, TableHead } from '../../lib/TableHead';
import { useAppStore } from '../../state/store';
import { Fact } from '../insights/QuantizationPanel';
import { FileReadProgress, FileReadStart } from '../values/EntryStatus';
import { bestText, epochText, loggedValueText, stepText } from './run-text';
import './training.css';

const CHART_HEIGHT = 220;
/** Colours of a chart's first and second series (a run's loss, then its eval loss). */
const SERIES_COLORS = ['var(--accent)', 'var(--warn)'];
/** A positive series spanning more than this ratio is drawn on a log axis (a gradient norm's spike flattens the rest). */
const LOG_AXIS_RATIO = 1_000;

export function TrainingPanel({ result }: { result: LoadResult }) {
  const section = result.sections.trainingRun;
  return (
    <section className="insight training-run fact-panel" aria-label="Training run" data-testid="training-run">
      <h3>Training run{section ? <span className="muted"> ({section.file})</span> : null}</h3>
      {section ? <TrainingRun section={section} /> : <TrainerStateUnread result={result} />}
    </section>
  );
}

function TrainerStateUnread({ result }: { result: LoadResult }) {
  const slot = useAppStore((state) => (state.load.status === 'ready' ? state.load : null));
  const read = useAppStore((state) => state.readTrainingOnDemand);
  const cancel = useAppStore((state) => state.cancelTrainingOnDemand);
  const asked = result.trainingOnDemand;
  if (slot?.trainingReading) {
    return (
      <FileReadProgress
        doing={`Reading ${asked?.join(', ') ?? 'trainer_state.json'}`}
        progress={slot.trainingProgress}
        bytes={result.trainingBytes}
        onCancel={cancel}
      />
    );
  }
  if (asked) {
    return (
      <FileReadStart
        file="trainer_state.json"
        files={asked}
        bytes={result.trainingBytes}
        from="by one request to the server that holds the model"
        gives="the run's steps, its best checkpoint and its logged loss."
        onRead={() => void read()}
      />
    );
  }
  const notFound = slot?.trainingNotFound?.join(', ') ?? 'trainer_state.json';
  return (
    <p className="values-error" role="alert" data-testid="training-not-found">
      {notFound} could not be read: it is missing, over {MAX_TRAINER_STATE_BYTES / 2 ** 20} MiB, or not JSON
      (Python&apos;s NaN and Infinity are read).
    </p>
  );
}

/** The charts and figures of a trainer_state.json's run; exported for its tests. */
export function TrainingRun({ section }: { section: TrainingRunSection }) {
  const byKey = new Map(section.series.map((series) => [series.key, series]));
  const losses = lossSeries(section.series);
  const bestStep = section.best?.step ?? null;
  const bestMarker = bestStep === null ? undefined : { x: bestStep, label: `best (step ${groupDigits(bestStep)})` };
  // A run that keeps its best checkpoint by a metric of its own (eval_wer, eval_accuracy) gets that metric's chart,
  // and the best step is marked there: on the loss chart it would sit where the loss is not lowest.
  const metricKey = section.best?.metricKey ?? null;
  const metric = metricKey === null || losses.some((one) => one.key === metricKey) ? undefined : byKey.get(metricKey);
  const firstStep = Math.min(...section.series.map((series) => series.first.step));
  const lastStep = Math.max(...section.series.map((series) => series.last.step));
  // Every chart spans the whole log, so a series whose last values were NaN shows where it stopped.
  const span = {
    xDomain: [firstStep, lastStep] as const,
    shade:
      section.divergedAtStep === null
        ? undefined
        : {
            from: section.divergedAtStep,
            to: lastStep,
            label: `NaN or Inf from step ${groupDigits(section.divergedAtStep)}`,
          },
  };
  return (
    <>
      <TrainingFacts section={section} />
      <div className="training-charts">
        {losses.length > 0 && (
          <TrainingChart title="Loss" series={losses} span={span} marker={metric ? undefined : bestMarker} />
        )}
        {metric && (
          <TrainingChart
            title={`${metric.key}: the metric the best checkpoint is chosen by`}
            series={[metric]}
            span={span}
            marker={bestMarker}
          />
        )}
        {byKey.has('learning_rate') && (
          <TrainingChart title="Learning rate" series={[byKey.get('learning_rate')]} span={span} />
        )}
        {byKey.has('grad_norm') && (
          <TrainingChart title="Gradient norm" series={[byKey.get('grad_norm')]} span={span} />
        )}
      </div>
      {section.settings && <RunSettingsTable settings={section.settings} />}
      {section.series.length > 0 ? (
        <LoggedValuesTable section={section} />
      ) : (
        <p className="muted">
          Nothing was logged yet (log_history is empty)
          {section.loggingSteps === null ? '.' : `: the run logs every ${plural(section.loggingSteps, 'step')}.`}
        </p>
      )}
    </>
  );
}

/** The run's loss, then its eval loss (or, without either, the first two keys that end in `loss`). */
function lossSeries(series: readonly TrainingSeries[]): TrainingSeries[] {
  const named = ['loss', 'eval_loss'].flatMap((key) => series.find((one) => one.key === key) ?? []);
  return named.length > 0 ? named : series.filter((one) => one.key.endsWith('loss')).slice(0, 2);
}

function epochOf(section: TrainingRunSection): string {
  const epoch = epochText(section) ?? '—';
  return section.numTrainEpochs === null ? epoch : `${epoch} of ${groupDigits(section.numTrainEpochs)}`;
}

function scheduleOf(section: TrainingRunSection): string {
  const parts: string[] = [];
  if (section.loggingSteps !== null) {
    parts.push(`logs every ${plural(section.loggingSteps, 'step')}`);
  }
  // eval_steps is written whether or not the run evaluates; its eval_ keys say whether it did.
  if (section.evalSteps !== null && section.series.some((series) => series.key.startsWith('eval_'))) {
    parts.push(`evaluates every ${plural(section.evalSteps, 'step')}`);
  }
  if (section.saveSteps !== null) {
    parts.push(`saves every ${plural(section.saveSteps, 'step')}`);
  }
  return parts.join(', ');
}

/**
 * Whether the run had ended when the file was written. The step reaching max_steps says so; TrainerControl's flag
 * says so in a checkpoint, but save_state() after train() writes it reset, so alone it only tells a stop before the
 * plan's end.
 */
function whenSaved(section: TrainingRunSection): string | null {
  const { globalStep, maxSteps, trainingStopped } = section;
  if (globalStep !== null && maxSteps !== null && globalStep >= maxSteps) {
    return 'training had ended (max_steps reached)';
  }
  if (trainingStopped === true) {
    return 'training had been stopped before max_steps';
  }
  return trainingStopped === false ? 'training was running' : null;
}

function TrainingFacts({ section }: { section: TrainingRunSection }) {
  const { totals } = section;
  const schedule = scheduleOf(section);
  const saved = whenSaved(section);
  return (
    <dl className="facts">
      <Fact label="Step" value={stepText(section, true) ?? 'not given'} testId="training-step" />
      <Fact label="Epoch" value={epochOf(section)} testId="training-epoch" />
      {saved !== null && <Fact label="When saved" value={saved} testId="training-when-saved" />}
      {section.best && (
        <Fact label="Best checkpoint" value={bestText(section.best, true, 'not named')} testId="training-best" />
      )}
      {section.trainBatchSize !== null && (
        <Fact label="Batch size" value={`${groupDigits(section.trainBatchSize)} per device`} />
      )}
      {schedule !== '' && <Fact label="Schedule" value={schedule} testId="training-schedule" />}
      {totals && (
        <Fact
          label="Run totals"
          value={[
            totals.trainLoss === null ? null : `train loss ${loggedValueText(totals.trainLoss)}`,
            totals.runtimeSeconds === null ? null : `${formatValue(totals.runtimeSeconds)} s`,
            totals.samplesPerSecond === null ? null : `${formatValue(totals.samplesPerSecond)} samples/s`,
          ]
            .filter((part) => part !== null)
            .join(', ')}
          testId="training-totals"
        />
      )}
      {section.inputTokensSeen !== null && <Fact label="Tokens seen" value={formatCount(section.inputTokensSeen)} />}
      {section.totalFlos !== null && <Fact label="Compute" value={`${formatCount(section.totalFlos)} FLOs`} />}
      <Fact
        label="Log entries"
        value={`${groupDigits(section.logEntries)}${section.logTruncated ? ' (only the first read)' : ''}`}
        testId="training-entries"
      />
    </dl>
  );
}

function TrainingChart({
  title,
  series,
  span,
  marker,
}: {
  title: string;
  series: ReadonlyArray<TrainingSeries | undefined>;
  span: Pick<LinesSpec, 'xDomain' | 'shade'>;
  marker?: { x: number; label: string };
}) {
  const shown = series.filter((one): one is TrainingSeries => one !== undefined);
  const lines: LineSeries[] = shown.map((one, at) => ({
    name: one.key,
    xs: one.steps,
    values: one.values,
    color: SERIES_COLORS[at % SERIES_COLORS.length],
    dashed: at > 0,
  }));
  const values = shown.flatMap((one) => one.values);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const logScale = values.length > 0 && low > 0 && high / low > LOG_AXIS_RATIO;
  const notDrawn = shown.filter((one) => one.nonFinite !== null);
  return (
    <figure className="training-chart" data-testid="training-chart">
      <figcaption>
        {title}
        {logScale ? <span className="muted"> (log scale)</span> : null}
      </figcaption>
      {values.length > 0 ? (
        <LinesChart
          label={`${title} over the training steps`}
          series={lines}
          height={CHART_HEIGHT}
          xName="step"
          formatValue={formatValue}
          logScale={logScale}
          marker={marker}
          {...span}
        />
      ) : (
        <p className="muted">No finite value to draw.</p>
      )}
      {notDrawn.map((one) => (
        <p key={one.key} className="training-not-finite" role="note">
          {one.key}: {plural(one.nonFinite?.count ?? 0, 'value')} NaN or infinite, not drawn (the first,{' '}
          {one.nonFinite?.first.value}, at step {groupDigits(one.nonFinite?.first.step ?? 0)}).
        </p>
      ))}
    </figure>
  );
}

function At({ logged }: { logged: LoggedValue | null }) {
  if (logged === null) {
    return <>—</>;
  }
  return (
    <>
      {loggedValueText(logged.value)} <span className="muted">@ {groupDigits(logged.step)}</span>
    </>
  );
}

function LoggedValuesTable({ section }: { section: TrainingRunSection }) {
  return (
    <div className="table-scroll">
      <table data-testid="training-series">
        <caption>
          Logged values (value @ step)
          {section.seriesLeftOut > 0 ? `; ${plural(section.seriesLeftOut, 'more key')} not shown` : ''}
        </caption>
        <TableHead
          columns={[
            'Key',
            numeric('Logged'),
            numeric('First'),
            numeric('Last'),
            numeric('Lowest'),
            numeric('Highest'),
            numeric('NaN or Inf'),
          ]}
        />
        <tbody>
          {section.series.map((series) => (
            <tr key={series.key}>
              <td className="mono">{series.key}</td>
              <td className="num">{groupDigits(series.count)}</td>
              <td className="num mono">
                <At logged={series.first} />
              </td>
              <td className="num mono">
                <At logged={series.last} />
              </td>
              <td className="num mono">
                <At logged={series.min} />
              </td>
              <td className="num mono">
                <At logged={series.max} />
              </td>
              <td className={series.nonFinite ? 'num bad' : 'num'}>
                {series.nonFinite ? groupDigits(series.nonFinite.count) : '0'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RunSettingsTable({ settings }: { settings: RunSettings }) {
  return (
    <div className="table-scroll">
      <table data-testid="training-settings" className="training-settings">
        <caption>Settings ({settings.file}, the run&apos;s TrainingArguments)</caption>
        <TableHead columns={['Setting', 'Value', 'Field']} />
        <tbody>
          {settings.fields.map((field) => (
            <tr key={field.key}>
              <td>{field.label}</td>
              <td className="mono">{field.value}</td>
              <td className="mono muted">{field.key}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
