/**
 * Rows and columns all zeros (scripts/zero-lines-fixtures.py: the safetensors library and gguf-py wrote the files,
 * numpy's any() gave the answer): "Read values" names them in a tensor's details and the report, "Scan all values"
 * lists the tensors that have them, and a 2:4-sparse weight, half zeros, is in neither; "Compare values" of the dense
 * model against the zeroed one says under each tensor which lines are all zeros on one side only.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { compareValuesOfFiles, downloadReport, numpyRowLabel, openApp, readValuesOf, watchPage } from './helpers';
import { groupDigits, plural } from '../src/core/number-format';
import { zeroLinesAnswers, zeroLinesCompareAnswer, type ZeroLinesAnswer } from '../src/testing/values-fixtures';

const VALUES_DIR = join(process.cwd(), 'fixtures', 'values');

/** numpy's ascending indices as the runs the view lists, each index through `label`. */
function runsText(indices: readonly number[], label: (index: number) => string): string {
  const runs: Array<[number, number]> = [];
  for (const index of indices) {
    const last = runs.at(-1);
    if (last && last[1] === index - 1) {
      last[1] = index;
    } else {
      runs.push([index, index]);
    }
  }
  return runs.map(([a, b]) => (a === b ? label(a) : `${label(a)}–${label(b)}`)).join(', ');
}

/** The view's summary of numpy's zero rows and columns: `5 of 384 rows (3, 10–12, 95), 3 of 176 columns (5)`. */
function linesText(want: ZeroLinesAnswer, rows: readonly number[], columns: readonly number[]): string {
  const parts = [];
  if (rows.length > 0) {
    parts.push(`${rows.length} of ${plural(want.ofRows, 'row')} (${runsText(rows, numpyRowLabel(want.shape))})`);
  }
  if (columns.length > 0) {
    parts.push(`${columns.length} of ${plural(want.shape[1], 'column')} (${runsText(columns, groupDigits)})`);
  }
  return parts.join(', ');
}

test.describe('rows and columns all zeros', () => {
  test('Read values names numpy’s zero rows and columns; the scan lists the tensors that have them', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const answers = zeroLinesAnswers();
    await openApp(page);
    for (const [file, tensors] of Object.entries(answers)) {
      await page.getByTestId('file-input').first().setInputFiles(join(VALUES_DIR, file));
      await expect(page.getByTestId('file-name')).toHaveText(file);
      for (const [name, want] of Object.entries(tensors)) {
        await readValuesOf(page, name);
        await expect(page.getByTestId('values-stats')).toBeVisible();
        const columns = want.zeroColumns ?? [];
        const rows = page.getByTestId('values-zero-rows');
        if (want.zeroRows.length > 0) {
          const are = want.zeroRows.length === 1 ? 'is' : 'are';
          await expect(rows).toContainText(
            `${want.zeroRows.length} of ${plural(want.ofRows, 'row')} ${are} all zeros: ${runsText(want.zeroRows, numpyRowLabel(want.shape))}.`,
          );
        } else {
          await expect(rows).toHaveCount(0);
        }
        const zeroColumns = page.getByTestId('values-zero-columns');
        if (columns.length > 0) {
          const cols = want.shape[1];
          const are = columns.length === 1 ? 'is' : 'are';
          await expect(zeroColumns).toContainText(
            `${columns.length} of ${plural(cols, 'column')} ${are} zero in every row: ${runsText(columns, groupDigits)}.`,
          );
        } else {
          await expect(zeroColumns).toHaveCount(0);
        }
        const entry = ((await downloadReport(page)).values as Array<{ tensor: string; zeroLines?: unknown }>).find(
          (read) => read.tensor === name,
        );
        const lines = (indices: number[], of: number) =>
          indices.length === 0 ? null : expect.objectContaining({ count: indices.length, of });
        expect(entry?.zeroLines).toEqual(
          want.zeroRows.length + columns.length === 0
            ? undefined
            : {
                rowDims: want.shape.slice(0, -1),
                rows: lines(want.zeroRows, want.ofRows),
                columns: lines(columns, want.shape[1]),
              },
        );
        await page.keyboard.press('Escape');
      }

      // The scan lists every tensor with a zero line, and shows them in the table.
      await page.getByRole('button', { name: 'Scan all values' }).click();
      const withLines = Object.entries(tensors).filter(
        ([, want]) => want.zeroRows.length + (want.zeroColumns?.length ?? 0) > 0,
      );
      const list = page.getByTestId('scan-zero-lines');
      await expect(list.getByRole('listitem')).toHaveCount(withLines.length);
      for (const [name, want] of withLines) {
        await expect(list.getByRole('listitem').filter({ hasText: name })).toHaveText(
          `${name}: ${linesText(want, want.zeroRows, want.zeroColumns ?? [])}`,
        );
      }
      const scanned = (await downloadReport(page)).valueScan as { zeroLineTensors: Array<{ tensor: string }> };
      expect(scanned.zeroLineTensors.map((t) => t.tensor).sort()).toEqual(withLines.map(([name]) => name).sort());
      await list.getByRole('button', { name: 'Show in the table' }).click();
      await expect(page.getByText(`${Object.keys(tensors).length} tensors · ${withLines.length} shown`)).toBeVisible();
    }
    watch.expectClean();
  });

  test('Compare values: the lines the zeroed model has all zeros and the dense one does not, numpy’s', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const answer = zeroLinesCompareAnswer();
    await openApp(page);
    await compareValuesOfFiles(page, VALUES_DIR, answer.a, answer.b);
    const shapes = zeroLinesAnswers()[answer.b];
    const zeroed = Object.entries(answer.tensors).filter(
      ([, want]) => want.onlyBRows.length + (want.onlyBColumns?.length ?? 0) > 0,
    );
    await expect(page.getByTestId('compare-values-zeroed')).toContainText(
      `${zeroed.length} tensors have rows or columns all zeros on one side only`,
    );
    await expect(page.getByTestId('compare-values-zero-lines')).toHaveCount(zeroed.length);
    for (const [name, want] of zeroed) {
      const row = page.getByTestId('compare-values-table').locator('tbody tr').filter({ hasText: name });
      await expect(row.getByTestId('compare-values-zero-lines')).toHaveText(
        `all zeros in B only: ${linesText(shapes[name], want.onlyBRows, want.onlyBColumns ?? [])}`,
      );
    }
    const report = (await downloadReport(page)).compare as { values: Array<{ tensor: string; zeroLines?: unknown }> };
    expect(
      report.values
        .filter((entry) => entry.zeroLines)
        .map((entry) => entry.tensor)
        .sort(),
    ).toEqual(zeroed.map(([name]) => name).sort());
    watch.expectClean();
  });
});
