/** Page-object helpers shared by the e2e specs. */
import { expect, type Page } from '@playwright/test';
import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { E2E_PORTS } from './ports';
import { groupDigits } from '../src/core/number-format';

export const FIXTURES_DIR = join(process.cwd(), 'e2e', '.fixtures');
export const ORIGIN_A = `http://127.0.0.1:${E2E_PORTS.originA}`;
export const ORIGIN_B = `http://127.0.0.1:${E2E_PORTS.originB}`;
export const APP_ORIGIN = `http://127.0.0.1:${E2E_PORTS.app}`;

export function fixturePath(name: string): string {
  return join(FIXTURES_DIR, name);
}

/** N from the 8-byte little-endian prefix of a fixture on disk. */
export function headerLengthOf(name: string): number {
  // Read only the prefix: fixtures can be multi-TB sparse files.
  const prefix = Buffer.alloc(8);
  const fd = openSync(fixturePath(name), 'r');
  try {
    readSync(fd, prefix, 0, 8, 0);
  } finally {
    closeSync(fd);
  }
  return Number(prefix.readBigUInt64LE(0));
}

/**
 * Collects uncaught page errors and console errors; `expectClean()` fails the test if any appeared, so no test
 * passes with a console error.
 */
export function watchPage(page: Page): {
  errors: string[];
  requests: string[];
  /** `expected`: messages the test provokes on purpose (Chromium logs every 404 a fetch receives). */
  expectClean: (expected?: RegExp[]) => void;
} {
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') {
      errors.push(`console.error: ${message.text()}`);
    }
  });
  page.on('request', (request) => requests.push(request.url()));
  return {
    errors,
    requests,
    expectClean: (expected = []) =>
      expect(
        errors.filter((error) => !expected.some((pattern) => pattern.test(error))),
        'page errors and console errors',
      ).toEqual([]),
  };
}

export async function openApp(page: Page, query = ''): Promise<void> {
  await page.goto(`./${query}`);
  await expect(page.getByRole('heading', { name: 'Safetensors Lens' })).toBeVisible();
}

export async function openLocalFile(page: Page, name: string): Promise<void> {
  await page.getByTestId('file-input').first().setInputFiles(fixturePath(name));
}

/** Drops a file on the page the way a user's drag and drop does (a DataTransfer carrying a File). */
export async function dropFile(page: Page, name: string, bytes: Buffer): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    ({ name, data }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data)], name));
      return transfer;
    },
    { name, data: Array.from(bytes) },
  );
  await page.dispatchEvent('body', 'dragenter', { dataTransfer });
  await page.dispatchEvent('body', 'drop', { dataTransfer });
}

export async function statValue(page: Page, testId: string): Promise<number> {
  const value = await page.getByTestId(testId).getAttribute('data-value');
  return Number(value);
}

/** One request as the loopback test servers logged it (src/testing/servers/range-server.ts). */
export interface ServerLogEntry {
  origin: 'A' | 'B';
  method: string;
  path: string;
  range: string | null;
  authorization: string | null;
  status: number | null;
  bytesSent: number;
  abortedEarly: boolean;
  startedAt: number;
  closedAt: number | null;
}

/** A tag unique to one test, put in its URLs so parallel tests read only their own server log entries. */
export function uniqueTag(name: string): string {
  return `${encodeURIComponent(name)}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Requests both test origins logged (preflights left out) whose path contains `match`, or that pass it. */
export async function serverLog(match: string | ((entry: ServerLogEntry) => boolean)): Promise<ServerLogEntry[]> {
  const response = await fetch(`${ORIGIN_A}/__log`);
  const body = (await response.json()) as { entries: ServerLogEntry[] };
  const test = typeof match === 'string' ? (entry: ServerLogEntry) => entry.path.includes(match) : match;
  return body.entries.filter((entry) => entry.method !== 'OPTIONS' && test(entry));
}

/** The JSON report the "Download report" button saves. */
export async function downloadReport<T = Record<string, unknown>>(page: Page): Promise<T> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download report' }).click(),
  ]);
  return JSON.parse(readFileSync(await download.path(), 'utf8')) as T;
}

/** Opens `tensor`'s details from the Tensors grid and clicks "Read values". */
export async function readValuesOf(page: Page, tensor: string): Promise<void> {
  await page.getByRole('grid', { name: 'Tensors' }).getByText(tensor, { exact: true }).click();
  await page.getByRole('button', { name: 'Read values' }).click();
}

/**
 * A row's label as the value views write it, computed apart from them: a number for a matrix, the index per leading
 * dimension otherwise (numpy's unravel_index over every dimension of `shape` but the last).
 */
export function numpyRowLabel(shape: readonly number[]): (row: number) => string {
  const dims = shape.slice(0, -1);
  if (dims.length === 1) {
    return groupDigits;
  }
  return (row) => {
    const at: number[] = [];
    for (let d = dims.length - 1; d >= 0; d--) {
      at.unshift(row % dims[d]);
      row = Math.floor(row / dims[d]);
    }
    return `[${at.join(', ')}]`;
  };
}

/** Opens `first` of `dir`, compares it with `second` in the Compare tab and clicks "Compare values". */
export async function compareValuesOfFiles(page: Page, dir: string, first: string, second: string): Promise<void> {
  await page.getByTestId('file-input').first().setInputFiles(join(dir, first));
  await expect(page.getByTestId('file-name')).toHaveText(first);
  await page.getByRole('tab', { name: 'Compare' }).click();
  await page.getByTestId('compare-file-input').setInputFiles(join(dir, second));
  await expect(page.getByTestId('compare-b-name')).toHaveText(second);
  await page.getByRole('button', { name: 'Compare values' }).click();
}

/**
 * Opens `file` of `dir` and starts "Scan all values": from disk, or with `remote` copied into that folder of the
 * range server and opened by its URL, the download confirmed.
 */
export async function scanFixture(page: Page, dir: string, file: string, remote: string | null): Promise<void> {
  if (remote !== null) {
    mkdirSync(join(FIXTURES_DIR, remote), { recursive: true });
    copyFileSync(join(dir, file), join(FIXTURES_DIR, remote, file));
    const url = `${ORIGIN_A}/range/${remote}/${file}?t=${uniqueTag(remote)}`;
    await openApp(page, `?v=1&url=${encodeURIComponent(url)}`);
    await page.getByRole('button', { name: 'Scan all values' }).click();
    await page.getByRole('button', { name: /^Download .* and scan$/ }).click();
  } else {
    await openApp(page);
    await page.getByTestId('file-input').first().setInputFiles(join(dir, file));
    await expect(page.getByTestId('file-name')).toHaveText(file);
    await page.getByRole('button', { name: 'Scan all values' }).click();
  }
}

/** `text` with the characters a regular expression reads specially escaped, to match it literally. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A safetensors header as a library saved it (fixtures/transformers-archs, fixtures/peft-adapters). */
type SavedHeader = Record<string, { data_offsets?: [number, number] } | Record<string, string>>;

/** The safetensors file the header describes: the header as saved, zeros for the data (its values are not read). */
function fileFromSavedHeader(header: SavedHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const padded = Buffer.concat([json, Buffer.alloc((8 - (json.length % 8)) % 8, 0x20)]);
  const end = Math.max(
    0,
    ...Object.values(header).map((entry) => (entry.data_offsets as [number, number] | undefined)?.[1] ?? 0),
  );
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(padded.length));
  return Buffer.concat([length, padded, Buffer.alloc(end)]);
}

/** How each saved-header fixture set is dropped: the weights file and the JSON saved beside it (its record key). */
const SAVED_FIXTURE_FILES = {
  'transformers-archs': { weights: 'model.safetensors', sidecar: 'config.json', key: 'config' },
  'peft-adapters': { weights: 'adapter_model.safetensors', sidecar: 'adapter_config.json', key: 'adapterConfig' },
} as const;

/** Drops fixtures/<set>/<name>.json as the library saved it: the rebuilt safetensors file and its config beside it. */
export async function dropSavedFixture(page: Page, set: keyof typeof SAVED_FIXTURE_FILES, name: string): Promise<void> {
  const files = SAVED_FIXTURE_FILES[set];
  const record = JSON.parse(readFileSync(join(process.cwd(), 'fixtures', set, `${name}.json`), 'utf8')) as Record<
    string,
    unknown
  >;
  await page
    .getByTestId('file-input')
    .first()
    .setInputFiles([
      {
        name: files.weights,
        mimeType: 'application/octet-stream',
        buffer: fileFromSavedHeader(record.header as SavedHeader),
      },
      { name: files.sidecar, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(record[files.key])) },
    ]);
}
