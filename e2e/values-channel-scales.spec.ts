/**
 * "Compare values" of a change that is a scaling (scripts/channel-scale-fixtures.py: the safetensors library wrote
 * two layers of a Llama-shaped model and a copy smoothed as SmoothQuant and AWQ smooth, with an attention scale
 * folded into one query projection; numpy fitted the factors): each scaled tensor says along which axis, over how
 * many lines, from which factor to which, the lines scaled most and the tensors that undo it; the fine-tuned tensors
 * say nothing of the kind; the report carries the fit.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { compareValuesOfFiles, downloadReport, escapeRegExp, openApp, watchPage } from './helpers';
import { formatValue, groupDigits, plural } from '../src/core/number-format';
import { channelScalesCompareAnswer } from '../src/testing/values-fixtures';

const VALUES_DIR = join(process.cwd(), 'fixtures', 'values');

const LINES = {
  columns: ['input channel (column)', 'input channels (columns)'],
  rows: ['output channel (row)', 'output channels (rows)'],
  elements: ['element', 'elements'],
} as const;

test('Compare values: tensors changed by one factor per channel, and who undoes them, numpy’s', async ({ page }) => {
  const watch = watchPage(page);
  const answer = channelScalesCompareAnswer();
  await openApp(page);
  await compareValuesOfFiles(page, VALUES_DIR, answer.a, answer.b);
  const scaled = Object.entries(answer.tensors).flatMap(([name, want]) => (want ? [{ name, want }] : []));
  const undone = scaled.filter(({ want }) => want.reciprocalIn).length;
  await expect(page.getByTestId('compare-values-scaled')).toHaveText(
    `${plural(scaled.length, 'tensor')} changed by scaling alone: one factor for the whole tensor or one per channel ` +
      `(below, under each name), of which ${undone} are undone by another's reciprocal factors (the model computes ` +
      'what it computed before, up to rounding). SmoothQuant and AWQ move a range between two tensors so; a norm ' +
      'folded into a linear, or a constant into a projection, also scales.',
  );
  await expect(page.getByTestId('compare-values-channel-scales')).toHaveCount(scaled.length);
  for (const { name, want } of scaled) {
    const note = page
      .getByTestId('compare-values-table')
      .locator('tbody tr')
      // The row's text starts with its name; a partner's note names it further in.
      .filter({ hasText: new RegExp(`^${escapeRegExp(name)}`) })
      .getByTestId('compare-values-channel-scales');
    // What an exact fit leaves is rounding in the sums, which numpy adds in another order.
    const after = want.after < 1e-6 ? '[0-9.e-]+' : escapeRegExp(formatValue(want.after));
    const left = `relative L2 left after the fit ${after} \\(${escapeRegExp(formatValue(want.before))} before\\)`;
    if (want.axis === 'tensor') {
      await expect(note).toHaveText(new RegExp(`^B = ${escapeRegExp(formatValue(want.median))} × A: .*, ${left}\\.$`));
      continue;
    }
    const named = want.extremes
      .slice(0, 5)
      .map(([index]) => `${groupDigits(index)} \\(×[-0-9.e]+\\)`)
      .join(', ');
    const [one, many] = LINES[want.axis];
    const lines = plural(want.lines, one, many);
    await expect(note).toHaveText(
      new RegExp(
        `^[^:]+: ${groupDigits(want.scaled)} of ${escapeRegExp(lines)} scaled, s from ${escapeRegExp(formatValue(want.min))} to ` +
          `${escapeRegExp(formatValue(want.max))} \\(median ${escapeRegExp(formatValue(want.median))}\\); most: ${named}(, …)?; ` +
          `${left}\\.`,
      ),
    );
    for (const partner of want.reciprocalIn ?? []) {
      await expect(note).toContainText(partner);
    }
  }
  const report = (await downloadReport(page)).compare as {
    values: Array<{ tensor: string; channelScales?: { axis: string; scaled: number; reciprocalIn?: string[] } }>;
  };
  const reported = report.values.flatMap(({ tensor, channelScales }) =>
    channelScales
      ? [[tensor, channelScales.axis, channelScales.scaled, [...(channelScales.reciprocalIn ?? [])].sort()]]
      : [],
  );
  expect(reported.sort()).toEqual(
    scaled.map(({ name, want }) => [name, want.axis, want.scaled, [...(want.reciprocalIn ?? [])].sort()]).sort(),
  );
  watch.expectClean();
});
