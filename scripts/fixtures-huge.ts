/**
 * Issue 16's huge-header fixtures (src/testing/huge-fixtures.ts), streamed to disk piece by piece with sparse
 * data regions. Registered in fixtures-extra.ts; `npx tsx scripts/fixtures-huge.ts` writes only these.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lengthPrefix } from '../src/testing/build-safetensors';
import { HUGE_FIXTURES, type HugeFixture } from '../src/testing/huge-fixtures';

/** Pieces are gathered into writes of about this many characters. */
const WRITE_CHARS = 1 << 20;

export function writeHugeFixture(path: string, fixture: HugeFixture): void {
  mkdirSync(dirname(path), { recursive: true });
  const encoder = new TextEncoder();
  const fd = openSync(path, 'w');
  try {
    let headerLength = 0;
    writeSync(fd, new Uint8Array(8));
    let pending = '';
    const flush = () => {
      const bytes = encoder.encode(pending);
      writeSync(fd, bytes);
      headerLength += bytes.length;
      pending = '';
    };
    for (const piece of fixture.headerPieces()) {
      pending += piece;
      if (pending.length >= WRITE_CHARS) {
        flush();
      }
    }
    flush();
    writeSync(fd, lengthPrefix(headerLength), 0, 8, 0);
    ftruncateSync(fd, 8 + headerLength + fixture.dataLength);
  } finally {
    closeSync(fd);
  }
}

export function writeHugeFixtures(dir: string): void {
  for (const fixture of HUGE_FIXTURES) {
    writeHugeFixture(join(dir, fixture.file), fixture);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'e2e', '.fixtures');
  writeHugeFixtures(dir);
  console.log(`huge fixtures written to ${dir}`);
}
