/**
 * "Compare values" of a layer against a copy with LoRAs of rank 8 and 48 merged into two projections and a third
 * fine-tuned in every direction (scripts/change-rank-fixtures.py: the safetensors library wrote them, numpy's SVD
 * gave the answer): the line above the table counts the low-rank updates by rank, each names its rank and how far
 * the singular values fall after it, the fine-tuned one says nothing of a rank, and the report carries numpy's
 * figures.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { compareValuesOfFiles, downloadReport, escapeRegExp, openApp, watchPage } from './helpers';
import { groupDigits, plural } from '../src/core/number-format';
import { changeRankCompareAnswer } from '../src/testing/values-fixtures';

const VALUES_DIR = join(process.cwd(), 'fixtures', 'values');

test('Compare values: the changes that are low-rank updates, at numpy’s ranks', async ({ page }) => {
  const watch = watchPage(page);
  const answer = changeRankCompareAnswer();
  await openApp(page);
  await compareValuesOfFiles(page, VALUES_DIR, answer.a, answer.b);
  const changed = Object.entries(answer.tensors);
  const low = changed.filter(([, want]) => want.lowRank);
  // A change too close to the rounding tells no rank either way and is left out of the count.
  const told = changed.filter(([, want]) => (want.overRounding ?? 0) >= 10);
  expect([low.length, told.length]).toEqual([3, 4]);
  const ranks = low.map(([, want]) => want.lowRank?.rank ?? 0).sort((x, y) => x - y);
  const targets = low.map(([name]) => `${name.replace(/^model\.layers\.0\.|\.weight$/g, '')} (1)`).sort();
  await expect(page.getByTestId('compare-values-ranks')).toHaveText(
    `${low.length} of ${plural(told.length, 'changed matrix', 'changed matrices')} are low-rank updates (` +
      ranks.map((rank) => `1 of rank ${rank}`).join(', ') +
      `) in ${targets.join(', ')}: B − A takes that many directions and leaves only rounding, as when a LoRA is ` +
      'merged into them (one whose weaker directions sank into the rounding shows fewer); 1 other changes in more ' +
      'directions. 1 more is too close to the rounding of the stored values to tell.',
  );
  await expect(page.getByTestId('compare-values-change-rank')).toHaveCount(low.length);
  for (const [name, want] of low) {
    const row = page
      .getByTestId('compare-values-table')
      .locator('tbody tr')
      .filter({ hasText: new RegExp(`^${escapeRegExp(name)}`) });
    const rows = `${groupDigits(want.rowsRead)} of ${plural(want.rows, 'row')}`;
    const rank = want.lowRank?.rank ?? 0;
    const times = (want.lowRank?.aboveFloor ?? 0).toFixed(1);
    await expect(row.getByTestId('compare-values-change-rank')).toHaveText(
      `ΔW = B − A over ${rows} has rank ${rank} over the rounding: its ${rank}th singular value is ${times}× the ` +
        'largest that rounding B to its dtype leaves, and all under it is rounding.',
    );
  }
  const report = (await downloadReport(page)).compare as {
    values: Array<{ tensor: string; changeRank?: { lowRank: { rank: number } | null; directions90: number } }>;
  };
  const reported = report.values.flatMap(({ tensor, changeRank }) =>
    changeRank ? [[tensor, changeRank.lowRank?.rank ?? null, changeRank.directions90]] : [],
  );
  expect(reported.sort()).toEqual(
    changed.map(([name, want]) => [name, want.lowRank?.rank ?? null, want.directions90]).sort(),
  );
  watch.expectClean();
});
