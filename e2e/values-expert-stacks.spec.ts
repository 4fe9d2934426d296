/**
 * "Scan all values" on stacks of experts (scripts/expert-changes-fixtures.py: gguf-py and the safetensors library
 * wrote them, numpy gave the answer): the experts of each stack that stand out, listed under the stack's name as
 * numpy finds them, and in the report; over HTTP too, where each stack is read by Range requests in any order.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { downloadReport, escapeRegExp, openApp, scanFixture, watchPage } from './helpers';
import { formatValue } from '../src/core/number-format';
import { expertStacksScanAnswer, type ExpertStackAnswer } from '../src/testing/values-fixtures';

const VALUES_DIR = join(process.cwd(), 'fixtures', 'values');

const ANSWER = expertStacksScanAnswer();

const listed = (experts: readonly number[]) =>
  experts.length === 1 ? `expert ${experts[0]}` : `experts ${experts.slice(0, -1).join(', ')} and ${experts.at(-1)}`;

/** What the scan says of a stack's experts, with each outlier's ratio left as a number pattern. */
function standoutPattern(want: ExpertStackAnswer): string {
  const parts = [
    ...(want.zeroExperts.length > 0 ? [escapeRegExp(`${listed(want.zeroExperts)} all zeros`)] : []),
    ...(want.nonFiniteExperts.length > 0 ? [escapeRegExp(`${listed(want.nonFiniteExperts)} holds NaN or ±Inf`)] : []),
    ...want.copies.map((group) =>
      escapeRegExp(
        group.length === want.experts
          ? `all ${want.experts} experts hold the same values (an upcycled layer whose experts never diverged, or one expert copied into every slot)`
          : `${listed(group)} hold the same values`,
      ),
    ),
    ...want.rmsOutliers.map(
      (expert) =>
        `expert ${expert}'s RMS [0-9.e-]+× the stack's median \\(${escapeRegExp(formatValue(want.medianRms))}\\)`,
    ),
  ];
  return parts.join('; ');
}

/** The line the scan should give a stack. */
function linePattern(name: string, want: ExpertStackAnswer): RegExp {
  return new RegExp(`^${escapeRegExp(name)}: ${standoutPattern(want)}$`);
}

const CASES = [
  ...Object.keys(ANSWER).map((file) => ({ file, remote: false })),
  { file: 'expert-stacks.gguf', remote: true },
];

for (const { file, remote } of CASES) {
  test(`Scan all values names the experts of each stack that stand out (${file}${remote ? ', over HTTP' : ''})`, async ({
    page,
  }) => {
    const watch = watchPage(page);
    const stacks = Object.entries(ANSWER[file]);
    await scanFixture(page, VALUES_DIR, file, remote ? 'expert-stacks' : null);
    const list = page.getByTestId('scan-expert-stacks');
    await expect(list.getByRole('heading')).toContainText('Experts that stand out, in 2 stacks of experts');
    await expect(list.getByRole('listitem')).toHaveCount(stacks.length);
    for (const [name, want] of stacks) {
      await expect(list.getByRole('listitem').filter({ hasText: name })).toHaveText(linePattern(name, want));
    }
    const report = await downloadReport<{
      valueScan: { expertStacksScanned: number; expertStacks: Array<{ tensor: string; copies: number[][] }> };
    }>(page);
    expect(report.valueScan.expertStacksScanned).toBe(2);
    expect(report.valueScan.expertStacks.map(({ tensor, copies }) => [tensor, copies]).sort()).toEqual(
      stacks.map(([name, want]) => [name, want.copies]).sort(),
    );
    watch.expectClean();
  });
}

test('Read values of a stack of experts: a bar per expert and the experts that stand out', async ({ page }) => {
  const watch = watchPage(page);
  const file = 'expert-stacks.gguf';
  const [[tensor, want]] = Object.entries(ANSWER[file]);
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(join(VALUES_DIR, file));
  await page.getByText(tensor, { exact: true }).first().click();
  await page.getByRole('button', { name: 'Read values' }).click();
  const note = page.getByTestId('values-experts');
  await expect(note).toContainText(`the RMS of each of the ${want.experts} experts in this stack`);
  await expect(note.locator('p')).toHaveText(new RegExp(`\\): ${standoutPattern(want)}\\.$`));
  await expect(note.getByTestId('values-expert-strip').locator('rect')).toHaveCount(want.experts);
  const report = await downloadReport<{ values: Array<{ tensor: string; experts?: { rms: number[] } }> }>(page);
  const rms = report.values.find((entry) => entry.tensor === tensor)?.experts?.rms ?? [];
  rms.forEach((value, expert) => expect(value).toBeCloseTo(want.rms[expert], 9));
  expect(rms).toHaveLength(want.experts);
  watch.expectClean();
});
