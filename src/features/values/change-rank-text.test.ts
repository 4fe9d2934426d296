import { describe, expect, it } from 'vitest';
import type { ChangeRank } from '../../core/values/change-rank';
import type { ValueComparison } from '../../core/values/compare-values';
import { plainSpaces } from '../../testing/text';
import { changeRankSummary, changeRankText } from './change-rank-text';

const rank = (lowRank: ChangeRank['lowRank'], directions90 = 6): ChangeRank => ({
  rowsRead: 128,
  rows: 512,
  directions: 128,
  singularValues: [1, 0.5],
  directions90,
  directions99: 8,
  overRounding: 500,
  lowRank,
});

const entry = (changeRank: ChangeRank | undefined, extra: Partial<ValueComparison> = {}): ValueComparison => ({
  tensor: 't',
  identical: false,
  identicalBy: 'bytes',
  decodedBy: 'decoding BF16',
  note: null,
  basis: 'all',
  dtypeA: 'BF16',
  dtypeB: 'BF16',
  elements: 1,
  nonFinitePairs: 0,
  maxAbs: 1,
  relL2: 0.1,
  cosine: 0.99,
  changeRank,
  ...extra,
});

describe('changeRankText', () => {
  it('gives the rank, the fall after it and the rows it was read over', () => {
    expect(plainSpaces(changeRankText(rank({ rank: 8, aboveFloor: 30.9 })) ?? '')).toBe(
      'ΔW = B − A over 128 of 512 rows has rank 8 over the rounding: its 8th singular value is 30.9× the largest that rounding B to its dtype leaves, and all under it is rounding.',
    );
    expect(plainSpaces(changeRankText({ ...rank({ rank: 2, aboveFloor: 4 }), rowsRead: 512 }) ?? '')).toMatch(
      /^ΔW = B − A over 512 rows has rank 2 over the rounding: its 2nd singular value is 4.0× the largest/,
    );
    expect(changeRankText(rank({ rank: 11, aboveFloor: 250 }))).toContain(
      'its 11th singular value is 250× the largest',
    );
    expect(changeRankText(rank(null))).toBeNull();
  });
});

describe('changeRankSummary', () => {
  it('counts the low-rank updates by rank, and the others', () => {
    const summary = changeRankSummary([
      entry(rank({ rank: 8, aboveFloor: 31 }), { tensor: 'model.layers.0.self_attn.q_proj.weight' }),
      entry(rank({ rank: 8, aboveFloor: 12 }), { tensor: 'model.layers.1.self_attn.q_proj.weight' }),
      entry(rank({ rank: 48, aboveFloor: 13 }), { tensor: 'model.layers.0.self_attn.v_proj.weight' }),
      entry(rank(null, 79)),
      entry({ ...rank(null, 100), overRounding: 3 }),
      entry(undefined),
    ]);
    expect(plainSpaces(summary ?? '')).toBe(
      '3 of 4 changed matrices are low-rank updates (2 of rank 8, 1 of rank 48) in self_attn.q_proj (2), self_attn.v_proj (1): B − A takes that many directions and leaves only rounding, as when a LoRA is merged into them (one whose weaker directions sank into the rounding shows fewer); 1 other changes in more directions. 1 more is too close to the rounding of the stored values to tell.',
    );
  });

  it('says none is, for matrices of one dtype on both sides, leaving scaled ones out', () => {
    const scaled = entry(rank(null, 120), {
      channelScales: {
        axis: 'tensor',
        before: 1,
        after: 0,
        lines: 1,
        scaled: 1,
        min: 2,
        max: 2,
        median: 2,
        extremes: [],
      },
    });
    expect(plainSpaces(changeRankSummary([entry(rank(null, 79)), entry(rank(null, 81)), scaled]) ?? '')).toBe(
      'None of the 2 changed matrices not scaled is a low-rank update: 90 % of each change takes a median of 80 of 128 directions, as training every weight leaves, not a merged LoRA of rank up to 64.',
    );
    expect(plainSpaces(changeRankSummary([entry(rank(null, 79))]) ?? '')).toBe(
      'The changed matrix is not a low-rank update: 90 % of its change takes 79 of 128 directions, as training every weight leaves, not a merged LoRA of rank up to 64.',
    );
    expect(changeRankSummary([entry(rank(null, 79), { identicalBy: 'values' })])).toBeNull();
    expect(changeRankSummary([scaled])).toBeNull();
  });
});
