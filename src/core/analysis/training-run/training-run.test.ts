import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsedHeaderFromSpecs } from '../../../testing/build-sharded';
import { expectedTrainerState, trainerStateText } from '../../../testing/trainer-state-fixtures';
import type { AnalysisInput } from '../analysis-types';
import { parsePythonJson } from './python-json';
import { summarizeTrainerState, type TrainingSeries } from './trainer-state';
import { trainingRunAnalysis } from './training-run';

function runOn(file: string, state: unknown) {
  const input: AnalysisInput = {
    header: parsedHeaderFromSpecs([]),
    names: [],
    fileName: 'model.safetensors',
    sidecars: { trainerState: { file, state } },
    tensorBytes: new Map(),
  };
  return trainingRunAnalysis.run(input);
}

function fixtureRun(folder: string) {
  return runOn(`${folder}/trainer_state.json`, parsePythonJson(trainerStateText(folder)));
}

/** A series' logged values as the fixture script lists them: [step, value], non-finite ones spelled. */
function logged(series: TrainingSeries | undefined): Array<[number, number | string]> {
  if (!series) {
    return [];
  }
  // Every fixture series is short, so all its finite points are drawn; the non-finite ones are counted apart.
  const finite = series.steps.map((step, at): [number, number | string] => [step, series.values[at]]);
  const broken: Array<[number, string]> = [];
  if (series.nonFinite) {
    for (let step = series.nonFinite.first.step; broken.length < series.nonFinite.count; step++) {
      broken.push([step, series.nonFinite.first.value as string]);
    }
  }
  return [...finite, ...broken].sort((a, b) => a[0] - b[0]);
}

/** Paths of the numbers in `value` that are NaN or infinite, which a JSON report cannot hold. */
function nonFiniteNumbersIn(value: unknown, at = ''): string[] {
  if (typeof value === 'number') {
    return Number.isFinite(value) ? [] : [at];
  }
  if (typeof value !== 'object' || value === null) {
    return [];
  }
  return Object.entries(value).flatMap(([key, inner]) => nonFiniteNumbersIn(inner, `${at}.${key}`));
}

describe('training run (trainer_state.json)', () => {
  it("a checkpoint of an overfitting run: its step, the run's best checkpoint, and the logged losses", () => {
    const expected = expectedTrainerState('overfit/checkpoint-12');
    const { section, findings } = fixtureRun('overfit/checkpoint-12');
    expect(section?.checkpointStep).toBe(12);
    expect(section?.globalStep).toBe(expected.globalStep);
    expect(section?.maxSteps).toBe(12);
    expect(section?.trainingStopped).toBe(true);
    expect(section?.logEntries).toBe(expected.entries);
    expect(section?.best).toEqual({
      metric: expected.bestMetric,
      metricKey: 'eval_loss',
      greaterIsBetter: null,
      checkpoint: expected.bestModelCheckpoint,
      step: 4,
    });
    const series = new Map(section?.series.map((one) => [one.key, one]));
    expect(logged(series.get('loss'))).toEqual(expected.losses);
    expect(logged(series.get('grad_norm'))).toEqual(expected.gradNorms);
    expect(logged(series.get('eval_loss'))).toEqual(expected.evalLosses);
    expect(section?.series.slice(0, 4).map((one) => one.key)).toEqual([
      'loss',
      'eval_loss',
      'learning_rate',
      'grad_norm',
    ]);
    // The checkpoint was saved before train() logged its totals.
    expect(section?.totals).toBeNull();
    expect(findings.map((finding) => finding.code)).toEqual(['training-checkpoint-not-best']);
    expect(findings[0].message).toContain('checkpoint-4 had eval_loss 3.93 (here: 4.096)');
  });

  it('a run kept best by a metric of its own: that metric named, and no note where this is the best', () => {
    const expected = expectedTrainerState('confidence/checkpoint-12');
    const { section, findings } = fixtureRun('confidence/checkpoint-12');
    expect(section?.best).toEqual({
      metric: expected.bestMetric,
      metricKey: 'eval_confidence',
      greaterIsBetter: null,
      checkpoint: expected.bestModelCheckpoint,
      step: 12,
    });
    expect(findings).toEqual([]);
  });

  it("the run folder's file written by save_state(): the totals, and no checkpoint to judge", () => {
    const expected = expectedTrainerState('overfit');
    const { section, findings } = fixtureRun('overfit');
    expect(section?.checkpointStep).toBeNull();
    expect(section?.logEntries).toBe(expected.entries);
    expect(section?.epoch).toBe(expected.epoch);
    expect(section?.totals?.trainLoss).toBeCloseTo(3.4532, 3);
    expect(section?.totals?.runtimeSeconds).toBeGreaterThan(0);
    expect(section?.series.map((one) => one.key)).not.toContain('train_loss');
    expect(findings).toEqual([]);
  });

  it('a diverged run: NaN gradient norms from the step the Trainer logged them, and the loss it hid', () => {
    const expected = expectedTrainerState('diverged');
    const { section, findings } = fixtureRun('diverged');
    const gradNorm = section?.series.find((one) => one.key === 'grad_norm');
    expect(logged(gradNorm)).toEqual(expected.gradNorms);
    const firstNaN = expected.gradNorms.find(([, value]) => value === 'NaN');
    expect(gradNorm?.nonFinite?.first).toEqual({ step: firstNaN?.[0], value: 'NaN' });
    expect(section?.divergedAtStep).toBe(firstNaN?.[0]);
    expect(gradNorm?.last).toEqual({ step: 8, value: 'NaN' });
    expect(gradNorm?.max).toEqual({ step: 2, value: 274583.90625 });
    expect(findings.map((finding) => finding.code)).toEqual(['training-diverged']);
    expect(findings[0].severity).toBe('warning');
    expect(findings[0].message).toContain('grad_norm NaN from step 3 (6 logged values of 8)');
    expect(findings[0].message).toContain('the last finite grad_norm was 2.746e+5 at step 2');
    expect(findings[0].message).toContain('logging_nan_inf_filter');
    // The report is JSON: no NaN may reach it.
    expect(nonFiniteNumbersIn(section)).toEqual([]);
  });

  it('summarizes a trainer state once across the re-runs a later sidecar read makes', () => {
    const trainerState = { file: 'trainer_state.json', state: parsePythonJson(trainerStateText('overfit')) };
    const input = (sidecars: AnalysisInput['sidecars']): AnalysisInput => ({
      header: parsedHeaderFromSpecs([]),
      names: [],
      fileName: 'model.safetensors',
      sidecars,
      tensorBytes: new Map(),
    });
    const first = trainingRunAnalysis.run(input({ trainerState }));
    expect(trainingRunAnalysis.run(input({ trainerState, config: {} })).section).toBe(first.section);
    // training_args.bin read with it changes the summary (the best metric's direction).
    const args = { file: 'training_args.bin', fields: { metric_for_best_model: 'loss', greater_is_better: 'False' } };
    const withArgs = trainingRunAnalysis.run(input({ trainerState, trainingArgs: args })).section;
    expect(withArgs).not.toBe(first.section);
    expect(withArgs?.best?.greaterIsBetter).toBe(false);
  });

  it('draws at most the bucket count per series, keeping a spike', () => {
    const entries = Array.from({ length: 10_000 }, (_, at) => ({ step: at + 1, loss: at === 7_777 ? 50 : 2 }));
    const section = summarizeTrainerState('trainer_state.json', { global_step: 10_000, log_history: entries });
    const loss = section?.series[0];
    expect(loss?.count).toBe(10_000);
    expect(loss?.values.length).toBeLessThanOrEqual(2_000);
    expect(loss?.values).toContain(50);
    expect(loss?.steps[loss.values.indexOf(50)]).toBe(7_778);
    expect(loss?.max).toEqual({ step: 7_778, value: 50 });
  });

  it('never throws on arbitrary values where a trainer state would be, and keeps its report JSON', () => {
    const logValue = fc.oneof(fc.double(), fc.integer(), fc.string(), fc.constant(null));
    const entry = fc.dictionary(fc.constantFrom('step', 'loss', 'grad_norm', 'eval_loss', 'epoch', 'x'), logValue);
    fc.assert(
      fc.property(
        fc.record({ global_step: logValue, best_metric: logValue, log_history: fc.array(entry, { maxLength: 40 }) }),
        fc.anything(),
        (state, other) => {
          for (const value of [state, other]) {
            const { section } = runOn('checkpoint-7/trainer_state.json', value);
            expect(nonFiniteNumbersIn(section)).toEqual([]);
          }
        },
      ),
    );
  });

  it("names the best checkpoint from the training machine's path, Windows' included", () => {
    for (const path of ['/storage/run/checkpoint-3000', 'C:\\runs\\whisper\\checkpoint-3000\\', 'checkpoint-3000']) {
      const { section } = runOn('trainer_state.json', {
        global_step: 5000,
        best_metric: 0.74,
        best_model_checkpoint: path,
      });
      expect(section?.best).toMatchObject({ checkpoint: 'checkpoint-3000', step: 3000 });
    }
  });

  it('says nothing of values that are not a trainer state, and survives hostile ones', () => {
    expect(runOn('trainer_state.json', [1, 2]).section).toBeNull();
    expect(runOn('trainer_state.json', { hello: 1 }).section).toBeNull();
    const odd = runOn('checkpoint-3/trainer_state.json', {
      global_step: 3,
      best_metric: 'x',
      log_history: [null, 7, { step: 'a', loss: 1 }, { step: 1, loss: 'x', epoch: 1 }, { step: 2, loss: -Infinity }],
      stateful_callbacks: { TrainerControl: 5 },
    });
    expect(odd.section?.series.map((one) => [one.key, one.count, one.nonFinite?.first])).toEqual([
      ['loss', 1, { step: 2, value: '-Infinity' }],
    ]);
    expect(odd.section?.best).toBeNull();
    expect(odd.section?.trainingStopped).toBeNull();
    expect(odd.findings.map((finding) => finding.code)).toEqual(['training-diverged']);
  });
});
