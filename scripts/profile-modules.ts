/**
 * Where a thread's CPU went, by source module: self time per `src/…` file of the app, summed over CPU profiles
 * (`.cpuprofile`, e.g. the worker profiles `BENCH_PROFILE_DIR=dir` makes bench-remote.ts write) and divided by their
 * count. The module of a sample is read from the comments Vite's unminified bundle puts before each module
 * (`// src/core/parse/header-scanner.ts`), so profile a build made with `--minify false`:
 *
 *   npx vite build --minify false --outDir /tmp/dist-nomin
 *   BENCH_DIST=/tmp/dist-nomin BENCH_PROFILE_DIR=/tmp/prof BENCH_REMOTE_PART=shards npx tsx scripts/bench-remote.ts
 *   npx tsx scripts/profile-modules.ts /tmp/dist-nomin/assets/parser.worker-*.js /tmp/prof/worker-0-h2-*.cpuprofile
 *
 * `--callers src/core/shards/byte-table.ts` instead splits that module's self time by the first caller outside it
 * and the function that ran. Prints figures; asserts nothing. Profiles carry the profiler's own overhead, so compare
 * modules within one set of profiles, not against timings taken without it.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Rows printed per table. */
const PRINTED_ROWS = 40;

/** The module of each line of an unminified bundle, from the `// src/…` comments before each module. */
function modulesByLine(bundlePath: string): string[] {
  const lines = readFileSync(bundlePath, 'utf8').split('\n');
  const modules: string[] = [];
  let current = '(bundle prelude)';
  lines.forEach((line, at) => {
    const start = /^\/\/ ((?:src|node_modules)\/\S+)/.exec(line);
    if (start) {
      current = start[1];
    }
    modules[at] = current;
  });
  return modules;
}

function main(): void {
  const args = process.argv.slice(2);
  const callersAt = args.indexOf('--callers');
  const callersOf = callersAt >= 0 ? args[callersAt + 1] : null;
  const [bundle, ...profiles] =
    callersAt >= 0 ? args.filter((_, at) => at !== callersAt && at !== callersAt + 1) : args;
  if (!bundle || profiles.length === 0) {
    throw new Error('usage: profile-modules.ts <unminified bundle.js> <profile.cpuprofile> … [--callers <src/…>]');
  }
  const bundleName = bundle.split('/').pop() as string;
  const moduleAt = modulesByLine(bundle);
  const totals = new Map<string, number>();
  let busy = 0;
  for (const file of profiles) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parentOf = new Map<number, number>();
    for (const node of profile.nodes) {
      for (const child of node.children ?? []) {
        parentOf.set(child, node.id);
      }
    }
    const moduleOf = (node: ProfileNode): string =>
      node.callFrame.url.endsWith(bundleName)
        ? (moduleAt[node.callFrame.lineNumber] ?? '(unknown line)')
        : `(native) ${node.callFrame.functionName || '(anonymous)'}`;
    profile.samples.forEach((id, at) => {
      // A sample's time is the gap to the next one.
      const ms = (profile.timeDeltas[at + 1] ?? 0) / 1000;
      const node = byId.get(id) as ProfileNode;
      if (node.callFrame.functionName === '(idle)') {
        return;
      }
      busy += ms;
      const module = moduleOf(node);
      if (callersOf === null) {
        totals.set(module, (totals.get(module) ?? 0) + ms);
        return;
      }
      if (module !== callersOf) {
        return;
      }
      let caller: number | undefined = node.id;
      while (caller !== undefined && moduleOf(byId.get(caller) as ProfileNode) === callersOf) {
        caller = parentOf.get(caller);
      }
      const outer = caller === undefined ? null : (byId.get(caller) as ProfileNode);
      const from = outer === null ? '(top)' : `${outer.callFrame.functionName || '(anonymous)'} [${moduleOf(outer)}]`;
      const key = `${from} → ${node.callFrame.functionName || '(anonymous)'}`;
      totals.set(key, (totals.get(key) ?? 0) + ms);
    });
  }
  const perProfile = (ms: number) => (ms / profiles.length).toFixed(1).padStart(8);
  console.log(`${profiles.length} profile(s); busy ${perProfile(busy).trim()} ms per profile (idle left out)`);
  for (const [key, ms] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, PRINTED_ROWS)) {
    console.log(`${perProfile(ms)} ms  ${key}`);
  }
}

main();
