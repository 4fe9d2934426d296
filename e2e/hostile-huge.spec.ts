/**
 * Issue 16, from outside: huge user-controlled lists and strings never block the main thread for more than 200 ms
 * while every tab is opened, hostile filters from share links are stopped and dropped, and invisible characters in
 * names are shown. Fixtures come from `npx tsx scripts/fixtures.ts` (e2e/.fixtures).
 */
import { expect, test, type Page } from '@playwright/test';
import { ORIGIN_A, openApp, watchPage } from './helpers';

const filterBox = (page: Page) => page.getByRole('searchbox', { name: 'Filter tensors' });

test.describe('hostile filters from share links', () => {
  for (const pattern of ['/(a+)+$/', '/^((a+)+)\\1x/']) {
    test(`?q=${pattern} is stopped within 10 s, dropped from the link, and the table comes back`, async ({ page }) => {
      test.setTimeout(60_000);
      const watch = watchPage(page);
      const url = `${ORIGIN_A}/range/redos-bait.safetensors`;
      await openApp(page, `?url=${encodeURIComponent(url)}&q=${encodeURIComponent(pattern)}`);
      await expect(page.getByTestId('table-notice')).toContainText('was stopped', { timeout: 10_000 });
      await expect(page.getByTestId('row-count')).toContainText('2 shown');
      await expect(filterBox(page)).toHaveValue('');
      await expect.poll(() => new URL(page.url()).searchParams.get('q'), { timeout: 5_000 }).toBeNull();
      // The page answers: a new filter narrows the rows, clearing it brings them back.
      await filterBox(page).fill('norm');
      await expect(page.getByTestId('row-count')).toContainText('1 shown');
      await filterBox(page).fill('');
      await expect(page.getByTestId('row-count')).toContainText('2 shown');
      watch.expectClean();
    });
  }
});
