/**
 * CI fuzzing (issue #7): at least CI_FUZZ_CASES generated hostile files go through loadHeader over in-memory
 * readers (local, remote, remote with unknown size) and the worker's post-parse pipeline. Every one must end in
 * bounded time with a well-formed result and findings, or a typed SourceError; see check-input.ts for the oracle.
 * `npm run fuzz` runs the same properties for longer and saves failures to ./regressions, replayed below.
 * Set FUZZ_SEED to replay a CI failure (fast-check prints the seed and path).
 */
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FUZZ_PROPERTIES } from './arbitraries';
import { checkInput } from './check-input';

/** Issue #7 asks CI for at least this many fuzz cases per run. */
const CI_FUZZ_CASES = 10_000;

const REGRESSIONS_DIR = join(fileURLToPath(new URL('.', import.meta.url)), 'regressions');
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort().join();

describe('fuzz: hostile files never crash, hang or escape the typed results', () => {
  afterAll(() => {
    // Thousands of `__proto__`, `constructor` and `toString` names and keys went through every stage.
    expect(Object.getOwnPropertyNames(Object.prototype).sort().join()).toBe(prototypeBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it(`runs at least ${CI_FUZZ_CASES} cases`, () => {
    expect(FUZZ_PROPERTIES.reduce((sum, property) => sum + property.ciRuns, 0)).toBeGreaterThanOrEqual(CI_FUZZ_CASES);
  });

  for (const property of FUZZ_PROPERTIES) {
    it(property.name, async () => {
      await fc.assert(
        fc.asyncProperty(property.arbitrary, async (input) => {
          const problem = await checkInput(input);
          expect(problem, `input (${input.bytes.length} bytes)`).toBeNull();
        }),
        { numRuns: property.ciRuns, seed },
      );
    });
  }
});

describe('fuzz regressions: every saved failing input stays fixed', () => {
  const files = readdirSync(REGRESSIONS_DIR).filter((name) => name.endsWith('.bin'));

  it('has the saved inputs to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const name of files) {
    it(name, async () => {
      const bytes = new Uint8Array(readFileSync(join(REGRESSIONS_DIR, name)));
      for (const allowOversizedHeader of [false, true]) {
        expect(await checkInput({ bytes, allowOversizedHeader })).toBeNull();
      }
    });
  }
});
