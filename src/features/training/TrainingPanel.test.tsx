/**
 * The Training tab's figures and charts over trainer_state.json files the Trainer wrote (scripts/
 * trainer-state-fixtures.py): which charts a run gets, where the best step is marked, and how a diverged run's
 * values that cannot be drawn are said.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { parsePythonJson } from '../../core/analysis/training-run/python-json';
import { summarizeTrainerState, type TrainingRunSection } from '../../core/analysis/training-run/trainer-state';
import { trainerStateText } from '../../testing/trainer-state-fixtures';
import { TrainingRun } from './TrainingPanel';

function sectionOf(folder: string): TrainingRunSection {
  const section = summarizeTrainerState(`${folder}/trainer_state.json`, parsePythonJson(trainerStateText(folder)));
  if (section === null) {
    throw new Error(`${folder} is not a trainer state`);
  }
  return section;
}

const captions = (html: string) =>
  [...html.matchAll(/<figcaption>(.*?)<\/figcaption>/g)].map((match) => match[1].replace(/<[^>]+>/g, ''));

describe('the Training tab', () => {
  it('a run kept best by eval_loss: loss, learning rate and gradient norm charts', () => {
    const html = renderToStaticMarkup(<TrainingRun section={sectionOf('overfit/checkpoint-12')} />);
    expect(captions(html)).toEqual(['Loss', 'Learning rate', 'Gradient norm']);
    expect(html).toContain('checkpoint-4 (step 4): eval_loss 3.93');
    expect(html).toContain('12 of 12 (100%)');
  });

  it('a run kept best by a metric of its own gets that metric charted, with the best step', () => {
    const section = sectionOf('confidence/checkpoint-12');
    expect(section.best?.metricKey).toBe('eval_confidence');
    const html = renderToStaticMarkup(<TrainingRun section={section} />);
    expect(captions(html)).toEqual([
      'Loss',
      'eval_confidence: the metric the best checkpoint is chosen by',
      'Learning rate',
      'Gradient norm',
    ]);
  });

  it("a diverged run: the values not drawn said, and the runs's totals", () => {
    const html = renderToStaticMarkup(<TrainingRun section={sectionOf('diverged')} />);
    expect(html).toContain('grad_norm: 6 values NaN or infinite, not drawn (the first, NaN, at step 3).');
    expect(html).toContain('training had ended (max_steps reached)');
    expect(html).toMatch(/train loss 1\.033e\+8/);
  });
});
