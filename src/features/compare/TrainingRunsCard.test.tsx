/** The compare view's training runs card over trainer_state.json files the Trainer wrote in real runs. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { parsePythonJson } from '../../core/analysis/training-run/python-json';
import { summarizeTrainerState, type TrainingRunSection } from '../../core/analysis/training-run/trainer-state';
import { trainerStateText } from '../../testing/trainer-state-fixtures';
import { TrainingRuns } from './TrainingRunsCard';

function sectionOf(folder: string, cutAtStep?: number): TrainingRunSection {
  const state = parsePythonJson(trainerStateText(folder)) as {
    global_step: number;
    log_history: Array<{ step: number }>;
  };
  // An earlier checkpoint of the same run: its log is the run's log up to its step.
  const cut =
    cutAtStep === undefined
      ? state
      : { ...state, global_step: cutAtStep, log_history: state.log_history.filter((entry) => entry.step <= cutAtStep) };
  const section = summarizeTrainerState(`${folder}/trainer_state.json`, cut);
  if (section === null) {
    throw new Error(folder);
  }
  return section;
}

describe('the training runs card', () => {
  it('two checkpoints of one run: how far apart they are, each side facts', () => {
    const html = renderToStaticMarkup(
      <TrainingRuns runA={sectionOf('overfit/checkpoint-12', 8)} runB={sectionOf('overfit/checkpoint-12')} />,
    );
    expect(html).toContain('The two logs agree on the 8 losses they share: checkpoints of one run, B 4 steps after A.');
    expect(html).toContain('8 of 12');
    expect(html).toContain('12 of 12');
  });

  it('two runs that part at their second step are not called one', () => {
    const html = renderToStaticMarkup(
      <TrainingRuns runA={sectionOf('overfit/checkpoint-12')} runB={sectionOf('diverged')} />,
    );
    expect(html).not.toContain('checkpoints of one run');
    expect(html).toContain('NaN or Inf from step 3');
  });
});
