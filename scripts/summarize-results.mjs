// Sums test results from vitest's and Playwright's JSON reporters.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function readJson(path) {
  try {
    return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null;
  } catch {
    return null;
  }
}

function playwrightCounts(report) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const visit = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const status = test.status; // expected | unexpected | flaky | skipped
        if (status === 'expected' || status === 'flaky') {
          counts.passed++;
        } else if (status === 'skipped') {
          counts.skipped++;
        } else {
          counts.failed++;
        }
      }
    }
    for (const child of suite.suites ?? []) {
      visit(child);
    }
  };
  for (const suite of report?.suites ?? []) {
    visit(suite);
  }
  // Errors outside tests (a crashed web server, a syntax error in a spec) fail the run without failing a test.
  counts.failed += (report?.errors ?? []).length;
  return counts;
}

export function summarize(dir) {
  const vitest = readJson(join(dir, 'vitest.json'));
  const playwright = readJson(join(dir, 'playwright.json'));
  const unit = {
    passed: vitest?.numPassedTests ?? 0,
    failed: (vitest?.numFailedTests ?? 0) + (vitest && vitest.success === false && !vitest.numFailedTests ? 1 : 0),
    skipped: (vitest?.numPendingTests ?? 0) + (vitest?.numTodoTests ?? 0),
  };
  const e2e = playwrightCounts(playwright);
  return {
    passed: unit.passed + e2e.passed,
    failed: unit.failed + e2e.failed,
    skipped: unit.skipped + e2e.skipped,
    unit,
    e2e,
  };
}

/**
 * Prints the counts. CI reads the last line as exactly `N passed, N failed`: skipped tests (a dependency project that
 * failed, a suite whose fixtures are absent) are reported on the line before it.
 */
export function printSummary({ passed, failed, skipped }) {
  if (skipped) {
    console.log(`${skipped} skipped`);
  }
  console.log(`${passed} passed, ${failed} failed`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printSummary(summarize(process.argv[2] ?? '.ci-results'));
}
