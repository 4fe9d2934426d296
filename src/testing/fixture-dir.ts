/**
 * Test-only helpers (imported by *.test.ts, never by the app): a temporary fixtures folder for the test servers,
 * with deterministic file contents so any byte range can be checked against `patternBytes`.
 */
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Size of `small.bin`: bigger than the default first read, so two-request paths are exercised. */
export const SMALL_FILE_BYTES = 300_000;

/** Size of the sparse `huge.bin`: 5 GiB, so a client that downloads it would be obvious (and slow). */
export const HUGE_FILE_BYTES = 5 * 1024 * 1024 * 1024;

/** Byte at `offset` of every pattern file: position-dependent, so a shifted or repeated range is caught. */
function patternByte(offset: number): number {
  return (offset * 31 + Math.floor(offset / 251)) & 0xff;
}

export function patternBytes(offset: number, length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    bytes[i] = patternByte(offset + i);
  }
  return bytes;
}

export interface FixtureDir {
  root: string;
  write(name: string, bytes: Uint8Array): Promise<void>;
  /** Creates a sparse file (no disk blocks) of `size` bytes of zeros. */
  sparse(name: string, size: number): Promise<void>;
  remove(): Promise<void>;
}

/** A fresh folder in os.tmpdir() with `small.bin` (pattern), `tiny.bin` (16 pattern bytes) and `empty.bin`. */
export async function createFixtureDir(): Promise<FixtureDir> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'st-lens-io-'));
  const dir: FixtureDir = {
    root,
    write: (name, bytes) => writeFile(path.join(root, name), bytes),
    sparse: async (name, size) => {
      const file = path.join(root, name);
      await writeFile(file, new Uint8Array(0));
      await truncate(file, size);
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
  await dir.write('small.bin', patternBytes(0, SMALL_FILE_BYTES));
  await dir.write('tiny.bin', patternBytes(0, 16));
  await dir.write('empty.bin', new Uint8Array(0));
  return dir;
}

/** A safetensors-shaped file: 8-byte little-endian N, N header bytes (pattern), then `tail` data bytes. */
export function headerFile(headerLength: number, tail: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(8 + headerLength + tail);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(headerLength), true);
  bytes.set(patternBytes(8, headerLength + tail), 8);
  return bytes;
}

/**
 * Index of the first differing byte, or -1 when equal (length included). Vitest's deep equality walks typed
 * arrays element by element and is too slow for the hundreds of 128 KiB comparisons the edge tests make.
 */
export function firstDifference(actual: Uint8Array, expected: Uint8Array): number {
  const length = Math.min(actual.length, expected.length);
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength);
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  if (actual.length === expected.length && a.equals(b)) {
    return -1;
  }
  for (let i = 0; i < length; i++) {
    if (actual[i] !== expected[i]) {
      return i;
    }
  }
  return length;
}
