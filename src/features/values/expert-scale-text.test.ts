import { describe, expect, it } from 'vitest';
import { EXPERT_MARK, type ExpertScaleMap } from '../../core/values/expert-scale-map';
import { expertScaleCellText, expertScaleSummary, layersStandingOut } from './expert-scale-text';

const map = (fields: Partial<ExpertScaleMap> = {}): ExpertScaleMap => ({
  layers: [
    { stack: 'model.layers.', layer: 0 },
    { stack: 'model.layers.', layer: 1 },
  ],
  experts: 3,
  ratio: [1, 0.9, 1.2, 1, null, 20.5],
  roleOf: [0, 0, 1, 0, -1, 1],
  roles: ['mlp.experts.#.w1.weight', 'mlp.experts.#.w2.weight'],
  marks: [0, 0, 0, 0, EXPERT_MARK.zeros | EXPERT_MARK.copy, 0],
  outlierCells: 1,
  zeroCells: 1,
  nonFiniteCells: 0,
  copyCells: 1,
  scannedCells: 6,
  farthest: 20.5,
  ...fields,
});

describe('the scan’s map of expert scales, in words', () => {
  it('sums up what stands out, or how close the experts are', () => {
    expect(expertScaleSummary(map())).toBe(
      "2 layers × 3 experts, 6 scanned: 1 with an RMS over 10× or under 1/10 of the same tensor's median in their layer (farthest 20.5×); 1 all zeros; 1 a copy of another expert or tensor.",
    );
    expect(
      expertScaleSummary(
        map({ outlierCells: 0, zeroCells: 0, copyCells: 0, farthest: 0.8, marks: [0, 0, 0, 0, 0, 0] }),
      ),
    ).toBe(
      "2 layers × 3 experts, 6 scanned: every expert's RMS within 1.25× of the same tensor's median in its layer.",
    );
    expect(expertScaleSummary(map({ outlierCells: 0, zeroCells: 0, copyCells: 0, farthest: null }))).toBe(
      '2 layers × 3 experts, 6 scanned: no tensor has three experts with values to set a median by.',
    );
  });

  it('says what a cell holds', () => {
    expect(expertScaleCellText(map(), 1, 2)).toBe(
      "model.layers.1, expert 2: RMS 20.5× the median of its layer's experts (mlp.experts.#.w2.weight, the farthest of its tensors)",
    );
    expect(expertScaleCellText(map(), 1, 1)).toBe(
      'model.layers.1, expert 1: all zeros; holds the same values as another expert or tensor',
    );
    expect(expertScaleCellText(map({ marks: [null, 0, 0, 0, 0, 0] }), 0, 0)).toBe(
      'model.layers.0, expert 0: not scanned',
    );
  });

  it('lists only the layers with an expert that stands out', () => {
    expect(layersStandingOut(map())).toEqual([
      {
        row: 1,
        layer: 'model.layers.1',
        experts: [1, 2],
        text: 'expert 2 20.5× (mlp.experts.#.w2.weight); expert 1 all zeros; expert 1 holds the same values as another expert or tensor',
      },
    ]);
  });
});
