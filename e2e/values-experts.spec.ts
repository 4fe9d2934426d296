/**
 * "Compare values" of stacked experts, expert by expert (scripts/expert-changes-fixtures.py: the safetensors library
 * and gguf-py wrote them, numpy gave the figures): the line above the table counts the expert slices a fine-tune
 * left bit for bit as they were, each stack names its changed experts with numpy's relative L2 and draws a bar per
 * expert, and the report carries every expert's figures; Mixtral-style per-expert tensors make the same map of
 * layers by experts, pointed at cell by cell.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { compareValuesOfFiles, downloadReport, escapeRegExp, openApp, watchPage } from './helpers';
import { formatValue } from '../src/core/number-format';
import { expertChangesCompareAnswer, expertMapAnswer, expertScalesAnswer } from '../src/testing/values-fixtures';

const VALUES_DIR = join(process.cwd(), 'fixtures', 'values');

for (const pair of ['safetensors', 'gguf'] as const) {
  test(`Compare values: which experts of each stack a fine-tune moved (${pair})`, async ({ page }) => {
    const watch = watchPage(page);
    const answer = expertChangesCompareAnswer(pair);
    await openApp(page);
    await compareValuesOfFiles(page, VALUES_DIR, answer.a, answer.b);
    const stacks = Object.entries(answer.tensors).flatMap(([name, want]) =>
      want ? [[name, want.experts] as const] : [],
    );
    const slices = stacks.reduce((sum, [, experts]) => sum + experts.length, 0);
    const same = stacks.reduce((sum, [, experts]) => sum + experts.filter((e) => e.changedShare === 0).length, 0);
    await expect(page.getByTestId('compare-values-experts-summary')).toContainText(
      `In ${stacks.length} changed stacked-expert tensors, ${slices - same} of ${slices} expert slices changed and ` +
        `${same} are bit for bit the same`,
    );
    await expect(page.getByTestId('compare-values-experts')).toHaveCount(stacks.length);
    for (const [name, experts] of stacks) {
      const row = page
        .getByTestId('compare-values-table')
        .locator('tbody tr')
        .filter({ hasText: new RegExp(`^${escapeRegExp(name)}`) });
      const note = row.getByTestId('compare-values-experts');
      const moved = experts.filter((e) => e.changedShare > 0 && (e.relL2 ?? 0) > 0);
      const most = moved.reduce((top, e) => ((e.relL2 ?? 0) > (top.relL2 ?? 0) ? e : top));
      // The most changed expert comes first, with numpy's relative L2.
      await expect(note).toContainText(`: #${most.expert} ${formatValue(most.relL2)}`);
      await expect(note.getByTestId('compare-values-expert-strip').locator('rect')).toHaveCount(experts.length);
    }
    const report = (await downloadReport(page)).compare as {
      values: Array<{ tensor: string; experts?: { read: Array<{ expert: number; relL2: number | null }> } }>;
    };
    for (const [name, experts] of stacks) {
      const reported = report.values.find((entry) => entry.tensor === name)?.experts?.read ?? [];
      expect(reported.map((e) => e.expert)).toEqual(experts.map((e) => e.expert));
      reported.forEach((e, i) => expect(e.relL2 ?? 0).toBeCloseTo(experts[i].relL2 ?? 0, 9));
    }
    watch.expectClean();
  });
}

test('Compare values: the map of which experts of which layers changed (per-expert tensors)', async ({ page }) => {
  const watch = watchPage(page);
  const { a, b, map } = expertMapAnswer('numbered');
  await openApp(page);
  await compareValuesOfFiles(page, VALUES_DIR, a, b);
  const changed = map.changed.filter((cell) => cell === true).length;
  const compared = map.changed.filter((cell) => cell !== null).length;
  const section = page.getByTestId('compare-values-expert-map');
  await expect(section.getByTestId('compare-values-expert-map-summary')).toHaveText(
    `${map.layers.length} layers × ${map.experts} experts: ${changed} of ${compared} compared changed ` +
      `(${(changed / compared) * 100}%), ${compared - changed} bit for bit the same; 1–2 changed per layer.`,
  );
  // Point at each cell: the readout names it as numpy's map has it.
  const canvas = section.getByTestId('compare-values-expert-map-canvas');
  const [left, top, cell, row] = await Promise.all(
    ['data-left', 'data-top', 'data-cell', 'data-row'].map(async (name) => Number(await canvas.getAttribute(name))),
  );
  for (let r = 0; r < map.layers.length; r++) {
    for (let expert = 0; expert < map.experts; expert++) {
      await canvas.hover({ position: { x: left + expert * cell + cell / 2, y: top + r * row + row / 2 } });
      const at = r * map.experts + expert;
      const where = `model.layers.${map.layers[r]}, expert ${expert}`;
      await expect(section.getByTestId('compare-values-expert-map-hover')).toHaveText(
        map.changed[at]
          ? `${where}: changed, relative L2 ${formatValue(map.relL2[at])} (the largest of its tensors)`
          : `${where}: every value bit for bit the same`,
      );
    }
  }
  await section.getByText('Changed experts, layer by layer').click();
  await expect(section.getByTestId('compare-values-expert-map-layers').locator('li')).toHaveText([
    'model.layers.0: 1 of 4 changed: #1',
    'model.layers.1: 2 of 4 changed: #0, #3',
  ]);
  // A cell clicked, or reached with the keys and Enter, filters the compared tensors below to that expert's two.
  const filter = page.getByLabel('Filter compared tensors (aligned or full names)');
  const count = page.getByTestId('compare-row-count');
  await canvas.click({ position: { x: left + 3 * cell + cell / 2, y: top + row + row / 2 } });
  await expect(filter).toHaveValue('model.layers.1.block_sparse_moe.experts.3.');
  await expect(count).toHaveText('16 keys · 2 shown');
  await expect(page.getByTestId('compare-table-scroll')).toContainText('layers.1.block_sparse_moe.experts.3.w2.weight');
  await canvas.press('Control+Home');
  await expect(section.getByTestId('compare-values-expert-map-ring')).toBeVisible();
  await canvas.press('ArrowRight');
  await expect(section.getByTestId('compare-values-expert-map-hover')).toContainText(
    'model.layers.0, expert 1: changed',
  );
  await canvas.press('Enter');
  await expect(filter).toHaveValue('model.layers.0.block_sparse_moe.experts.1.');
  await expect(count).toHaveText('16 keys · 2 shown');
  const report = await downloadReport(page);
  const reported = (report.compare as { valuesExpertMap?: { changed: unknown[] } }).valuesExpertMap;
  expect(reported?.changed).toEqual(map.changed);
  watch.expectClean();
});

test('Compare values: the experts of a stack scaled as a whole, with numpy’s factors', async ({ page }) => {
  const watch = watchPage(page);
  const answer = expertScalesAnswer();
  await openApp(page);
  await compareValuesOfFiles(page, VALUES_DIR, answer.a, answer.b);
  const note = page
    .getByTestId('compare-values-table')
    .locator('tbody tr')
    .filter({ hasText: new RegExp(`^${escapeRegExp(answer.tensor)}`) })
    .getByTestId('compare-values-experts');
  const scaled = answer.experts.filter((expert) => expert.scale !== null);
  await expect(note).toContainText(
    `; ${scaled.length} of them A's values times one factor: ` +
      scaled.map((expert) => `#${expert.expert} × ${formatValue(expert.scale)}`).join(', '),
  );
  const report = (await downloadReport(page)).compare as {
    values: Array<{ tensor: string; experts?: { read: Array<{ expert: number; scale: number | null }> } }>;
  };
  const reported = report.values.find((entry) => entry.tensor === answer.tensor)?.experts?.read ?? [];
  expect(reported.map((expert) => expert.scale === null)).toEqual(
    answer.experts.map((expert) => expert.scale === null),
  );
  reported.forEach((expert, i) => expect(expert.scale ?? 0).toBeCloseTo(answer.experts[i].scale ?? 0, 9));
  watch.expectClean();
});
