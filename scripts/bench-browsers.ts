/**
 * The two ways the remote bench drives Chromium, behind one small interface: the plain DevTools pipe
 * (bench-plain-browser.ts: no request instrumentation, what a user's browser does; the default), and Playwright
 * (`BENCH_DRIVER=playwright`, and whenever CPU profiles are asked for: they need its CDP sessions).
 */
import type { Browser, Page } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from './find-chromium.mjs';
import { PlainBrowser } from './bench-plain-browser';
import { collectMarks, MARKS_IN_PAGE, type Mark } from './bench-timeline';

export interface BenchPage {
  /** Evaluates an expression (a string, so tsx adds no helpers the page lacks), awaiting a promise it returns. */
  evaluate<T>(expression: string): Promise<T>;
  /** The `lens:` marks of the page and its workers. */
  marks(): Promise<Mark[]>;
  /** The Playwright page, when Playwright drives (for CPU profiles). */
  playwright: Page | null;
  close(): Promise<void>;
}

export interface BenchBrowser {
  /** Which driver, for the printed header. */
  driver: 'devtools pipe' | 'playwright';
  version(): Promise<string>;
  /** A page in a fresh context (no connection shared with earlier pages) at `url`. */
  open(url: string, options?: { bypassCSP?: boolean }): Promise<BenchPage>;
  close(): Promise<void>;
}

/** Self-signed certificates of the bench servers are accepted; nothing else differs from the tests' Chromium. */
const BENCH_ARGS = [...CHROMIUM_ARGS, '--ignore-certificate-errors'];

/** `extraArgs`: flags for an experiment (bench-ab.ts), e.g. `--js-flags=--no-turbofan`; the benches pass none. */
export async function launchBenchBrowser(
  wantPlaywright: boolean,
  extraArgs: readonly string[] = [],
): Promise<BenchBrowser> {
  const chromium = findChromium();
  if (!wantPlaywright && chromium) {
    return plainBenchBrowser(await PlainBrowser.launch(chromium.path, [...BENCH_ARGS, ...extraArgs]));
  }
  const { chromium: playwright } = await import('@playwright/test');
  const browser = await playwright.launch({
    executablePath: chromium?.source === 'playwright' ? undefined : chromium?.path,
    args: [...BENCH_ARGS, ...extraArgs],
  });
  return playwrightBenchBrowser(browser);
}

function plainBenchBrowser(browser: PlainBrowser): BenchBrowser {
  return {
    driver: 'devtools pipe',
    version: () => browser.version(),
    async open(url, options = {}) {
      const page = await browser.newPage(url, options);
      return {
        evaluate: (expression) => page.evaluate(expression),
        async marks() {
          const own = await page.evaluate<Mark[]>(MARKS_IN_PAGE);
          const workers = await page.evaluateInWorkers<Mark[]>(MARKS_IN_PAGE);
          return [...own, ...workers.flat()];
        },
        playwright: null,
        close: () => page.close(),
      };
    },
    close: () => browser.close(),
  };
}

function playwrightBenchBrowser(browser: Browser): BenchBrowser {
  return {
    driver: 'playwright',
    version: async () => `Chromium ${browser.version()}`,
    async open(url, options = {}) {
      const context = await browser.newContext({ ignoreHTTPSErrors: true, bypassCSP: options.bypassCSP === true });
      const page = await context.newPage();
      await page.goto(url);
      return {
        evaluate: async <T>(expression: string) => (await page.evaluate(expression)) as T,
        marks: () => collectMarks(page),
        playwright: page,
        close: () => context.close(),
      };
    },
    close: () => browser.close(),
  };
}
