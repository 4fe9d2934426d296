/**
 * Each row's and column's abs-max (scripts/line-magnitudes-fixtures.py: the safetensors library and gguf-py wrote
 * the files, numpy gave the answer): "Read values" says where the lines' maxima sit, names the lines over 10× the
 * median, counts the rows whose peak lies in an outlier column, says what one int8 scale would leave the median row
 * where the rows are far apart, and draws both profiles with the outliers in red; the report carries numpy's figures.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { compareValuesOfFiles, downloadReport, numpyRowLabel, openApp, readValuesOf, watchPage } from './helpers';
import { formatValue, groupDigits, plural } from '../src/core/number-format';
import {
  lineMagnitudesAnswers,
  outlierColumnsCompareAnswer,
  type LineSpreadAnswer,
} from '../src/testing/values-fixtures';

const VALUES_DIR = join(process.cwd(), 'fixtures', 'values');

/** The view's ratio: one decimal under 10×, whole above. */
const ratio = (value: number) => `${value < 10 ? value.toFixed(1) : groupDigits(Math.round(value))}×`;

/** `median 0.05956 over 512 rows, largest 1.562 in row 3, 26× the median`, from numpy's figures. */
function spreadText(want: LineSpreadAnswer, kind: 'row' | 'column', label: (index: number) => string): string {
  return `median ${formatValue(want.median)} over ${plural(want.of, kind)}, largest ${formatValue(want.max)} in ${kind} ${label(want.maxAt)}, ${ratio(want.max / want.median)} the median`;
}

function outliersText(want: LineSpreadAnswer, label: (index: number) => string): string {
  return want.outliers
    .map(([index, absMax]) => `${label(index)} (${formatValue(absMax)}, ${ratio(absMax / want.median)})`)
    .join(', ');
}

test.describe("each row's and column's abs-max", () => {
  test('Read values gives numpy’s line maxima, names the outliers, and draws them', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    for (const [file, tensors] of Object.entries(lineMagnitudesAnswers())) {
      await page.getByTestId('file-input').first().setInputFiles(join(VALUES_DIR, file));
      await expect(page.getByTestId('file-name')).toHaveText(file);
      for (const [name, want] of Object.entries(tensors)) {
        await readValuesOf(page, name);
        await expect(page.getByTestId('values-stats')).toBeVisible();
        const label = numpyRowLabel(want.shape);
        const rows = page.getByTestId('values-row-magnitudes');
        if (want.rows) {
          await expect(rows).toContainText(spreadText(want.rows, 'row', label));
          if (want.rows.outlierCount > 0) {
            await expect(rows).toContainText(
              `${want.rows.outlierCount} of ${plural(want.rows.of, 'row')} over 10× the median: ${outliersText(want.rows, label)}.`,
            );
          } else {
            await expect(rows).not.toContainText('over 10× the median');
          }
          // One int8 scale for the tensor is worth a word from 4× apart.
          const steps = Math.round((127 * want.rows.median) / want.rows.max);
          if (want.rows.max / want.rows.median >= 4) {
            await expect(rows).toContainText(`would leave the median row about ${steps} of the 127 steps`);
          } else {
            await expect(rows).not.toContainText('int8');
          }
        } else {
          await expect(rows).toHaveCount(0);
        }
        const tokens = page.getByTestId('values-row-magnitudes-tokens');
        if (want.rowTokens) {
          await expect(tokens).toContainText(
            want.rowTokens.map(({ id, text }) => `${text} (${groupDigits(id)})`).join(', '),
          );
        } else {
          await expect(tokens).toHaveCount(0);
        }
        const columns = page.getByTestId('values-column-magnitudes');
        if (want.columns) {
          await expect(columns).toContainText(spreadText(want.columns, 'column', groupDigits));
          if (want.columns.outlierCount > 0 && want.rows) {
            await expect(columns).toContainText(
              `${want.columns.outlierCount} of ${plural(want.columns.of, 'column')} over 10× the median: ${outliersText(want.columns, groupDigits)}.`,
            );
            await expect(columns).toContainText(
              `the largest value of ${groupDigits(want.columns.rowsPeakingInOutliers ?? 0)} of ${plural(want.rows.of, 'row')}`,
            );
          }
        } else {
          await expect(columns).toHaveCount(0);
        }
        // Each line its own bar up to 240 lines: one red bar per outlier line.
        for (const [kind, spread] of [
          ['row', want.rows],
          ['column', want.columns],
        ] as const) {
          const profile = page.getByTestId(`values-${kind}-profile`);
          if (spread === null) {
            await expect(profile).toHaveCount(0);
            continue;
          }
          const red = profile.locator('rect.values-bar-outlier');
          if (spread.lines <= 240) {
            await expect(profile.locator('svg')).toHaveAttribute('data-bars', String(spread.lines));
            await expect(red).toHaveCount(spread.outlierCount);
          } else if (spread.outlierCount > 0) {
            await expect(red.first()).toBeVisible();
          } else {
            await expect(red).toHaveCount(0);
          }
        }

        const report = await downloadReport<{ values: Array<{ tensor: string; lineMagnitudes?: unknown }> }>(page);
        const entry = report.values.find((read) => read.tensor === name)?.lineMagnitudes as
          | { rowDims: number[]; rows: Record<string, unknown> | null; columns: Record<string, unknown> | null }
          | undefined;
        expect(entry?.rowDims).toEqual(want.shape.slice(0, -1));
        for (const kind of ['rows', 'columns'] as const) {
          const got = entry?.[kind] ?? null;
          const answer = want[kind];
          if (answer === null) {
            expect(got).toBeNull();
            continue;
          }
          expect(got).toEqual(
            expect.objectContaining({
              lines: answer.lines,
              of: answer.of,
              maxAt: answer.maxAt,
              outlierCount: answer.outlierCount,
            }),
          );
          expect(got).not.toHaveProperty('profile');
          if (kind === 'rows') {
            expect((entry as { rowTokens?: { texts: unknown } }).rowTokens?.texts).toEqual(want.rowTokens);
          }
          expect(Math.abs((got?.median as number) - answer.median)).toBeLessThan(1e-6);
          expect((got?.outliers as Array<{ index: number }>).map((line) => line.index)).toEqual(
            answer.outliers.map(([index]) => index),
          );
        }
        await page.keyboard.press('Escape');
      }
    }
    watch.expectClean();
  });

  test('Scan all values lists the matrices with outlier columns as numpy finds them, and charts them per layer', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    const file = 'line-magnitudes.safetensors';
    const tensors = lineMagnitudesAnswers()[file];
    await page.getByTestId('file-input').first().setInputFiles(join(VALUES_DIR, file));
    await expect(page.getByTestId('file-name')).toHaveText(file);
    await page.getByRole('button', { name: 'Scan all values' }).click();
    const withOutliers = Object.entries(tensors).flatMap(([name, want]) =>
      want.scan && want.scan.outlierCount > 0 ? [{ name, scan: want.scan }] : [],
    );
    expect(withOutliers.length).toBeGreaterThan(1);
    const list = page.getByTestId('scan-outlier-columns');
    await expect(list.getByRole('listitem')).toHaveCount(withOutliers.length);
    for (const { name, scan } of withOutliers) {
      const rows = want(tensors, name).shape[0];
      const read =
        scan.rowsRead < rows ? `${groupDigits(scan.rowsRead)} of ${plural(rows, 'row')} read` : plural(rows, 'row');
      const listed = scan.outliers.map(([index]) => groupDigits(index)).join(', ');
      await expect(list.getByRole('listitem').filter({ hasText: name })).toHaveText(
        `${name}: ${scan.outlierCount} of ${plural(scan.lines, 'column')} (${listed}; up to ${ratio(scan.max / scan.median)} the median ${formatValue(scan.median)}), holding the largest value of ${groupDigits(scan.rowsPeakingInOutliers ?? 0)} of ${read}`,
      );
    }
    const report = await downloadReport<{
      valueScan: {
        outlierColumnTensors: Array<{ tensor: string; rowStride: number; columns: { outlierCount: number } }>;
      };
    }>(page);
    expect(
      report.valueScan.outlierColumnTensors.map(({ tensor, rowStride, columns }) => [
        tensor,
        rowStride,
        columns.outlierCount,
      ]),
    ).toEqual(expect.arrayContaining(withOutliers.map(({ name, scan }) => [name, scan.rowStride, scan.outlierCount])));
    expect(report.valueScan.outlierColumnTensors).toHaveLength(withOutliers.length);

    // Across layers: layer 0's down projection has its outlier columns, layers 1 and 2 none.
    const layers = page.getByTestId('scan-layers');
    await layers.getByRole('combobox').selectOption({ label: 'model.layers.#.mlp.down_proj.weight (3 layers)' });
    await layers.getByRole('radio', { name: 'outlier columns' }).check();
    const down = want(tensors, 'model.layers.0.mlp.down_proj.weight').scan?.outlierCount ?? 0;
    await expect(page.getByTestId('scan-layers-chart').locator('rect title')).toHaveText([
      `layer 0: outlier columns ${down} over its tensor`,
      'layer 1: outlier columns 0 over its tensor',
      'layer 2: outlier columns 0 over its tensor',
    ]);
    await list.getByRole('button', { name: 'Show in the table' }).click();
    await expect(page.getByText(`${Object.keys(tensors).length} tensors · ${withOutliers.length} shown`)).toBeVisible();
    watch.expectClean();
  });
});

test('Compare values: the outlier input channels one side has and the other does not, numpy’s', async ({ page }) => {
  const watch = watchPage(page);
  const answer = outlierColumnsCompareAnswer();
  await openApp(page);
  await compareValuesOfFiles(page, VALUES_DIR, answer.a, answer.b);
  const changed = Object.entries(answer.tensors);
  await expect(page.getByTestId('compare-values-outlier-columns')).toHaveCount(changed.length);
  const side = (columns: number[]) => columns.map((column) => `${groupDigits(column)} \\(\\d+(\\.\\d)?×\\)`).join(', ');
  for (const [name, want] of changed) {
    const note = page
      .getByTestId('compare-values-table')
      .locator('tbody tr')
      .filter({ hasText: name })
      .getByTestId('compare-values-outlier-columns');
    const parts = [
      want.onlyA.length > 0 ? `in A only: ${side(want.onlyA)}` : '',
      want.onlyB.length > 0 ? `in B only: ${side(want.onlyB)}` : '',
    ].filter(Boolean);
    // The columns are listed largest first: layer 0's were grown 40×, 25× and 15× in that order.
    await expect(note).toHaveText(
      new RegExp(`^outlier input channels \\(columns over 10× the median column's abs-max\\) ${parts.join('; ')}$`),
    );
  }
  const report = (await downloadReport(page)).compare as {
    values: Array<{ tensor: string; outlierColumns?: { onlyA: unknown; onlyB: unknown } }>;
  };
  expect(
    report.values
      .filter((entry) => entry.outlierColumns)
      .map((entry) => entry.tensor)
      .sort(),
  ).toEqual(changed.map(([name]) => name).sort());
  watch.expectClean();
});

function want<T>(tensors: Record<string, T>, name: string): T {
  const found = tensors[name];
  expect(found, name).toBeDefined();
  return found;
}
