/**
 * The long fuzz campaign (issue #7): the CI fuzz properties (src/testing/fuzz/arbitraries.ts) for as many cases or
 * seconds as asked. Any failing input — a crash, an untyped error, a malformed result, too many bytes read, or a
 * case that hangs — is saved to src/testing/fuzz/regressions/<hash>.bin, which `npx vitest run src/testing/fuzz` replays.
 *
 *   npm run fuzz -- [--cases N] [--seconds S] [--seed X]
 *
 * The campaign runs in a worker thread so a hang can be caught: the worker copies each input into shared memory
 * before checking it, and the main thread saves that input and stops the worker when a case runs for HANG_MS.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { FUZZ_PROPERTIES } from '../src/testing/fuzz/arbitraries';
import { checkInput, type FuzzInput } from '../src/testing/fuzz/check-input';

export const REGRESSIONS_DIR = join(
  fileURLToPath(new URL('.', import.meta.url)),
  '..',
  'src',
  'testing',
  'fuzz',
  'regressions',
);

/** Defaults: long enough to find what CI's 20,000 cases miss, short enough to run before a commit. */
const DEFAULT_CASES = 1_000_000;
const DEFAULT_SECONDS = 600;

/** A single case silent for this long is a hang (a normal case takes milliseconds; CI allows 3 s). */
const HANG_MS = 30_000;

/** Cases per fast-check run; each run gets its own seed, printed on failure. */
const BATCH = 2_000;

/** Inputs up to this size are tracked for hang reports (generated inputs are at most a few hundred KB). */
const MAX_TRACKED_INPUT_BYTES = 16 * 1024 * 1024;

/** Shared-memory layout: [cases started, tracked input length], then the input bytes. */
const HEADER_INTS = 2;

interface Options {
  cases: number;
  seconds: number;
  seed: number;
}

type WorkerMessage =
  | { type: 'progress'; cases: number }
  | { type: 'failure'; property: string; seed: number; bytes: Uint8Array; problem: string }
  | { type: 'done'; cases: number };

export function regressionPath(bytes: Uint8Array): string {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return join(REGRESSIONS_DIR, `${hash}.bin`);
}

export function saveRegression(bytes: Uint8Array): string {
  mkdirSync(REGRESSIONS_DIR, { recursive: true });
  const path = regressionPath(bytes);
  writeFileSync(path, bytes);
  return path;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { cases: DEFAULT_CASES, seconds: DEFAULT_SECONDS, seed: Date.now() % 2 ** 31 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const value = Number(inline ?? argv[++i]);
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(`${flag} needs a non-negative number`);
    }
    if (flag === '--cases') {
      options.cases = Math.floor(value);
    } else if (flag === '--seconds') {
      options.seconds = value;
    } else if (flag === '--seed') {
      options.seed = Math.floor(value);
    } else {
      throw new Error(`Unknown option ${flag}. Usage: npm run fuzz -- [--cases N] [--seconds S] [--seed X]`);
    }
  }
  return options;
}

async function runWorker(options: Options, shared: SharedArrayBuffer): Promise<void> {
  const counters = new Int32Array(shared, 0, HEADER_INTS);
  const tracked = new Uint8Array(shared, HEADER_INTS * 4);
  const deadline = Date.now() + options.seconds * 1000;
  let cases = 0;
  let batch = 0;
  while (cases < options.cases && Date.now() < deadline) {
    for (const property of FUZZ_PROPERTIES) {
      const numRuns = Math.min(BATCH, options.cases - cases);
      if (numRuns <= 0 || Date.now() >= deadline) {
        break;
      }
      const seed = (options.seed + batch++) | 0;
      // A batch of a heavy property (the huge files) can outlast the campaign: the deadline interrupts it.
      const parameters: fc.Parameters<[FuzzInput]> = {
        numRuns,
        seed,
        plugins: [fc.interruptAfterTimeLimit(Math.max(1, deadline - Date.now()))],
      };
      const details = await fc.check(
        fc.asyncProperty(property.arbitrary, async (input: FuzzInput) => {
          const length = Math.min(input.bytes.length, MAX_TRACKED_INPUT_BYTES);
          tracked.set(input.bytes.subarray(0, length));
          Atomics.store(counters, 1, length);
          Atomics.add(counters, 0, 1);
          return (await checkInput(input)) === null;
        }),
        parameters,
      );
      cases += details.numRuns;
      if (details.failed && details.counterexample) {
        const [input] = details.counterexample;
        const problem = (await checkInput(input).catch((error: unknown) => `threw ${String(error)}`)) ?? 'flaky';
        post({ type: 'failure', property: property.name, seed, bytes: input.bytes, problem });
        return;
      }
      post({ type: 'progress', cases });
    }
  }
  post({ type: 'done', cases });
}

function post(message: WorkerMessage): void {
  parentPort?.postMessage(message);
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  console.log(
    `fuzz: up to ${options.cases.toLocaleString('en')} cases or ${options.seconds} s, seed ${options.seed} ` +
      `(${FUZZ_PROPERTIES.length} properties)`,
  );
  const shared = new SharedArrayBuffer(HEADER_INTS * 4 + MAX_TRACKED_INPUT_BYTES);
  const counters = new Int32Array(shared, 0, HEADER_INTS);
  const started = Date.now();
  // Node 20 does not hand tsx's loader to worker threads, so the worker registers it before importing this file.
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(bootstrap, { eval: true, workerData: { options, shared } });

  const exitCode = await new Promise<number>((resolve) => {
    let lastCount = 0;
    let lastChange = Date.now();
    let lastReport = 0;
    const watchdog = setInterval(() => {
      const count = Atomics.load(counters, 0);
      if (count !== lastCount) {
        lastCount = count;
        lastChange = Date.now();
        return;
      }
      if (Date.now() - lastChange > HANG_MS) {
        clearInterval(watchdog);
        const length = Atomics.load(counters, 1);
        const bytes = new Uint8Array(shared, HEADER_INTS * 4, length).slice();
        const path = saveRegression(bytes);
        console.error(`fuzz: a case ran for over ${HANG_MS / 1000} s (a hang). Input saved to ${path}`);
        void worker.terminate().then(() => resolve(1));
      }
    }, 1_000);
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'progress') {
        if (Date.now() - lastReport > 10_000) {
          lastReport = Date.now();
          const seconds = (Date.now() - started) / 1000;
          console.log(`fuzz: ${message.cases.toLocaleString('en')} cases in ${seconds.toFixed(0)} s, no failures`);
        }
        return;
      }
      clearInterval(watchdog);
      if (message.type === 'failure') {
        const path = saveRegression(message.bytes);
        console.error(`fuzz: FAILED in "${message.property}" (seed ${message.seed}): ${message.problem}`);
        console.error(`fuzz: input (${message.bytes.length} bytes) saved to ${path}`);
        resolve(1);
        return;
      }
      const seconds = (Date.now() - started) / 1000;
      console.log(`fuzz: ${message.cases.toLocaleString('en')} cases in ${seconds.toFixed(1)} s, no failures`);
      resolve(0);
    });
    worker.on('error', (error) => {
      clearInterval(watchdog);
      if (Atomics.load(counters, 0) === 0) {
        console.error(`fuzz: the worker failed to start: ${error.message}`);
        resolve(2);
        return;
      }
      const length = Atomics.load(counters, 1);
      const path = saveRegression(new Uint8Array(shared, HEADER_INTS * 4, length).slice());
      console.error(`fuzz: the worker died (${error.message}); the last input was saved to ${path}`);
      resolve(1);
    });
  });
  await worker.terminate();
  process.exit(exitCode);
}

const isEntry = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMainThread && isEntry) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  });
} else if (!isMainThread) {
  const data = workerData as { options: Options; shared: SharedArrayBuffer };
  runWorker(data.options, data.shared).catch((error: unknown) => {
    console.error(error);
    process.exit(3);
  });
}
