// Finds a Chromium for Playwright: CHROMIUM_PATH, then Debian's /usr/bin/chromium, then Playwright's own build.
// When none exists and we run as root with apt, installs Debian's chromium; otherwise says exactly what to run.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for every headless Chromium we start (tests, benchmark, screenshots). The network ones stop Chromium's own
 * background requests, which this machine's closed network refuses (and which no test should make anyway).
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

function playwrightOwn() {
  try {
    const result = spawnSync(
      process.execPath,
      ['-e', "process.stdout.write(require('playwright-core').chromium.executablePath())"],
      {
        encoding: 'utf8',
      },
    );
    const path = result.stdout.trim();
    return path && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

export function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (existsSync(fromEnv)) {
      return { path: fromEnv, source: 'CHROMIUM_PATH' };
    }
    console.warn(`CHROMIUM_PATH=${fromEnv} does not exist; looking elsewhere.`);
  }
  if (existsSync(DEBIAN_CHROMIUM)) {
    return { path: DEBIAN_CHROMIUM, source: 'debian' };
  }
  const own = playwrightOwn();
  return own ? { path: own, source: 'playwright' } : null;
}

export function ensureChromium() {
  const found = findChromium();
  if (found) {
    return found;
  }
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = existsSync('/usr/bin/apt-get');
  if (isRoot && hasApt) {
    console.log("No Chromium found: installing Debian's chromium with apt-get (needed for the end-to-end tests).");
    const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    const install =
      update.status === 0
        ? spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
            stdio: 'inherit',
            env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
          })
        : update;
    if (install.status === 0 && existsSync(DEBIAN_CHROMIUM)) {
      return { path: DEBIAN_CHROMIUM, source: 'debian' };
    }
  }
  console.error(
    [
      'No Chromium found for the end-to-end tests. Do one of:',
      '  sudo apt-get install -y chromium            # Debian/Ubuntu',
      "  npx playwright install chromium             # Playwright's own build (needs internet)",
      '  export CHROMIUM_PATH=/path/to/chrome        # any Chromium or Chrome you already have',
    ].join('\n'),
  );
  return null;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = ensureChromium();
  if (!found) {
    process.exit(1);
  }
  console.log(found.path);
}
