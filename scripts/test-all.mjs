// `npm test`: every check in order — typecheck, lint, format, unit tests, build, end-to-end — and a closing
// `N passed, N failed` line summed over vitest and Playwright (read from their JSON reporters).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { printSummary, summarize } from './summarize-results.mjs';

const RESULTS_DIR = '.ci-results';
rmSync(RESULTS_DIR, { recursive: true, force: true });
mkdirSync(RESULTS_DIR, { recursive: true });

const steps = [
  ['fixtures', ['npx', 'tsx', 'scripts/fixtures.ts']],
  ['typecheck', ['npm', 'run', 'typecheck']],
  ['lint', ['npm', 'run', 'lint']],
  ['format', ['npm', 'run', 'format:check']],
  [
    'unit',
    ['npx', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${RESULTS_DIR}/vitest.json`],
  ],
  ['build', ['npm', 'run', 'build']],
  ['e2e', ['node', 'scripts/run-e2e.mjs']],
];

const failedSteps = [];
for (const [name, [command, ...args]] of steps) {
  console.log(`\n=== ${name}: ${[command, ...args].join(' ')}`);
  const started = Date.now();
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT: `${RESULTS_DIR}/playwright.json` },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    failedSteps.push(name);
    console.log(`=== ${name} FAILED (${seconds} s)`);
    // The build feeds e2e; without it e2e would only repeat the failure.
    if (name === 'build') {
      break;
    }
  } else {
    console.log(`=== ${name} ok (${seconds} s)`);
  }
}

const counts = summarize(RESULTS_DIR);
if (failedSteps.length > 0) {
  console.log(`\nFailed steps: ${failedSteps.join(', ')}`);
}
console.log('');
printSummary(counts);
process.exit(failedSteps.length > 0 || counts.failed > 0 ? 1 : 0);
