/**
 * "Compare values" of a layer against a copy with LoRAs of rank 8 and 48 merged into two projections and a third
 * fine-tuned in every direction (scripts/change-rank-fixtures.py: the safetensors library wrote them, numpy's SVD
 * gave the answer): the line above the table counts the low-rank updates by rank, each names its rank and how far
 * the singular values fall after it, the fine-tuned one says nothing of a rank, and the report carries numpy's
 * figures.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { compareValuesOfFiles, downloadReport, openApp, watchPage } from './helpers';
import { groupDigits, plural } from '../src/core/number-format';
import { changeRankCompareAnswer } from '../src/testing/values-fixtures';

const VALUES_DIR = join(process.cwd(), 'fixtures', 'values');

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('Compare values: the changes that are low-rank updates, at numpy’s ranks', async ({ page }) => {
  const watch = watchPage(page);
  const answer = changeRankCompareAnswer();
  await openApp(page);
  await compareValuesOfFiles(page, VALUES_DIR, answer.a, answer.b);
  const changed = Object.entries(answer.tensors);
  const low = changed.filter(([, want]) => want.lowRank);
  expect(low.length).toBe(2);
  await expect(page.getByTestId('compare-values-ranks')).toHaveText(
    `${low.length} of ${plural(changed.length, 'changed matrix', 'changed matrices')} are low-rank updates (` +
      low.map(([, want]) => `1 of rank ${want.lowRank?.rank}`).join(', ') +
      ') in self_attn.q_proj (1), self_attn.v_proj (1): the singular values of B − A fall 10× or more after that ' +
      'many, as when a LoRA is merged into them; ' +
      '1 other changes in more directions.',
  );
  await expect(page.getByTestId('compare-values-change-rank')).toHaveCount(low.length);
  for (const [name, want] of low) {
    const row = page
      .getByTestId('compare-values-table')
      .locator('tbody tr')
      .filter({ hasText: new RegExp(`^${escape(name)}`) });
    const rows = `${groupDigits(want.rowsRead)} of ${plural(want.rows, 'row')}`;
    await expect(row.getByTestId('compare-values-change-rank')).toHaveText(
      new RegExp(
        `^ΔW = B − A over ${escape(rows)} has rank ${want.lowRank?.rank}: its singular values fall ` +
          `${escape((want.lowRank?.gap ?? 0).toFixed(1))}× after the ${want.lowRank?.rank}th, with under 1 % of ‖ΔW‖² left`,
      ),
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
