/**
 * Accessibility of the main views, checked by axe-core (WCAG 2.x A/AA rules): the first screen, and each tab of a
 * loaded model, in light and dark themes. No serious or critical violation may remain.
 *
 * The app's CSP forbids inline scripts and requires Trusted Types, so `page.addScriptTag({ content })` is refused;
 * evaluating the library's source through the DevTools protocol (`page.evaluate(source)`) is not subject to the
 * page's CSP and defines `window.axe`.
 */
import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { openApp, openLocalFile } from './helpers';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<unknown> } }).axe;
    const results = (await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    })) as { violations: Violation[] };
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.slice(0, 5).map((node) => ({ target: node.target, failureSummary: node.failureSummary })),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

function describeViolations(violations: Violation[]): string {
  return violations
    .map(
      (violation) => `${violation.id} (${violation.impact}): ${violation.help}\n  ${JSON.stringify(violation.nodes)}`,
    )
    .join('\n');
}

for (const theme of ['light', 'dark'] as const) {
  test.describe(`axe, ${theme} theme`, () => {
    test.beforeEach(async ({ page }) => {
      await page.emulateMedia({ colorScheme: theme });
    });

    test('first screen', async ({ page }) => {
      await openApp(page);
      const violations = await seriousViolations(page);
      expect(violations, describeViolations(violations)).toEqual([]);
    });

    test('a file that is not safetensors', async ({ page }) => {
      await openApp(page);
      await openLocalFile(page, 'html-page.safetensors');
      await expect(page.getByRole('button', { name: 'Download report' })).toBeVisible();
      const violations = await seriousViolations(page);
      expect(violations, describeViolations(violations)).toEqual([]);
    });

    test('the compare view’s tokenizer card: token by token, and one text encoded by both', async ({ page }) => {
      await openApp(page);
      const folder = join(process.cwd(), 'fixtures', 'tokenizer', 'bpe-llama3');
      const names = ['model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
      await page
        .getByTestId('file-input')
        .first()
        .setInputFiles(names.map((name) => join(folder, name)));
      await page.getByRole('tab', { name: 'Compare' }).click();
      // B: the same tokenizer without its post-processor, so the two encodings part (marked tokens).
      const tokenizer = JSON.parse(readFileSync(join(folder, 'tokenizer.json'), 'utf8')) as object;
      await page.getByTestId('compare-file-input').setInputFiles([
        {
          name: 'model.safetensors',
          mimeType: 'application/octet-stream',
          buffer: readFileSync(join(folder, names[0])),
        },
        {
          name: 'tokenizer.json',
          mimeType: 'application/json',
          buffer: Buffer.from(JSON.stringify({ ...tokenizer, post_processor: null })),
        },
      ]);
      await page.getByRole('button', { name: 'Read and compare every token' }).click();
      await expect(page.getByTestId('vocabulary-diff')).toBeVisible();
      await expect(page.locator('.encode-text-differs').first()).toBeVisible();
      // The probe texts' table, its differing rows marked: B adds no BOS, so every one differs.
      await page.getByRole('button', { name: 'Try the 12 probe texts' }).click();
      await expect(page.getByTestId('probe-texts-verdict')).toHaveText(
        '12 of 12 probe texts get other ids on the two sides.',
      );
      const violations = await seriousViolations(page);
      expect(violations, describeViolations(violations)).toEqual([]);
    });

    test('a GGUF tab with its own tokenizer encoding a text', async ({ page }) => {
      await openApp(page);
      await page
        .getByTestId('file-input')
        .first()
        .setInputFiles(join(process.cwd(), 'fixtures', 'tokenizer', 'spm-llama.gguf'));
      await page.getByRole('tab', { name: 'GGUF' }).click();
      await expect(page.getByTestId('encode-text-count')).toBeVisible();
      const violations = await seriousViolations(page);
      expect(violations, describeViolations(violations)).toEqual([]);
    });

    test("the Training tab of a Trainer checkpoint: its charts, a diverged run's band, the tables", async ({
      page,
    }) => {
      await openApp(page);
      const runs = join(process.cwd(), 'fixtures', 'torch2', 'trainer-runs');
      await page
        .getByTestId('file-input')
        .first()
        .setInputFiles([
          join(runs, 'overfit', 'checkpoint-12', 'model.safetensors'),
          join(runs, 'overfit', 'checkpoint-12', 'training_args.bin'),
          join(runs, 'diverged', 'trainer_state.json'),
        ]);
      await page.getByRole('tab', { name: 'Training' }).click();
      await expect(page.getByTestId('training-chart').locator('.recharts-line-curve')).toHaveCount(3);
      await expect(page.getByTestId('training-settings')).toBeVisible();
      const violations = await seriousViolations(page);
      expect(violations, describeViolations(violations)).toEqual([]);
    });

    test('every tab of a loaded model', async ({ page }) => {
      test.setTimeout(120_000);
      await openApp(page);
      await openLocalFile(page, 'flux1-dev-int8cr.safetensors');
      await expect(page.getByRole('grid', { name: 'Tensors' }).getByRole('row').nth(1)).toBeVisible();
      // Open a row's details too, so the details panel is checked.
      await page.getByRole('grid', { name: 'Tensors' }).getByRole('row').nth(1).click();
      await expect(page.getByRole('region', { name: 'Tensor details' })).toBeVisible();
      const tabs = await page.getByRole('tab').allTextContents();
      expect(tabs.length).toBeGreaterThan(4);
      const failures: string[] = [];
      for (const name of tabs) {
        await page.getByRole('tab', { name, exact: true }).click();
        await expect(page.getByRole('tab', { name, exact: true })).toHaveAttribute('aria-selected', 'true');
        await page.waitForTimeout(200);
        const violations = await seriousViolations(page);
        if (violations.length > 0) {
          failures.push(`${name} tab:\n${describeViolations(violations)}`);
        }
      }
      expect(failures, failures.join('\n\n')).toEqual([]);
    });
  });
}
