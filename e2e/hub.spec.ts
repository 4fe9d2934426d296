/**
 * The Hub as it really answers: huggingface.co's resolve/ redirects (302) to a second origin (the Xet/LFS bridge)
 * with a presigned query, and that origin's CORS allows `*` and exposes Content-Range but does not allow `Range` in
 * a preflight. Chromium is launched with both host names mapped to local HTTPS servers (src/testing/servers/hub-pair.ts),
 * so the app runs its real Hub code paths (token policy, https, cross-origin redirect) and nothing leaves the host.
 */
import { chromium, expect, test, type Browser, type Page } from '@playwright/test';
import {
  BRIDGE_HOST,
  HUB_PAIR_TOKEN,
  startHubPair,
  type HubPair,
  type PairLogEntry,
} from '../src/testing/servers/hub-pair';
import { CHROMIUM_ARGS } from '../scripts/find-chromium.mjs';
import { APP_ORIGIN, FIXTURES_DIR, uniqueTag, watchPage } from './helpers';

let pair: HubPair;
let browser: Browser;

test.beforeAll(async () => {
  pair = await startHubPair({ root: FIXTURES_DIR });
  browser = await chromium.launch({
    executablePath: process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE || undefined,
    args: [...CHROMIUM_ARGS, `--host-resolver-rules=${pair.hostResolverRules}`],
  });
});

test.afterAll(async () => {
  await browser?.close();
  await pair?.close();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, baseURL: `${APP_ORIGIN}/` });
  const page = await context.newPage();
  await page.goto('./');
  await expect(page.getByRole('heading', { name: 'Safetensors Lens' })).toBeVisible();
  return page;
}

async function openUrl(page: Page, url: string): Promise<void> {
  await page.getByRole('textbox', { name: 'URL of a model file' }).fill(url);
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}

/** A repo path unique to this test, so its log entries are its own. */
function repo(kind: string, testName: string): string {
  return `${uniqueTag(testName)}/${kind}`;
}

function entriesOf(repoPath: string): PairLogEntry[] {
  const org = repoPath.split('/')[0];
  return pair.log.filter((entry) => entry.server === 'bridge' || entry.path.includes(org));
}

/** Bridge entries that belong to this test: the bridge path has no repo name, so match by time window instead. */
function bridgeEntriesSince(start: number): PairLogEntry[] {
  return pair.log.slice(start).filter((entry) => entry.server === 'bridge');
}

function expectNoPreflightAndOnlySafelistedRanges(entries: PairLogEntry[]): void {
  expect(entries.length).toBeGreaterThan(0);
  for (const entry of entries) {
    expect(entry.method, `${entry.method} ${entry.path}`).toBe('GET');
    expect(entry.range).toMatch(/^bytes=\d+-\d+$/);
    expect(entry.authorization).toBeNull();
    expect(entry.headerNames).not.toContain('if-range');
    expect(entry.headerNames.filter((name) => name.startsWith('x-'))).toEqual([]);
  }
}

test.describe('the Hub as it really answers', () => {
  test('a public LFS file: 302 to the bridge, no preflight there, only bytes=a-b', async () => {
    const page = await newPage();
    const watch = watchPage(page);
    const name = repo('public-model', 'public');
    const start = pair.log.length;
    await openUrl(page, `https://huggingface.co/${name}/resolve/main/clean.safetensors`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    const hubEntries = entriesOf(name).filter((entry) => entry.server === 'hub');
    expect(hubEntries.some((entry) => entry.status === 302)).toBe(true);
    // No token, no custom header: not even huggingface.co sees a preflight.
    expect(pair.log.slice(start).filter((entry) => entry.method === 'OPTIONS')).toEqual([]);
    expectNoPreflightAndOnlySafelistedRanges(bridgeEntriesSince(start));
    watch.expectClean();
    await page.context().close();
  });

  test('a branch link shows the commit it resolved to and offers a link pinned to it', async () => {
    const page = await newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: APP_ORIGIN });
    const watch = watchPage(page);
    const name = repo('pinned-model', 'pinned');
    const [org, repoName] = name.split('/');
    const sha = pair.commitOf(org, repoName);
    await openUrl(page, `https://huggingface.co/${name}/resolve/main/clean.safetensors`);
    await expect(page.getByTestId('resolved-commit')).toHaveText(`main is commit ${sha.slice(0, 7)}`);
    // The file's own answer came through a cross-origin 302 (unreadable X-Repo-Commit): one revision lookup.
    const lookups = entriesOf(name).filter((entry) => entry.path.startsWith(`/api/models/${name}/revision/main`));
    expect(lookups).toHaveLength(1);
    await page.getByTestId('copy-pinned-link').click();
    const link = await page.evaluate(() => navigator.clipboard.readText());
    const pinned = `https://huggingface.co/${name}/resolve/${sha}/clean.safetensors`;
    expect(new URL(link).searchParams.get('url')).toBe(pinned);
    await page.goto(link);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    await expect(page.getByTestId('normalized-url')).toHaveText(pinned);
    // Already pinned: nothing more to resolve, so no lookup and no "is commit" line.
    await expect(page.getByTestId('resolved-commit')).toHaveCount(0);
    expect(entriesOf(name).filter((entry) => entry.path.includes('/revision/'))).toHaveLength(1);
    watch.expectClean();
    await page.context().close();
  });

  test('a gated repo: refused without a token; with one, the token reaches only huggingface.co', async () => {
    const page = await newPage();
    const watch = watchPage(page);
    const name = repo('gated-model', 'gated');
    await openUrl(page, `https://huggingface.co/${name}/resolve/main/clean.safetensors`);
    await expect(page.getByRole('alert')).toContainText(/401/);
    const start = pair.log.length;
    await page.getByRole('button', { name: /Token/ }).click();
    await page.getByPlaceholder('hf_…').fill(HUB_PAIR_TOKEN);
    await openUrl(page, `https://huggingface.co/${name}/resolve/main/clean.safetensors`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    const since = pair.log.slice(start);
    const hubGets = since.filter((entry) => entry.server === 'hub' && entry.method === 'GET');
    expect(hubGets.length).toBeGreaterThan(0);
    expect(hubGets.every((entry) => entry.authorization === `Bearer ${HUB_PAIR_TOKEN}`)).toBe(true);
    // The Authorization header is what makes huggingface.co preflight; the bridge never sees either.
    expect(since.filter((entry) => entry.method === 'OPTIONS').every((entry) => entry.server === 'hub')).toBe(true);
    expectNoPreflightAndOnlySafelistedRanges(bridgeEntriesSince(start));
    expect(page.url()).not.toContain(HUB_PAIR_TOKEN);
    watch.expectClean([/Failed to load resource/]);
    await page.context().close();
  });

  test('an expired presigned link (403 from the bridge) is re-resolved once and the file loads', async () => {
    const page = await newPage();
    const watch = watchPage(page);
    const name = repo('expired-model', 'expired');
    const start = pair.log.length;
    await openUrl(page, `https://huggingface.co/${name}/resolve/main/clean.safetensors`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    const bridge = bridgeEntriesSince(start);
    expect(bridge.map((entry) => entry.status)).toContain(403);
    expect(bridge.at(-1)?.status).toBe(206);
    expect(entriesOf(name).filter((entry) => entry.server === 'hub' && entry.status === 302).length).toBe(
      bridge.length,
    );
    expectNoPreflightAndOnlySafelistedRanges(bridge);
    watch.expectClean([/Failed to load resource/]);
    await page.context().close();
  });

  test('the bridge answering 416 for a valid range, then the file: it loads', async () => {
    const page = await newPage();
    const watch = watchPage(page);
    const start = pair.log.length;
    await openUrl(page, `https://huggingface.co/${repo('flaky416-model', 'flaky416')}/resolve/main/clean.safetensors`);
    await expect(page.getByTestId('file-name')).toHaveText('clean.safetensors');
    const bridge = bridgeEntriesSince(start);
    expect(bridge[0].status).toBe(416);
    expectNoPreflightAndOnlySafelistedRanges(bridge);
    watch.expectClean([/Failed to load resource/]);
    await page.context().close();
  });

  test('a truncated 206 from the bridge resumes from the last byte and the header parses', async () => {
    const page = await newPage();
    const watch = watchPage(page);
    const start = pair.log.length;
    await openUrl(
      page,
      `https://huggingface.co/${repo('truncated-model', 'truncated')}/resolve/main/medium-header.safetensors`,
    );
    await expect(page.getByTestId('file-name')).toHaveText('medium-header.safetensors');
    const bridge = bridgeEntriesSince(start);
    expect(bridge.length).toBeGreaterThanOrEqual(2);
    const first = /^bytes=(\d+)-/.exec(bridge[0].range ?? '');
    const resumed = /^bytes=(\d+)-/.exec(bridge[1].range ?? '');
    expect(Number(resumed?.[1])).toBe(Number(first?.[1]) + bridge[0].bytesSent);
    expectNoPreflightAndOnlySafelistedRanges(bridge);
    watch.expectClean([/Failed to load resource|ERR_/]);
    await page.context().close();
  });

  test('the bridge host is never given the token or a custom header, even for a sharded model', async () => {
    const page = await newPage();
    const watch = watchPage(page);
    const name = repo('gated-sharded', 'sharded');
    const start = pair.log.length;
    await page.getByRole('button', { name: /Token/ }).click();
    await page.getByPlaceholder('hf_…').fill(HUB_PAIR_TOKEN);
    await openUrl(page, `https://huggingface.co/${name}/resolve/main/shards-clean/model.safetensors.index.json`);
    await expect(page.getByTestId('shard-count')).toBeVisible({ timeout: 30_000 });
    const since = pair.log.slice(start);
    expect(since.some((entry) => entry.server === 'bridge')).toBe(true);
    expect(
      since.filter((entry) => entry.server === 'bridge').every((entry) => entry.path.startsWith('/xet-bridge-us/')),
    ).toBe(true);
    expectNoPreflightAndOnlySafelistedRanges(bridgeEntriesSince(start));
    expect(BRIDGE_HOST).toBe('cas-bridge.xethub.hf.co');
    // The index is answered by huggingface.co itself, with a readable X-Repo-Commit: no revision lookup needed.
    const [org, repoName] = name.split('/');
    await expect(page.getByTestId('resolved-commit')).toHaveText(
      `main is commit ${pair.commitOf(org, repoName).slice(0, 7)}`,
    );
    expect(since.some((entry) => entry.path.includes('/revision/'))).toBe(false);
    watch.expectClean([/Failed to load resource/]);
    await page.context().close();
  });
});
