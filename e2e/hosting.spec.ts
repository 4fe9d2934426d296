import { expect, test } from '@playwright/test';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fixturePath, openApp, openLocalFile, statValue, watchPage } from './helpers';

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.safetensors': 'application/octet-stream',
  '.map': 'application/json',
};

/** Serves dist/ under /some/sub/path/, as GitHub Pages or a static Space would, with nothing at the root. */
function serveDistUnder(prefix: string): Promise<Server> {
  const root = join(process.cwd(), process.env.E2E_DIST ?? 'dist');
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    if (!path.startsWith(prefix)) {
      response.writeHead(404).end();
      return;
    }
    const relative = normalize(path.slice(prefix.length) || 'index.html');
    const file = join(root, relative.endsWith('/') ? `${relative}index.html` : relative);
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test('the built site works from a sub-path (static hosting)', async ({ page }) => {
  const prefix = '/some/sub/path/';
  const server = await serveDistUnder(prefix);
  try {
    const watch = watchPage(page);
    const { port } = server.address() as AddressInfo;
    await page.goto(`http://127.0.0.1:${port}${prefix}`);
    await expect(page.getByRole('heading', { name: 'Safetensors Lens' })).toBeVisible();
    // The bundled samples and the worker both resolve relative to the page.
    await page.getByRole('button', { name: 'Clean model with metadata' }).click();
    await expect(page.getByTestId('file-name')).toHaveText('tiny-llama-with-metadata.safetensors');
    await page.getByTestId('file-input').first().setInputFiles(fixturePath('clean.safetensors'));
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    expect(await statValue(page, 'stat-tensors')).toBeGreaterThan(0);
    // The charts are a chunk of their own, fetched on first use: it too resolves under the sub-path.
    await page.getByRole('tab', { name: 'Dtypes' }).click();
    await expect(page.locator('.chart-box svg.recharts-surface')).toBeVisible();
    expect(watch.requests.some((url) => url.includes(`${prefix}assets/Bars-`))).toBe(true);
    watch.expectClean();
  } finally {
    server.close();
  }
});

test('a chart whose code cannot be fetched says so, and the view and the rest of the app stay', async ({ page }) => {
  const watch = watchPage(page);
  // As when the site is redeployed under an open page: the chart chunk's old name no longer exists.
  await page.route('**/assets/Bars-*.js', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await openApp(page);
  await openLocalFile(page, 'clean.safetensors');
  await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
  await page.getByRole('tab', { name: 'Dtypes' }).click();
  await expect(page.getByTestId('chart-unavailable')).toContainText('This chart could not be drawn');
  await expect(page.getByRole('table', { name: 'Dtype totals' })).toBeVisible();
  // Both charts of the Modules tab say so too (the first one's failure hands the turn on), and the tree works.
  await page.getByRole('tab', { name: 'Modules' }).click();
  await expect(page.getByTestId('chart-unavailable')).toHaveCount(2);
  await expect(page.getByRole('tree', { name: 'Module tree' }).getByRole('treeitem').first()).toBeVisible();
  await page.getByRole('tab', { name: /^Tensors/ }).click();
  await expect(page.getByTestId('row-count')).toBeVisible();
  watch.expectClean([
    /Failed to load resource|Failed to fetch dynamically imported module|dynamically imported module/,
  ]);
});
