/**
 * "Scan all values" of per-expert tensors as a map, layers × experts (scripts/expert-changes-fixtures.py: the
 * safetensors library wrote the file, numpy gave the answer): each expert's RMS against the median of the same
 * tensor of its layer's experts, and the experts all zeros, holding an infinity or copies, read off the canvas under
 * the pointer cell by cell, listed layer by layer and in the report; over HTTP too.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { downloadReport, scanFixture, watchPage } from './helpers';
import { formatValue } from '../src/core/number-format';
import { expertScaleMapAnswer } from '../src/testing/values-fixtures';

const VALUES_DIR = join(process.cwd(), 'fixtures', 'values');
const { file, map } = expertScaleMapAnswer();

/** numpy's figures of one cell as the pointer readout words them. */
function cellText(row: number, expert: number): string {
  const at = row * map.experts + expert;
  const parts: string[] = [];
  const ratio = map.ratio[at];
  if (ratio !== null) {
    const role = `block_sparse_moe.experts.#.${map.role[at]}.weight`;
    parts.push(`RMS ${formatValue(ratio)}× the median of its layer's experts (${role}, the farthest of its tensors)`);
  }
  const marks = map.marks[at];
  if (marks & 1) {
    parts.push('all zeros');
  }
  if (marks & 2) {
    parts.push('holds NaN or ±Inf');
  }
  if (marks & 4) {
    parts.push('holds the same values as another expert or tensor');
  }
  return `model.layers.${map.layers[row]}, expert ${expert}: ${parts.join('; ')}`;
}

for (const remote of [false, true]) {
  test(`Scan all values maps every expert's scale, layer by layer (${file}${remote ? ', over HTTP' : ''})`, async ({
    page,
  }) => {
    const watch = watchPage(page);
    await scanFixture(page, VALUES_DIR, file, remote ? 'expert-scales' : null);
    const section = page.getByTestId('scan-expert-map');
    const ratios = map.ratio.filter((ratio): ratio is number => ratio !== null);
    const outliers = ratios.filter((ratio) => ratio > 10 || ratio < 0.1).length;
    const farthest = ratios.reduce((far, ratio) => (Math.abs(Math.log(ratio)) > Math.abs(Math.log(far)) ? ratio : far));
    const count = (bit: number) => map.marks.filter((marks) => marks & bit).length;
    await expect(section.getByTestId('scan-expert-map-summary')).toHaveText(
      `${map.layers.length} layers × ${map.experts} experts, ${map.ratio.length} scanned: ${outliers} with an RMS over ` +
        `10× or under 1/10 of the same tensor's median in their layer (farthest ${formatValue(farthest)}×); ` +
        `${count(1)} all zeros; ${count(2)} holding NaN or ±Inf; ${count(4)} copies of another expert or tensor.`,
    );
    const canvas = section.getByTestId('scan-expert-map-canvas');
    const [left, top, cell, row] = await Promise.all(
      ['data-left', 'data-top', 'data-cell', 'data-row'].map(async (name) => Number(await canvas.getAttribute(name))),
    );
    for (let r = 0; r < map.layers.length; r++) {
      for (let expert = 0; expert < map.experts; expert++) {
        await canvas.hover({ position: { x: left + expert * cell + cell / 2, y: top + r * row + row / 2 } });
        await expect(section.getByTestId('scan-expert-map-hover')).toHaveText(cellText(r, expert));
      }
    }
    await section.getByText(/^Layers with an expert that stands out/).click();
    const at = (layer: number, expert: number) => layer * map.experts + expert;
    const items = section.getByTestId('scan-expert-map-layers').locator('li');
    await expect(items).toHaveText(
      [
        'model.layers.0: expert 6 holds NaN or ±Inf',
        `model.layers.1: expert 5 ${formatValue(map.ratio[at(1, 5)] ?? NaN)}× (block_sparse_moe.experts.#.w1.weight)`,
        `model.layers.2: expert 3 ${formatValue(map.ratio[at(2, 3)] ?? NaN)}× (block_sparse_moe.experts.#.w2.weight); expert 0 all zeros`,
        'model.layers.3: experts 0, 1, 2, 3, 4, 5, 6 and 7 hold the same values as another expert or tensor',
      ].map((text) => `${text} Show in the table`),
    );
    // Each layer's experts that stand out, and one cell clicked, show their tensors in the table (w1 and w2 each).
    const tensors = 4 * (map.experts * 2 + 1);
    await items.nth(2).getByRole('button', { name: 'Show in the table' }).click();
    await expect(page.getByText(`${tensors} tensors · 4 shown`)).toBeVisible();
    await canvas.click({ position: { x: left + 5 * cell + cell / 2, y: top + row + row / 2 } });
    await expect(page.getByText(`${tensors} tensors · 2 shown`)).toBeVisible();
    const report = await downloadReport<{
      valueScan: { expertScaleMap: { marks: number[]; ratio: Array<number | null> } | null };
    }>(page);
    const reported = report.valueScan.expertScaleMap;
    expect(reported?.marks).toEqual(map.marks);
    expect(reported?.ratio).toHaveLength(map.ratio.length);
    reported?.ratio.forEach((ratio, cellAt) => {
      const want = map.ratio[cellAt];
      if (want === null) {
        expect(ratio, `cell ${cellAt}`).toBeNull();
      } else {
        expect((ratio ?? NaN) / want, `cell ${cellAt}`).toBeCloseTo(1, 9);
      }
    });
    watch.expectClean();
  });
}

test(`Scan all values: the map of expert scales read from the keyboard (${file})`, async ({ page }) => {
  const watch = watchPage(page);
  await scanFixture(page, VALUES_DIR, file, null);
  const section = page.getByTestId('scan-expert-map');
  const canvas = section.getByTestId('scan-expert-map-canvas');
  const readout = section.getByTestId('scan-expert-map-hover');
  const ring = section.getByTestId('scan-expert-map-ring');
  await expect(ring).toHaveCount(0);
  await canvas.focus();
  for (const [key, row, expert] of [
    ['ArrowRight', 0, 1],
    ['ArrowDown', 1, 1],
    ['End', 1, map.experts - 1],
    ['ArrowRight', 1, map.experts - 1],
    ['PageDown', map.layers.length - 1, map.experts - 1],
    ['Home', map.layers.length - 1, 0],
    ['Control+Home', 0, 0],
    ['ArrowDown', 1, 0],
  ] as const) {
    await canvas.press(key);
    await expect(readout, key).toHaveText(cellText(row, expert));
  }
  await expect(ring).toBeVisible();
  // The ring sits on the cell the readout names (layer 1, expert 0).
  const [box, ringBox] = await Promise.all([canvas.boundingBox(), ring.boundingBox()]);
  const [left, top, cell, rowPx] = await Promise.all(
    ['data-left', 'data-top', 'data-cell', 'data-row'].map(async (name) => Number(await canvas.getAttribute(name))),
  );
  expect(Math.abs((ringBox?.x ?? 0) - ((box?.x ?? 0) + left))).toBeLessThan(1);
  expect(Math.abs((ringBox?.y ?? 0) - ((box?.y ?? 0) + top + rowPx))).toBeLessThan(1);
  expect(Math.abs((ringBox?.width ?? 0) - cell)).toBeLessThan(1);
  for (let i = 0; i < 5; i++) {
    await canvas.press('ArrowRight');
  }
  await canvas.press('Enter');
  const tensors = 4 * (map.experts * 2 + 1);
  await expect(page.getByText(`${tensors} tensors · 2 shown`)).toBeVisible();
  watch.expectClean();
});
