import { expect, test } from '@playwright/test';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fixturePath, statValue, watchPage } from './helpers';

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
  const root = join(process.cwd(), 'dist');
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
    watch.expectClean();
  } finally {
    server.close();
  }
});
