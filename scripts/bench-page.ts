/**
 * What the benchmarks that drive the built app share: serving `dist/` with vite preview, waiting for a server, a
 * hidden file input that hands the page the same file the app opens, and the `JSON.parse` baseline measured in the
 * page over that file's header bytes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Page } from '@playwright/test';

/** Vite itself, not through npx: killing an npx wrapper leaves its vite child serving the port. */
export function startPreview(port: number, dist = 'dist'): ChildProcess {
  return spawn(
    process.execPath,
    [
      'node_modules/vite/bin/vite.js',
      'preview',
      '--outDir',
      dist,
      '--port',
      String(port),
      '--strictPort',
      '--host',
      '127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
}

export async function waitForServer(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) {
        return;
      }
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not come up`);
}

/** Gives the page `path` through a hidden `#bench-input` (the app clears its own input after each pick). */
export async function setBenchInput(page: Page, path: string): Promise<void> {
  // Passed as a string: tsx would otherwise wrap inner functions in a helper the page does not have.
  await page.evaluate(`(() => {
    if (document.getElementById('bench-input')) return;
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'bench-input';
    input.hidden = true;
    document.body.append(input);
  })()`);
  await page.locator('#bench-input').setInputFiles(path);
}

/** JSON.parse(TextDecoder.decode(header)) of the safetensors file at `path`, median of three, in the page. */
export async function jsonParseInPage(page: Page, path: string): Promise<number> {
  await setBenchInput(page, path);
  return (await page.evaluate(`(async () => {
    const file = document.getElementById('bench-input').files[0];
    const length = Number(new DataView(await file.slice(0, 8).arrayBuffer()).getBigUint64(0, true));
    const bytes = new Uint8Array(await file.slice(8, 8 + length).arrayBuffer());
    const samples = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      JSON.parse(new TextDecoder().decode(bytes));
      samples.push(performance.now() - started);
    }
    return samples.sort((a, b) => a - b)[1];
  })()`)) as number;
}
