/**
 * Issue #7 end to end: hostile files, hostile servers and hostile links in the built app (docs/security.md).
 * Unit-level twins: src/core/hostile.test.ts, src/core/load-header.test.ts, src/testing/fuzz/, src/worker/token-leak.test.ts.
 */
import { expect, test, type Page, type Request } from '@playwright/test';
import { readFileSync } from 'node:fs';
import {
  DEEP_NESTING_LEVELS,
  HEADER_OVER_BUDGET,
  HEADER_OVER_CAP,
  HEADER_UNDER_CAP,
  LONG_METADATA_KEY,
  LONG_METADATA_VALUE,
  LONG_NAME,
} from '../src/testing/hostile-fixtures';
import {
  APP_ORIGIN,
  headerLengthOf,
  openApp,
  openLocalFile,
  ORIGIN_A,
  ORIGIN_B,
  serverLog,
  statValue,
  uniqueTag,
  watchPage,
} from './helpers';

function tagged(name: string): string {
  return `t=${uniqueTag(name)}`;
}

async function openUrl(page: Page, url: string): Promise<void> {
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}

async function download(page: Page, button: string | RegExp): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  return readFileSync(await file.path(), 'utf8');
}

/** Collects `securitypolicyviolation` events of the page (installed before any app script runs). */
async function recordCspViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => {
      seen.push(`${event.effectiveDirective} ${event.blockedURI}`);
    });
  });
  return () => page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
}

/** Everything observable about Object.prototype in the calling realm, to prove no header wrote to it. */
function prototypeSnapshot(): string {
  return Object.getOwnPropertyNames(Object.prototype)
    .sort()
    .map((key) => `${key}:${typeof Object.getOwnPropertyDescriptor(Object.prototype, key)?.value}`)
    .join('|');
}

test.describe('Content-Security-Policy', () => {
  test('the built page carries the policy in a meta tag, and the preview server sends it as a header', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const workerHeaders: Array<string | undefined> = [];
    page.on('response', (response) => {
      if (/parser\.worker-[\w-]+\.js$/.test(response.url())) {
        workerHeaders.push(response.headers()['content-security-policy']);
      }
    });
    const response = await page.goto('./');
    const header = response?.headers()['content-security-policy'] ?? '';
    const meta = (await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')) ?? '';
    for (const policy of [header, meta]) {
      const directives = new Map(
        policy.split(';').map((part) => {
          const [name, ...values] = part.trim().split(/\s+/);
          return [name, values.join(' ')] as const;
        }),
      );
      expect(directives.get('default-src')).toBe("'none'");
      expect(directives.get('script-src')).toBe("'self'");
      expect(directives.get('worker-src')).toBe("'self'");
      expect(directives.get('connect-src')).toBe("'self' https: http:");
      expect(directives.get('require-trusted-types-for')).toBe("'script'");
      expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|wasm-unsafe-eval|data:|\*/);
    }
    // frame-ancestors only works as a header (a meta tag carrying it makes the browser log an error).
    expect(header).toBe(`${meta}; frame-ancestors 'none'`);
    expect(response?.headers()['x-content-type-options']).toBe('nosniff');
    expect(response?.headers()['referrer-policy']).toBe('no-referrer');
    // The worker script gets the same header, so the policy also binds the worker's fetches.
    await openLocalFile(page, 'clean.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    expect(workerHeaders).toEqual([header]);
    watch.expectClean();
  });

  test('a normal session (local file, every tab, sample, remote URL, downloads) has no CSP violation', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const violations = await recordCspViolations(page);
    await openApp(page);
    await openLocalFile(page, 'flux1-dev-int8cr.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('flux1-dev-int8cr.safetensors');
    // Every one of these tabs exists for this model; each is opened and shows its own content.
    for (const tab of ['Modules', 'Dtypes', 'Quantization', 'Model', 'Metadata', 'Tensors']) {
      const button = page.getByRole('tab', { name: new RegExp(`^${tab}`) });
      await expect(button, `the ${tab} tab`).toHaveCount(1);
      await button.click();
      await expect(button).toHaveAttribute('aria-selected', 'true');
      const panel = page.getByRole('tabpanel');
      await expect(panel).toBeVisible();
      await expect(panel).not.toBeEmpty();
      if (tab === 'Dtypes') {
        await expect(panel.locator('.recharts-bar-rectangle').first()).toBeVisible();
      }
    }
    await expect(page.getByRole('grid', { name: 'Tensors' })).toBeVisible();
    await page.getByRole('grid', { name: 'Tensors' }).getByRole('row').nth(1).click();
    await expect(page.getByRole('region', { name: 'Tensor details' })).toBeVisible();
    await download(page, /report/i);
    await download(page, 'Download CSV');
    await download(page, 'Download header JSON');
    await openUrl(page, `${ORIGIN_A}/range/clean.safetensors?${tagged('csp')}`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    expect(await violations()).toEqual([]);
    watch.expectClean();
  });

  test('the policy is enforced: injected inline script, eval and HTML sinks are refused', async ({ page }) => {
    const watch = watchPage(page);
    const violations = await recordCspViolations(page);
    await openApp(page);
    // Code run by page.evaluate is exempt from the eval check (DevTools evaluates it), so the probe runs in a click
    // handler, dispatched by a real click: the page's own code, as an injected payload would run.
    await page.evaluate(() => {
      const probe = document.createElement('button');
      probe.id = 'csp-probe';
      probe.textContent = 'probe';
      const results: Record<string, string> = {};
      (window as unknown as { __probe: Record<string, string> }).__probe = results;
      const attempt = (name: string, run: () => unknown): void => {
        try {
          results[name] = `ran: ${String(run())}`;
        } catch (error) {
          results[name] = (error as Error).name;
        }
      };
      probe.addEventListener('click', () => {
        const win = window as unknown as Record<string, unknown>;
        attempt('inlineScript', () => {
          const script = document.createElement('script');
          script.textContent = 'window.__pwned = 1';
          document.body.append(script);
          return win.__pwned;
        });
        attempt('eval', () => window.eval('1 + 1'));
        attempt('newFunction', () => new Function('return 2')());
        attempt('innerHTML', () => {
          document.createElement('div').innerHTML = '<img src=x onerror="window.__pwned=3">';
          return 'assigned';
        });
        const payload: string = 'data:text/javascript,window.__pwned=4';
        import(/* @vite-ignore */ payload).then(
          () => (results.dataModule = 'ran'),
          (error: Error) => (results.dataModule = error.name),
        );
      });
      document.body.append(probe);
    });
    await page.locator('#csp-probe').click();
    await expect
      .poll(() => page.evaluate(() => Object.keys((window as unknown as { __probe: object }).__probe).length))
      .toBe(5);
    const outcome = await page.evaluate(() => (window as unknown as { __probe: Record<string, string> }).__probe);
    expect(outcome).toEqual({
      inlineScript: 'TypeError',
      eval: 'EvalError',
      newFunction: 'EvalError',
      innerHTML: 'TypeError',
      dataModule: 'TypeError',
    });
    await expect
      .poll(violations)
      .toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^require-trusted-types-for/),
          expect.stringMatching(/^script-src/),
        ]),
      );
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // This test provokes violations on purpose: the browser reports each one on the console, and nothing else.
    const unexpected = watch.errors.filter(
      (error) => !/Content Security Policy|Trusted Type|TrustedHTML|TrustedScript/.test(error),
    );
    expect(unexpected).toEqual([]);
    expect(watch.errors.length).toBeGreaterThan(0);
  });
});

test.describe('network', () => {
  test('a session requests only the app and the hosts of the URLs the user loaded (worker requests included)', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const contextRequests: Request[] = [];
    page.context().on('request', (request) => contextRequests.push(request));
    const tag = tagged('origins');
    await openApp(page);
    // A bundled sample (fetched from the app itself), then a local file, then a URL.
    await page.getByRole('button', { name: 'Damaged file' }).click();
    await expect(page.getByTestId('file-name')).toHaveText('damaged-truncated.safetensors');
    await openLocalFile(page, 'clean.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    // A cross-origin redirect: the user asked for origin A, which sends the reader on to origin B.
    const loaded = `${ORIGIN_A}/redirect/no-metadata.safetensors?${tag}`;
    await openUrl(page, loaded);
    await expect(page.getByTestId('file-name')).toHaveText('no-metadata.safetensors');

    const urls = [...new Set([...watch.requests, ...contextRequests.map((request) => request.url())])];
    // The Range reads come from the worker, and Playwright reports them: the check below covers the worker.
    const workerReads = contextRequests.filter((request) => request.url().startsWith(`${ORIGIN_A}/redirect/`));
    expect(workerReads.length).toBeGreaterThan(0);
    test.info().annotations.push({
      type: 'worker requests',
      description: `context 'request' saw ${workerReads.length}; page 'request' saw ${watch.requests.filter((url) => url.startsWith(`${ORIGIN_A}/redirect/`)).length}`,
    });
    expect(urls.some((url) => url.startsWith(`${ORIGIN_B}/range/no-metadata.safetensors`))).toBe(true);
    const allowed = new Set([APP_ORIGIN, new URL(loaded).origin, ORIGIN_B]);
    const foreign = urls.filter((url) => !allowed.has(new URL(url).origin));
    expect(foreign).toEqual([]);
    // Requests to the test servers were all for the loaded file.
    const log = await serverLog((entry) => entry.path.includes(tag));
    expect(log.length).toBeGreaterThanOrEqual(2);
    expect(log.every((entry) => /^\/(redirect|range)\/no-metadata\.safetensors\?/.test(entry.path))).toBe(true);
    watch.expectClean();
  });
});

test.describe('hostile files', () => {
  test('prototype keys and HTML/script payloads are rows and text: no pollution, no code, only https links', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    const prototypeBefore = await page.evaluate(prototypeSnapshot);
    await openLocalFile(page, 'hostile-names.safetensors');
    // The worker starts with the page (warmed up before the first Open), so it usually exists already.
    const worker = page.workers()[0] ?? (await page.waitForEvent('worker'));
    const table = page.getByRole('grid', { name: 'Tensors' });
    for (const name of [
      '__proto__',
      'constructor',
      'toString',
      '<img src=x onerror="window.__pwned=1">',
      '<script>window.__pwned=2</script>',
    ]) {
      await expect(table.getByText(name, { exact: true })).toBeVisible();
    }
    await table.getByText('<img src=x onerror="window.__pwned=1">', { exact: true }).click();
    await expect(page.getByRole('region', { name: 'Tensor details' }).getByRole('heading')).toHaveText(
      '<img src=x onerror="window.__pwned=1">',
    );

    await page.getByRole('tab', { name: /Metadata/ }).click();
    const metadata = page.getByRole('region', { name: 'Metadata' });
    for (const key of ['__proto__', 'constructor', 'toString']) {
      await expect(metadata.locator('dt', { hasText: new RegExp(`^${key}$`) })).toHaveCount(1);
    }
    for (const text of [
      'polluted?',
      '<img src=x onerror="window.__pwned=3">',
      '<script>window.__pwned=6</script>',
      'javascript:window.__pwned=4',
      'data:text/html,<script>window.__pwned=5</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
    ]) {
      await expect(metadata.getByText(text, { exact: true })).toBeVisible();
    }
    await expect(metadata.getByRole('link')).toHaveCount(1);
    await expect(metadata.getByRole('link')).toHaveAttribute('href', 'https://example.com/model');

    // None of the payloads became an element, ran, or touched a prototype (page or worker).
    expect(await page.locator('img[src="x"], script:not([src])').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.evaluate(prototypeSnapshot)).toBe(prototypeBefore);
    expect(await worker.evaluate(prototypeSnapshot)).toBe(prototypeBefore);
    expect(await page.evaluate(() => ({}) instanceof Object && typeof ({} as object).toString === 'function')).toBe(
      true,
    );
    watch.expectClean();
  });

  test('a 100,000-character name and a 1 MB value are shortened on screen and complete in CSV and report', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'long-values.safetensors');
    await expect(page.getByTestId('file-name')).toHaveText('long-values.safetensors');
    const cell = page.getByRole('grid', { name: 'Tensors' }).getByRole('row').nth(1).getByRole('gridcell').first();
    await expect(cell).toContainText('long.abcdefghij');
    // What the eye sees (the cut name) and what a screen reader reads (the whole name, shortened for display)
    // each stay within 1,000 characters.
    expect((await cell.locator('bdi').allTextContents()).join('').length).toBeLessThanOrEqual(1_000);
    expect((await cell.locator('.visually-hidden').allTextContents()).join('').length).toBeLessThanOrEqual(1_000);
    expect((await cell.locator('span.elided').getAttribute('title'))?.length).toBeLessThanOrEqual(1_000);
    await cell.click();
    await expect(page.getByRole('region', { name: 'Tensor details' })).toContainText(
      '100,000 characters, shortened here',
    );

    /** No text node or attribute anywhere on the page holds the whole string. */
    const shownInFull = (text: string) =>
      page.evaluate(
        (needle) =>
          (document.body.textContent ?? '').includes(needle) ||
          [...document.querySelectorAll('*')].some((element) =>
            [...element.attributes].some((attribute) => attribute.value.includes(needle)),
          ),
        text,
      );
    expect(await shownInFull(LONG_NAME)).toBe(false);
    await page.getByRole('tab', { name: /^Modules/ }).click();
    await page.getByRole('tree', { name: 'Module tree' }).getByRole('button', { name: /^long/ }).first().click();
    expect(await shownInFull(LONG_NAME), 'module tree and its table filter').toBe(false);
    await page.getByRole('tab', { name: /^Metadata/ }).click();
    expect(await shownInFull(LONG_NAME), 'metadata tab').toBe(false);
    const metadata = page.getByRole('region', { name: 'Metadata' });
    await expect(metadata.getByRole('button', { name: 'Show all 1,000,000 characters' })).toBeVisible();
    expect(await shownInFull(LONG_METADATA_VALUE)).toBe(false);
    expect(await shownInFull(LONG_METADATA_KEY)).toBe(false);
    await expect(metadata.locator('dt', { hasText: /^key_k+…$/ })).toHaveCount(1);

    const csv = await download(page, 'Download CSV');
    expect(csv.split('\n')[1].startsWith(`${LONG_NAME},F32,`)).toBe(true);
    const report = JSON.parse(await download(page, /report/i)) as { metadata: Record<string, string> };
    expect(report.metadata.long_value).toBe(LONG_METADATA_VALUE);
    expect(report.metadata[LONG_METADATA_KEY]).toBe('long key');
    watch.expectClean();
  });

  test(`JSON nested ${DEEP_NESTING_LEVELS} levels deep is refused at once with a clear message`, async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    const started = Date.now();
    await openLocalFile(page, 'deep-nesting.safetensors');
    const finding = page.locator('[data-code="too-deep"]');
    await expect(finding).toContainText('nests JSON 128 levels deep');
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(page.getByRole('alert')).toContainText('Header nests too deeply');
    watch.expectClean();
  });

  test('numbers beyond 2^53 are flagged with their exact value', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, 'unsafe-integer.safetensors');
    await expect(page.locator('[data-code="unsafe-integer"]').first()).toContainText('9,007,199,254,740,993');
    // Its element count is not kept (it could not be exact): a dash in the table and the details, never "NaN".
    const row = page.getByRole('grid', { name: 'Tensors' }).getByRole('row').filter({ hasText: 'big' });
    await expect(row).not.toContainText('NaN');
    await row.getByRole('gridcell', { name: 'big', exact: true }).click();
    await expect(page.getByTestId('tensor-details')).toContainText('Elements—');
    await expect(page.getByTestId('tensor-details')).not.toContainText('NaN');
    watch.expectClean();
  });

  test('a real 99,999,999-byte header parses, reading exactly 8 + N bytes', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, HEADER_UNDER_CAP.file);
    await expect(page.getByTestId('file-name')).toHaveText(HEADER_UNDER_CAP.file, { timeout: 45_000 });
    expect(await statValue(page, 'stat-header')).toBe(99_999_999);
    expect(await statValue(page, 'stat-tensors')).toBe(1);
    expect(await statValue(page, 'stat-bytes-read')).toBe(8 + 99_999_999);
    await page.getByRole('tab', { name: /Metadata/ }).click();
    await expect(
      page.getByRole('button', { name: `Show all ${HEADER_UNDER_CAP.fillLength.toLocaleString('en')} characters` }),
    ).toBeVisible();
    watch.expectClean();
  });

  test('one byte over the 100 MB cap: a clear refusal, then "Parse anyway" parses it', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, HEADER_OVER_CAP.file);
    const refusal = page.locator('.not-safetensors');
    await expect(refusal.locator('[data-code="header-too-large"]')).toContainText('100,000,001');
    await expect(refusal).toContainText('Header over the 100 MB cap');
    await refusal.getByRole('button', { name: /^Parse anyway/ }).click();
    await expect(page.getByTestId('file-name')).toHaveText(HEADER_OVER_CAP.file, { timeout: 45_000 });
    expect(await statValue(page, 'stat-tensors')).toBe(1);
    expect(await statValue(page, 'stat-bytes-read')).toBe(8 + HEADER_OVER_CAP.headerLength);
    // The reference loader still refuses it, and the finding stays on the list.
    await expect(page.getByTestId('integrity')).toContainText(/refuse/);
    await expect(page.locator('[data-code="header-too-large"]').first()).toBeVisible();
    watch.expectClean();
  });

  test('a header over the parse-anyway budget is refused without the button and without reading it', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openLocalFile(page, HEADER_OVER_BUDGET.file);
    const refusal = page.locator('.not-safetensors');
    await expect(refusal.locator('[data-code="header-too-large"]')).toBeVisible();
    await expect(refusal.getByRole('button', { name: /Parse anyway/ })).toHaveCount(0);
    const report = JSON.parse(await download(page, /report/i)) as { file: { bytesRead: number; headerLength: number } };
    expect(report.file.headerLength).toBe(HEADER_OVER_BUDGET.headerLength);
    expect(report.file.bytesRead).toBeLessThanOrEqual(512);
    watch.expectClean();
  });
});

test.describe('hostile servers', () => {
  /** Chromium logs failed and aborted loads itself; those lines are the server's fault, not the app's. */
  const browserNetworkNoise = /Failed to load resource|net::ERR_/;

  test('a Content-Range that disagrees with the request is refused with a clear message', async ({ page }) => {
    const watch = watchPage(page);
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/badrange/clean.safetensors?${tagged('badrange')}`);
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('The server answered with the wrong bytes');
    await expect(alert).toContainText(/Asked the server for bytes 0-\d+ but it sent bytes 1-\d+/);
    await expect(alert).toContainText('code range-mismatch');
    expect(watch.errors.filter((error) => !browserNetworkNoise.test(error))).toEqual([]);
  });

  test('a 206 body longer than asked is cut off, and the header still parses correctly', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('longbody');
    await openApp(page);
    // A ~200 KB header: the surplus (0xEE filler) of the first read would corrupt it if it were kept.
    await openUrl(page, `${ORIGIN_A}/longbody/medium-header.safetensors?${tag}`);
    await expect(page.getByTestId('file-name')).toHaveText('medium-header.safetensors');
    expect(await statValue(page, 'stat-header')).toBe(headerLengthOf('medium-header.safetensors'));
    await expect(page.getByTestId('integrity')).toContainText('reference loader accepts');
    const log = await serverLog((entry) => entry.path.includes(tag));
    expect(log[0].range).toBe(`bytes=0-${128 * 1024 - 1}`);
    expect(log[1].range).toMatch(new RegExp(`^bytes=${128 * 1024}-`));
    expect(watch.errors.filter((error) => !browserNetworkNoise.test(error))).toEqual([]);
  });

  test('a connection reset in mid-header resumes with a Range from the last byte received', async ({ page }) => {
    const watch = watchPage(page);
    const tag = tagged('drop');
    await openApp(page);
    await openUrl(page, `${ORIGIN_A}/drop/medium-header.safetensors?${tag}`);
    await expect(page.getByTestId('file-name')).toHaveText('medium-header.safetensors');
    expect(await statValue(page, 'stat-header')).toBe(headerLengthOf('medium-header.safetensors'));
    await expect(page.getByTestId('integrity')).toContainText('reference loader accepts');
    const log = (await serverLog((entry) => entry.path.includes(tag))).filter((entry) => entry.method === 'GET');
    expect(log[0].abortedEarly).toBe(true);
    const dropped = log[0].bytesSent;
    expect(dropped).toBeGreaterThan(0);
    expect(dropped).toBeLessThan(8 + headerLengthOf('medium-header.safetensors'));
    // The retry continues where the bytes stopped instead of starting over.
    const resumedAt = Number(/^bytes=(\d+)-/.exec(log[1].range ?? '')?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(dropped);
    expect(watch.errors.filter((error) => !browserNetworkNoise.test(error))).toEqual([]);
  });

  test('a body that stalls ends with a timeout and a clear message', async ({ page }) => {
    // The reader gives up after 20 s of silence (DEFAULT_TIMEOUT_MS); nothing in the app shortens it.
    test.setTimeout(60_000);
    const watch = watchPage(page);
    const tag = tagged('stall');
    await openApp(page);
    const started = Date.now();
    await openUrl(page, `${ORIGIN_A}/stall/clean.safetensors?${tag}`);
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('The server stopped sending data', { timeout: 40_000 });
    await expect(alert).toContainText('sent nothing for 20 s');
    await expect(alert).toContainText('code timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(19_000);
    expect((await serverLog((entry) => entry.path.includes(tag))).filter((e) => e.method === 'GET')).toHaveLength(1);
    expect(watch.errors.filter((error) => !browserNetworkNoise.test(error))).toEqual([]);
  });

  test('an endless redirect chain ends with a bounded number of requests and mentions a redirect loop', async ({
    page,
  }) => {
    const watch = watchPage(page);
    await openApp(page);
    // The chain drops the query string, so count by path: only this test uses /loop/.
    const before = (await serverLog((entry) => entry.path.startsWith('/loop/'))).length;
    await openUrl(page, `${ORIGIN_A}/loop/0`);
    const alert = page.getByRole('alert');
    await expect(alert).toContainText(/redirect loop/i, { timeout: 30_000 });
    const after = (await serverLog((entry) => entry.path.startsWith('/loop/'))).length;
    // Chromium follows at most 20 redirects per fetch; three attempts and their probes stay far below 200.
    expect(after - before).toBeGreaterThan(20);
    expect(after - before).toBeLessThan(200);
    await page.waitForTimeout(1_500);
    expect((await serverLog((entry) => entry.path.startsWith('/loop/'))).length).toBe(after);
    expect(watch.errors.filter((error) => !browserNetworkNoise.test(error))).toEqual([]);
  });
});

test.describe('tokens and links', () => {
  const TOKEN = 'hf_e2eSECRETtoken0123456789';

  test('a token never reaches a non-Hub host, the URL, storage, the report, the page text or the console', async ({
    page,
  }) => {
    const watch = watchPage(page);
    const consoleText: string[] = [];
    page.on('console', (message) => consoleText.push(`${message.type()} ${message.text()}`));
    const tag = tagged('token');
    await openApp(page);
    await page.getByRole('button', { name: /Token/ }).click();
    await page.getByPlaceholder('hf_…').fill(TOKEN);
    await openUrl(page, `${ORIGIN_A}/range/clean.safetensors?${tag}`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    await openUrl(page, `${ORIGIN_A}/status/401/clean.safetensors?${tag}`);
    await expect(page.getByRole('alert')).toContainText('Authentication required');
    await expect(page.getByRole('alert')).toContainText('Your access token was not sent');

    const log = await serverLog((entry) => entry.path.includes(tag));
    expect(log.length).toBeGreaterThanOrEqual(2);
    expect(log.every((entry) => entry.authorization === null)).toBe(true);
    expect(page.url()).not.toContain(TOKEN);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(TOKEN);
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain(TOKEN);
    expect(await page.evaluate(() => document.body.innerText)).not.toContain(TOKEN);

    // Opting in keeps it for this tab only: sessionStorage, never localStorage. (Using the URL box closed the token
    // popover, as any click outside it does; the token button opens it again.)
    await page.getByRole('button', { name: /Token/ }).click();
    await page.getByRole('checkbox', { name: /Remember for this tab/ }).check();
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).toContain(TOKEN);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(TOKEN);

    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog', { name: 'Hugging Face access token' })).toBeHidden();
    await openUrl(page, `${ORIGIN_A}/range/no-metadata.safetensors?${tag}`);
    await expect(page.getByTestId('file-name')).toHaveText('no-metadata.safetensors');
    const report = await download(page, /report/i);
    expect(report).not.toContain(TOKEN);
    expect(consoleText.filter((line) => line.includes(TOKEN))).toEqual([]);
    expect(watch.errors.filter((error) => !/Failed to load resource/.test(error))).toEqual([]);
  });

  for (const [label, url, scheme] of [
    ['file:', 'file:///etc/passwd', 'file'],
    ['data:', 'data:application/octet-stream;base64,AAAA', 'data'],
    ['javascript:', 'JavaScript:alert(document.domain)', 'javascript'],
    ['blob:', `blob:${APP_ORIGIN}/0e3c0e2a-0000-4000-8000-000000000000`, 'blob'],
    ['ftp:', 'ftp://127.0.0.1/model.safetensors', 'ftp'],
  ] as const) {
    test(`a share link with a ${label} URL is refused with a message and loads nothing`, async ({ page }) => {
      const watch = watchPage(page);
      const requests: string[] = [];
      page.context().on('request', (request) => requests.push(request.url()));
      await openApp(page, `?v=1&url=${encodeURIComponent(url)}`);
      await expect(page.getByText(`Ignored "url" in the link: the ${scheme}: scheme is not allowed`)).toBeVisible();
      await expect(page.getByText('What is inside that model file?')).toBeVisible();
      await expect(page.getByRole('progressbar')).toHaveCount(0);
      expect(requests.filter((request) => !request.startsWith(APP_ORIGIN))).toEqual([]);
      watch.expectClean();
    });
  }
});
