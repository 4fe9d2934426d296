/**
 * "Compare values" of a layer against a copy with LoRAs of rank 8, 48 and 32 (its weaker directions under the
 * rounding) merged into three projections, a fourth fine-tuned in every direction and a fifth moved too little to
 * tell (scripts/change-rank-fixtures.py): the singular values of each change over the rows kept, as numpy's SVD gives
 * them, the directions holding 90 % and 99 % of it, how far it stands over the rounding, and the merged ones' ranks.
 */
import { describe, expect, it } from 'vitest';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { compareFilesByName } from '../testing/value-pairings';
import { changeRankCompareAnswer, present } from '../testing/values-fixtures';

const ANSWER = changeRankCompareAnswer();

describe('the directions a change uses', () => {
  it('gives each changed matrix numpy’s spectrum and says which are low rank, and at what rank', async () => {
    const result = await compareFilesByName(DIR, ANSWER.a, ANSWER.b);
    for (const entry of result.tensors) {
      const want = ANSWER.tensors[entry.tensor];
      if (!want) {
        expect(entry.identical, entry.tensor).toBe(true);
        expect(entry.changeRank, entry.tensor).toBeUndefined();
        continue;
      }
      const found = present(entry.changeRank, `the change's rank of ${entry.tensor}`);
      expect([found.rowsRead, found.rows, found.directions], entry.tensor).toEqual([
        want.rowsRead,
        want.rows,
        want.directions,
      ]);
      expect([found.directions90, found.directions99], entry.tensor).toEqual([want.directions90, want.directions99]);
      expect(found.lowRank?.rank ?? null, entry.tensor).toBe(want.lowRank?.rank ?? null);
      if (want.lowRank && found.lowRank) {
        expect(found.lowRank.aboveFloor / want.lowRank.aboveFloor, entry.tensor).toBeCloseTo(1, 6);
      }
      const over = present(found.overRounding, 'the rounding') / present(want.overRounding, 'the rounding');
      expect(over, entry.tensor).toBeCloseTo(1, 9);
      // Eigenvalues of the Gram: the directions of the change to 1e-9, the rounding floor to √ε of the largest.
      const top = want.singularValues[0];
      want.singularValues.forEach((sigma, i) => {
        const tolerance = sigma > 1e-3 * top ? 1e-9 * sigma : 1e-7 * top;
        expect(Math.abs(found.singularValues[i] - sigma), `${entry.tensor} σ${i + 1}`).toBeLessThanOrEqual(tolerance);
      });
    }
    // Rank 8 and 48 whole; the rank-32 update whose weakest directions sank into the rounding shows fewer.
    const ranks = Object.fromEntries(result.tensors.map((entry) => [entry.tensor, entry.changeRank?.lowRank?.rank]));
    expect(ranks['model.layers.0.self_attn.q_proj.weight']).toBe(8);
    expect(ranks['model.layers.0.self_attn.v_proj.weight']).toBe(48);
    expect(ranks['model.layers.0.self_attn.k_proj.weight']).toBeLessThan(32);
    expect(ranks['model.layers.0.self_attn.o_proj.weight']).toBeUndefined();
  });
});
