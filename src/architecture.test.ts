/**
 * The pipeline's layering (docs/architecture.md), checked on the import statements of every source file:
 * - views, state and the app shell never reach into the worker or io/ (the store's slices may use the worker
 *   client, src/worker/client.ts, the one door to the worker);
 * - core/ imports nothing outside itself, so it stays pure and runs anywhere (worker, Node, tests); its tests may
 *   also use the test scaffolding in testing/;
 * - test scaffolding (testing/: builders, fakes, fuzz properties, the HTTP test servers; vitest, fast-check) is never
 *   imported by code that ships;
 * - unit tests and e2e specs share one set of test servers, in testing/servers/: nothing under src/ imports e2e/;
 *   e2e specs take from src/ only testing/ and core/ (a constant they assert on lives in core/limits.ts);
 * - recharts (half the app's script) is imported by the chart modules alone (lib/bars/Bars.tsx, lib/lines/Lines.tsx
 *   and their tick labels), and those only lazily, each by its own box, so the first screen never waits for it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return sourceFiles(full);
    }
    return /\.(ts|tsx)$/.test(entry.name) ? [full] : [];
  });
}

/** Every module a file imports or re-exports, as written. */
function specifiersOf(text: string): string[] {
  return [
    ...text.matchAll(/(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g),
    ...text.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1]);
}

/** Every relative module a file imports or re-exports (static and dynamic), resolved to a path under src/. */
function relativeImports(file: string, text: string): string[] {
  return specifiersOf(text)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) =>
      path
        .relative(SRC, path.resolve(path.dirname(file), specifier))
        .split(path.sep)
        .join('/'),
    );
}

interface Violation {
  file: string;
  imports: string;
}

function violations(rule: (file: string, target: string) => boolean): Violation[] {
  const found: Violation[] = [];
  for (const full of sourceFiles(SRC)) {
    const file = path.relative(SRC, full).split(path.sep).join('/');
    for (const target of relativeImports(full, readFileSync(full, 'utf8'))) {
      if (rule(file, target)) {
        found.push({ file, imports: target });
      }
    }
  }
  return found;
}

const under = (target: string, folder: string) => target === folder || target.startsWith(`${folder}/`);

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

describe('architecture', () => {
  it('finds the imports it checks (the checker itself works)', () => {
    const sample = `import { a } from '../worker/client';\nimport type { B } from "./b";\nexport { c } from '../io/x';\nconst d = await import('../core/y');\nimport '../app/styles/base.css';`;
    expect(relativeImports(path.join(SRC, 'state', 'z.ts'), sample)).toEqual([
      'worker/client',
      'state/b',
      'io/x',
      'app/styles/base.css',
      'core/y',
    ]);
  });

  it('views, state and the app shell never import the worker or io/ (only slices use the worker client)', () => {
    const found = violations((file, target) => {
      if (!['features', 'state', 'app'].some((folder) => under(file, folder))) {
        return false;
      }
      if (under(file, 'state') && target === 'worker/client') {
        return false;
      }
      return under(target, 'worker') || under(target, 'io');
    });
    expect(found).toEqual([]);
  });

  it('core/ imports nothing outside core/ (its tests may also use testing/)', () => {
    const found = violations(
      (file, target) => under(file, 'core') && !under(target, 'core') && !(isTest(file) && under(target, 'testing')),
    );
    expect(found).toEqual([]);
  });

  it('code that ships never imports test scaffolding', () => {
    const scaffolding = (file: string) => isTest(file) || under(file, 'testing') || file === 'test-setup.ts';
    const found: Violation[] = [];
    for (const full of sourceFiles(SRC)) {
      const file = path.relative(SRC, full).split(path.sep).join('/');
      if (scaffolding(file)) {
        continue;
      }
      const text = readFileSync(full, 'utf8');
      for (const specifier of specifiersOf(text)) {
        if (specifier === 'vitest' || specifier === 'fast-check' || specifier.startsWith('node:')) {
          found.push({ file, imports: specifier });
        }
      }
      for (const target of relativeImports(full, text)) {
        if (under(target, 'testing')) {
          found.push({ file, imports: target });
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('unit tests use the test servers in testing/servers/, never anything under e2e/', () => {
    expect(violations((_file, target) => under(target, '../e2e'))).toEqual([]);
  });

  it('e2e specs take from src/ only testing/ and core/ (they drive the app; never io/, the worker or views)', () => {
    const e2e = path.join(SRC, '..', 'e2e');
    const found: Violation[] = [];
    // Top level only: e2e/.fixtures holds hundreds of MB of generated files.
    const specs = readdirSync(e2e).filter((name) => name.endsWith('.ts'));
    for (const full of specs.map((name) => path.join(e2e, name))) {
      for (const target of relativeImports(full, readFileSync(full, 'utf8'))) {
        // Targets outside src/ (`../e2e/…` helpers, the Playwright config) start with `..`.
        const inSrc = !target.startsWith('..');
        if (inSrc && !under(target, 'testing') && !under(target, 'core')) {
          found.push({ file: path.relative(e2e, full), imports: target });
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('only the chart modules import recharts, and nothing else imports them statically', () => {
    const chartModules = ['lib/bars/Bars.tsx', 'lib/lines/Lines.tsx', 'lib/charts/recharts-ticks.tsx'];
    const found: Violation[] = [];
    for (const full of sourceFiles(SRC)) {
      const file = path.relative(SRC, full).split(path.sep).join('/');
      const text = readFileSync(full, 'utf8');
      const isChart = chartModules.includes(file);
      if (!isChart && specifiersOf(text).some((specifier) => specifier.startsWith('recharts'))) {
        found.push({ file, imports: 'recharts' });
      }
      const staticImports = [...text.matchAll(/(?:^|[\s;])import\s+(?!type\s)[^'"(]*?from\s*['"]([^'"]+)['"]/g)];
      for (const [, specifier] of staticImports) {
        if (!isChart && specifier.startsWith('.') && /(^|\/)(Bars|Lines|recharts-ticks)$/.test(specifier)) {
          found.push({ file, imports: specifier });
        }
      }
    }
    expect(found).toEqual([]);
  });
});
