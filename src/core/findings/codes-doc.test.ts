/**
 * Keeps the findings documentation in step with the code table: every code needs a section headed by the code in
 * backticks in docs/findings.md or one of its companions (docs/findings-*.md, e.g. findings-shards.md), and a
 * section's Severity and Reference loader lines must agree with codes.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FINDING_CODES, type FindingCode } from './codes';

const DOCS_DIR = fileURLToPath(new URL('../../../docs/', import.meta.url));
const MAIN_DOC = 'findings.md';
const docFiles = readdirSync(DOCS_DIR).filter((file) => file === MAIN_DOC || /^findings-[\w-]+\.md$/.test(file));

/** The text of each "## `code`" or "### `code`" section, up to the next heading. */
function sections(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of markdown.split(/^(?=#{1,3} )/m)) {
    const heading = /^#{2,3} `([^`]+)`\s*$/.exec(part.split('\n')[0]);
    if (heading) {
      found.set(heading[1], part);
    }
  }
  return found;
}

const documented = new Map<string, string>();
for (const file of docFiles) {
  for (const [code, section] of sections(readFileSync(`${DOCS_DIR}${file}`, 'utf8'))) {
    documented.set(code, section);
  }
}
const codes = Object.keys(FINDING_CODES) as FindingCode[];

describe('findings documentation', () => {
  it('has the main page', () => {
    expect(docFiles).toContain(MAIN_DOC);
  });

  it('documents every finding code', () => {
    const missing = codes.filter((code) => !documented.has(code));
    expect(
      missing,
      `add a "### \`code\`" section to docs/findings.md (or a docs/findings-*.md) for: ${missing.join(', ')}`,
    ).toEqual([]);
  });

  it.each(codes.filter((code) => documented.has(code)))('%s: severity and reference verdict match codes.ts', (code) => {
    const section = documented.get(code) ?? '';
    const spec = FINDING_CODES[code];
    const severity = /\*\*Severity:\*\*\s*(\w+)/.exec(section)?.[1];
    if (severity !== undefined) {
      expect(severity).toBe(spec.severity);
    }
    const verdict = /\*\*Reference loader:\*\*\s*(\w+)/.exec(section)?.[1];
    if (verdict !== undefined) {
      expect(verdict).toBe(spec.refusedByReference ? 'refuses' : 'accepts');
    }
  });

  it('documents no code that does not exist', () => {
    const unknown = [...documented.keys()].filter((code) => !(code in FINDING_CODES));
    expect(unknown).toEqual([]);
  });
});
