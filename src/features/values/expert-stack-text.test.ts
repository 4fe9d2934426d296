import { describe, expect, it } from 'vitest';
import type { ExpertStackScan } from '../../core/values/expert-stack-scan';
import { expertStackText } from './expert-stack-text';

const stack = (found: Partial<ExpertStackScan>): ExpertStackScan => ({
  tensor: 'blk.0.ffn_up_exps.weight',
  row: 0,
  experts: 8,
  zeroExperts: [],
  nonFiniteExperts: [],
  copies: [],
  rmsOutliers: [],
  medianRms: 0.02,
  rms: [],
  ...found,
});

describe('a stack of experts in the scan, in words', () => {
  it('names each kind of expert that stands out', () => {
    expect(
      expertStackText(
        stack({
          zeroExperts: [3],
          nonFiniteExperts: [4],
          copies: [[2, 5]],
          rmsOutliers: [{ expert: 7, rms: 1, ratio: 50 }],
        }),
      ),
    ).toBe(
      "expert 3 all zeros; expert 4 holds NaN or ±Inf; experts 2 and 5 hold the same values; expert 7's RMS 50× the " +
        "stack's median (0.02)",
    );
  });

  it('says an upcycled stack whose experts are one copy is such', () => {
    expect(expertStackText(stack({ copies: [[0, 1, 2, 3, 4, 5, 6, 7]] }))).toBe(
      'all 8 experts hold the same values (an upcycled layer whose experts never diverged, or one expert copied into ' +
        'every slot)',
    );
  });
});
