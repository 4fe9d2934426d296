/**
 * The view tabs under the pointer: a tab that moves between the press and the release (tabs appear as a load's
 * analyses land) is still the one chosen.
 */
import { expect, test } from '@playwright/test';
import { openApp, openLocalFile } from './helpers';

test('a tab pressed, then moved from under the pointer before the release, is selected', async ({ page }) => {
  await openApp(page);
  await openLocalFile(page, 'clean.safetensors');
  const compare = page.getByRole('tab', { name: 'Compare' });
  await expect(compare).toBeVisible();
  const box = await compare.boundingBox();
  if (!box) {
    throw new Error('no Compare tab');
  }
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  // What a tab inserted before it does: the pressed tab moves right by more than its width.
  await page
    .getByRole('tablist', { name: 'Views' })
    .evaluate((list, shift) => ((list as HTMLElement).style.paddingLeft = `${shift}px`), Math.ceil(box.width * 2));
  await expect.poll(async () => (await compare.boundingBox())?.x ?? 0).toBeGreaterThan(box.x + box.width);
  await page.mouse.up();
  await expect(compare).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('compare-file-input')).toBeAttached();
});

test('a secondary-button press selects no tab', async ({ page }) => {
  await openApp(page);
  await openLocalFile(page, 'clean.safetensors');
  const dtypes = page.getByRole('tab', { name: 'Dtypes' });
  await expect(dtypes).toBeVisible();
  await dtypes.click({ button: 'right' });
  await expect(page.getByRole('tab', { name: 'Tensors' })).toHaveAttribute('aria-selected', 'true');
  await expect(dtypes).toHaveAttribute('aria-selected', 'false');
});
