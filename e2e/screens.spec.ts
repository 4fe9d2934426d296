/**
 * The screen a user reads all day, at 1440 and 800 px, on four models that each stress it: a kohya LoRA (long
 * underscore names), a GPTQ Llama (packed I32 tensors), a 161-shard FP8 DeepSeek (names that differ only at the end,
 * a Shard column, `[129 280, 7 168]` shapes) and the 250,000-tensor MoE. Each screen is saved under
 * test-results/screens/ (CI artifacts) and checked: every visible name shows its layer and expert numbers (also in
 * a filter whose rows differ by nothing else), a cut name has its full text one hover or Enter away, no horizontal
 * page scroll, Begin/End shown or given way for the names, and the table usable from the keyboard alone.
 */
import { expect, test, type Page } from '@playwright/test';
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHeaderBytes } from '../src/testing/build-safetensors';
import { deepseekV3Fixture } from '../src/testing/models/fp8-deepseek-v3';
import { gptqLlama2Fixture } from '../src/testing/models/gptq-llama2-7b';
import { kohyaSd15Fixture } from '../src/testing/models/lora';
import type { ModelFixture } from '../src/testing/models/header-from-specs';
import { fixturePath, openApp, watchPage } from './helpers';

const SCREENS_DIR = join(process.cwd(), 'test-results', 'screens');
const WIDTHS = [1440, 800] as const;
const SHARDS = 161;

/** Header bytes, then a sparse data region: multi-GB models cost no disk. */
function writeSparse(path: string, head: Uint8Array, dataLength: number): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head);
    ftruncateSync(fd, head.length + dataLength);
  } finally {
    closeSync(fd);
  }
}

function writeModel(dir: string, fixture: ModelFixture, name: string): string {
  const { head, dataLength } = buildHeaderBytes(fixture.specs, { metadata: fixture.metadata ?? undefined });
  writeSparse(join(dir, name), head, dataLength);
  return join(dir, name);
}

/** A DeepSeek-V3-like FP8 model split over 161 sparse shards plus its index. */
function writeShardedDeepseek(dir: string): string {
  const model = join(dir, 'DeepSeek-V3-like');
  mkdirSync(model);
  const specs = deepseekV3Fixture().specs;
  const weightMap: Record<string, string> = {};
  let totalSize = 0;
  for (let k = 0; k < SHARDS; k++) {
    const name = `model-${String(k + 1).padStart(5, '0')}-of-${String(SHARDS).padStart(5, '0')}.safetensors`;
    const part = specs.slice(Math.floor((k * specs.length) / SHARDS), Math.floor(((k + 1) * specs.length) / SHARDS));
    const { head, dataLength } = buildHeaderBytes(part, { metadata: { format: 'pt' } });
    writeSparse(join(model, name), head, dataLength);
    totalSize += dataLength;
    for (const tensor of part) {
      weightMap[tensor.name] = name;
    }
  }
  writeFileSync(
    join(model, 'model.safetensors.index.json'),
    JSON.stringify({ metadata: { total_size: totalSize }, weight_map: weightMap }),
  );
  return model;
}

interface Subject {
  id: string;
  open: (page: Page) => Promise<void>;
}

const files = { dir: '', kohya: '', gptq: '', sharded: '' };
test.beforeAll(() => {
  files.dir = mkdtempSync(join(tmpdir(), 'screens-'));
  files.kohya = writeModel(files.dir, kohyaSd15Fixture(), 'sd15-kohya-lora.safetensors');
  files.gptq = writeModel(files.dir, gptqLlama2Fixture(), 'llama-2-7b-gptq.safetensors');
  files.sharded = writeShardedDeepseek(files.dir);
});
test.afterAll(() => {
  if (files.dir) {
    rmSync(files.dir, { recursive: true, force: true });
  }
});

const SUBJECTS: Subject[] = [
  {
    id: 'kohya-lora',
    open: (page) => page.getByTestId('file-input').first().setInputFiles(files.kohya),
  },
  {
    id: 'gptq-llama2-7b',
    open: (page) => page.getByTestId('file-input').first().setInputFiles(files.gptq),
  },
  {
    id: 'deepseek-161-shards',
    open: (page) => page.getByTestId('folder-input').first().setInputFiles(files.sharded),
  },
  {
    id: 'moe-250k',
    open: (page) => page.getByTestId('file-input').first().setInputFiles(fixturePath('moe-250k.safetensors')),
  },
];

/** Every name cell inside the visible part of the table, measured in the page. */
async function nameCellReport(page: Page) {
  return page.getByTestId('table-scroll').evaluate((scroll) => {
    const box = scroll.getBoundingClientRect();
    const cells = [...scroll.querySelectorAll<HTMLElement>('[role="rowgroup"] [role="row"] [role="gridcell"].tt-name')];
    return cells
      .filter((cell) => {
        const rect = cell.getBoundingClientRect();
        return rect.bottom > box.top + 28 && rect.top < box.bottom && rect.width > 0;
      })
      .map((cell) => {
        const holder = cell.querySelector<HTMLElement>('.elided');
        const head = cell.querySelector<HTMLElement>('.elided-head');
        const tail = cell.querySelector<HTMLElement>('.elided-tail');
        const overflows = (element: HTMLElement | null) => !!element && element.scrollWidth > element.clientWidth + 1;
        return {
          shown: `${head?.textContent ?? ''}${tail?.textContent ?? ''}`,
          title: holder?.getAttribute('title') ?? '',
          cellOverflows: overflows(cell),
          headCut: overflows(head),
          tailCut: overflows(tail),
        };
      });
  });
}

/** The numbers between separators in a name (`model.layers.12.mlp.experts.87.` → 12, 87): what tells rows apart. */
function nameNumbers(name: string): string[] {
  return [...name.replace(/…/g, '.').matchAll(/(?<=^|[._/:-])\d+(?=[._/:-]|$)/g)].map((match) => match[0]);
}

/**
 * Every visible name is whole or cut by the app (an ellipsis, the full name as the tooltip), is never cut again by
 * the browser, and shows every number of its full name: the layer that tells it from its siblings.
 */
async function expectNamesTellRowsApart(page: Page, minimumRows: number): Promise<void> {
  const cells = await nameCellReport(page);
  expect(cells.length).toBeGreaterThanOrEqual(minimumRows);
  for (const cell of cells) {
    expect(cell.cellOverflows, `name cell overflows: ${cell.title}`).toBe(false);
    expect(cell.headCut || cell.tailCut, `the browser cut the name: ${cell.title}`).toBe(false);
    expect(cell.shown === cell.title || cell.shown.includes('…'), `${cell.shown} stands for ${cell.title}`).toBe(true);
    expect(nameNumbers(cell.shown), `${cell.shown} (${cell.title}) lost a number`).toEqual(nameNumbers(cell.title));
  }
}

for (const subject of SUBJECTS) {
  for (const width of WIDTHS) {
    test(`${subject.id} at ${width} px: names readable, no page scroll, keyboard reaches details`, async ({ page }) => {
      test.setTimeout(120_000);
      const watch = watchPage(page);
      await page.setViewportSize({ width, height: 900 });
      await openApp(page);
      await subject.open(page);
      const grid = page.getByRole('grid', { name: 'Tensors' });
      await expect(grid.locator('[role="rowgroup"]').nth(1).getByRole('row').first()).toBeVisible({
        timeout: 60_000,
      });
      await expect(page.getByTestId('row-count')).toContainText('shown');
      await expect(page.getByTestId('row-count')).not.toContainText('working');
      mkdirSync(SCREENS_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENS_DIR, `${subject.id}-${width}.png`) });

      // No horizontal scroll of the page.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, 'page wider than the window').toBeLessThanOrEqual(0);

      // Every visible name shows its numbers; a cut one has the full name as its tooltip.
      await expectNamesTellRowsApart(page, 4);

      // Shapes and shard labels are never cut.
      const cut = await page
        .getByTestId('table-scroll')
        .evaluate((scroll) =>
          [...scroll.querySelectorAll<HTMLElement>('[role="gridcell"].tt-shape, [role="gridcell"].tt-shard')]
            .filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
            .map((cell) => cell.textContent),
        );
      expect(cut, 'shape or shard cells cut').toEqual([]);
      if (subject.id === 'deepseek-161-shards') {
        await expect(grid.locator('[role="gridcell"].tt-shard').first()).toHaveText('00001/00161');
        await expect(grid.getByText('[129 280, 7 168]').first()).toBeVisible();
        // Rows that differ only in their layer number: each shows its own.
        const filter = page.getByRole('searchbox', { name: 'Filter tensors' });
        await filter.fill('post_attention_layernorm');
        await expect(page.getByTestId('row-count')).toContainText(/ 5 shown/);
        await expectNamesTellRowsApart(page, 5);
        await page.screenshot({ path: join(SCREENS_DIR, `${subject.id}-${width}-layernorm.png`) });
        await filter.fill('');
        await expect(page.getByTestId('row-count')).not.toContainText(/ 5 shown/);
      }

      // Begin and End give way before the names do: shown and reachable, or hidden with a note saying so, and the
      // table then fits without scrolling sideways.
      const end = await page.getByTestId('table-scroll').evaluate((scroll) => {
        const header = scroll.querySelector<HTMLElement>('[role="columnheader"].tt-end');
        const sideways = scroll.scrollWidth > scroll.clientWidth + 1;
        if (!header) {
          return { shown: false, reachable: false, sideways };
        }
        scroll.scrollLeft = scroll.scrollWidth;
        const box = scroll.getBoundingClientRect();
        const rect = header.getBoundingClientRect();
        const reachable = rect.right <= box.right + 1 && rect.left >= box.left - 1;
        scroll.scrollLeft = 0;
        return { shown: true, reachable, sideways };
      });
      if (end.shown) {
        expect(end.reachable, 'End column reachable').toBe(true);
      } else {
        await expect(page.getByTestId('table-scroll-hidden-columns')).toContainText('End');
        expect(end.sideways, 'the table scrolls sideways although End gave way').toBe(false);
      }
      if (width === 800 && subject.id === 'gptq-llama2-7b') {
        expect(end.shown, 'End gives way at 800 px').toBe(false);
      }

      // Keyboard only: `/` to the filter, Tab to the grid, arrows to a row, Enter opens its details above the fold.
      await page.locator('body').click({ position: { x: 2, y: 2 } });
      await page.keyboard.press('/');
      await expect(page.getByRole('searchbox', { name: 'Filter tensors' })).toBeFocused();
      for (let i = 0; i < 12; i++) {
        if ((await page.evaluate(() => document.activeElement?.getAttribute('role'))) === 'grid') {
          break;
        }
        await page.keyboard.press('Tab');
      }
      await expect(grid).toBeFocused();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      const activeId = await grid.getAttribute('aria-activedescendant');
      expect(activeId).toBeTruthy();
      const activeName = await page.evaluate(
        (id) =>
          document
            .getElementById(id)
            ?.closest('[role="row"]')
            ?.querySelector('.tt-name .elided')
            ?.getAttribute('title') ?? '',
        activeId ?? '',
      );
      await page.keyboard.press('Enter');
      const details = page.getByRole('region', { name: 'Tensor details' });
      await expect(details.getByRole('heading')).toHaveText(activeName);
      const detailsBox = await details.boundingBox();
      expect(detailsBox && detailsBox.y + 40 < 900, 'details start above the fold').toBe(true);
      await page.screenshot({ path: join(SCREENS_DIR, `${subject.id}-${width}-details.png`) });
      await page.keyboard.press('Escape');
      await expect(details).toHaveCount(0);

      // Tabs: arrow keys move between views.
      await page.getByRole('tab', { name: 'Tensors' }).focus();
      await page.keyboard.press('ArrowRight');
      const second = page.getByRole('tab').nth(1);
      await expect(second).toBeFocused();
      await expect(second).toHaveAttribute('aria-selected', 'true');

      // No view scrolls the page sideways.
      const wide: string[] = [];
      for (const name of await page.getByRole('tab').allTextContents()) {
        await page.getByRole('tab', { name, exact: true }).click();
        await page.waitForTimeout(150);
        if ((await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) > 0) {
          wide.push(name);
          await page.screenshot({
            path: join(SCREENS_DIR, `${subject.id}-${width}-wide-${name.replace(/\W+/g, '')}.png`),
          });
        }
      }
      expect(wide, 'views wider than the window').toEqual([]);
      watch.expectClean();
    });
  }
}

test('the name column resizes from the keyboard and by dragging', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(files.kohya);
  const header = page.getByRole('columnheader', { name: /Name/ });
  await expect(header).toBeVisible();
  const before = (await header.boundingBox())?.width ?? 0;
  const handle = page.getByRole('separator', { name: 'Resize the Name column' });
  await handle.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect.poll(async () => Math.round((await header.boundingBox())?.width ?? 0)).toBe(Math.round(before + 48));
  const box = await handle.boundingBox();
  if (!box) {
    throw new Error('no resize handle');
  }
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 100, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect
    .poll(async () => Math.round((await header.boundingBox())?.width ?? 0))
    .toBe(Math.round(before + 48 - 100));
  // Its cells follow the header.
  const cell = page.getByRole('grid', { name: 'Tensors' }).locator('[role="gridcell"].tt-name').first();
  expect(Math.round((await cell.boundingBox())?.width ?? 0)).toBe(Math.round(before + 48 - 100));
});

test('the full name is copyable: Copy name in the details, Ctrl+C on a name cell', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(files.kohya);
  const grid = page.getByRole('grid', { name: 'Tensors' });
  const row = grid.locator('[role="row"][aria-rowindex="3"]');
  const name = (await row.locator('.tt-name .elided').getAttribute('title')) ?? '';
  expect(name.length).toBeGreaterThan(40);
  await row.click();
  await page.getByRole('button', { name: 'Copy name' }).click();
  await expect(page.getByRole('button', { name: 'Name copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(name);

  await page.evaluate(() => navigator.clipboard.writeText(''));
  await grid.focus();
  await page.keyboard.press('ArrowDown');
  const next = (await grid.locator('[role="row"][aria-rowindex="4"] .tt-name .elided').getAttribute('title')) ?? '';
  await page.keyboard.press('ControlOrMeta+c');
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(next);
});

test('dark mode by hand is remembered across reloads', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await openApp(page);
  await page.getByRole('combobox', { name: 'Colour theme' }).selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  expect(await background()).toBe('rgb(15, 18, 22)');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await background()).toBe('rgb(15, 18, 22)');
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByTestId('file-input').first().setInputFiles(files.gptq);
  await expect(page.getByRole('grid', { name: 'Tensors' }).getByRole('row').nth(1)).toBeVisible();
  mkdirSync(SCREENS_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENS_DIR, 'gptq-llama2-7b-1440-dark.png') });
  await page.getByRole('combobox', { name: 'Colour theme' }).selectOption('system');
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./);
  expect(await background()).toBe('rgb(255, 255, 255)');
});

test('250k tensors: while a sort or filter runs, the previous rows stay and the count says working', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const watch = watchPage(page);
  await openApp(page);
  await page.getByTestId('file-input').first().setInputFiles(fixturePath('moe-250k.safetensors'));
  const count = page.getByTestId('row-count');
  await expect(count).toContainText(/250.638 shown/, { timeout: 60_000 });
  // Record every state the count and the table pass through, from inside the page (no sampling gaps).
  await page.evaluate(() => {
    const seen: Array<{ text: string; rows: number }> = [];
    (window as unknown as { __seen: typeof seen }).__seen = seen;
    const scroll = document.querySelector('[data-testid="table-scroll"]');
    const record = () =>
      seen.push({
        text: document.querySelector('[data-testid="row-count"]')?.textContent ?? '',
        rows: scroll?.querySelectorAll('[role="rowgroup"] + [role="rowgroup"] [role="row"]').length ?? 0,
      });
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.getByRole('columnheader', { name: /Name/ }).getByRole('button').click();
  await expect(page.getByRole('columnheader', { name: /Name/ })).toHaveAttribute('aria-sort', 'ascending');
  await expect(count).not.toContainText('working');
  await page.getByRole('searchbox', { name: 'Filter tensors' }).fill('experts.87.');
  await expect(count).toContainText(/ 279 shown/);
  await expect(count).not.toContainText('working');
  const seen = await page.evaluate(
    () => (window as unknown as { __seen: Array<{ text: string; rows: number }> }).__seen,
  );
  expect(
    seen.some((state) => state.text.includes('working')),
    'the count said working at some point',
  ).toBe(true);
  const empty = seen.filter((state) => / 0 shown/.test(state.text) || state.rows === 0);
  expect(empty, 'no empty table or "0 shown" on the way').toEqual([]);
  watch.expectClean();
});

/** The LoRA views of the value scan and of Compare values (fixtures/values, scripts/lora-update-fixtures.py). */
const LORA_VALUES = join(process.cwd(), 'fixtures', 'values');
const loraFolder = (name: string) =>
  ['adapter_model.safetensors', 'adapter_config.json'].map((file) => join(LORA_VALUES, name, file));

for (const width of WIDTHS) {
  test(`LoRA update cards and ΔW at ${width} px: no page scroll, every module name whole`, async ({ page }) => {
    const watch = watchPage(page);
    await page.setViewportSize({ width, height: 900 });
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(loraFolder('lora-tiny-llama'));
    await page.getByRole('button', { name: 'Scan all values' }).click();
    const card = page.getByTestId('lora-updates');
    await expect(card).toBeVisible();
    mkdirSync(SCREENS_DIR, { recursive: true });
    await card.screenshot({ path: join(SCREENS_DIR, `lora-updates-${width}.png`) });
    const noScroll = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await noScroll(), 'page wider than the window').toBeLessThanOrEqual(0);
    // Module names wrap rather than being cut: each cell shows its whole text.
    for (const cell of await page.getByTestId('lora-updates-strongest').locator('tbody td:first-child').all()) {
      expect(await cell.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true);
    }
    // The strongest module's update itself, in its factor's details: heading, figures and pictures within the page.
    await page.getByTestId('lora-updates-strongest').locator('tbody tr').first().getByRole('button').click();
    await page.getByRole('button', { name: 'Compute ΔW' }).click();
    const delta = page.getByTestId('lora-delta-panel');
    await expect(delta.getByTestId('values-heatmap')).toBeVisible();
    await page.getByTestId('tensor-details').screenshot({ path: join(SCREENS_DIR, `lora-delta-${width}.png`) });
    expect(await noScroll(), 'page wider than the window').toBeLessThanOrEqual(0);
    const heading = delta.getByRole('heading', { name: /^ΔW of / });
    expect(await heading.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true);

    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByTestId('compare-file-input').setInputFiles(loraFolder('lora-tiny-llama-b'));
    await page.getByRole('button', { name: 'Compare values' }).click();
    const pair = page.getByTestId('lora-pair');
    await expect(pair).toBeVisible();
    await pair.screenshot({ path: join(SCREENS_DIR, `lora-pair-${width}.png`) });
    expect(await noScroll(), 'page wider than the window').toBeLessThanOrEqual(0);
    watch.expectClean();
  });
}
