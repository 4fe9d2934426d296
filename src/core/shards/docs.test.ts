import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHARD_CODES } from '../findings/codes-shards';

const doc = readFileSync(new URL('../../../docs/findings-shards.md', import.meta.url), 'utf8');

describe('docs/findings-shards.md', () => {
  it.each(Object.entries(SHARD_CODES))(
    'documents %s with its severity, meaning, advice and an example',
    (code, spec) => {
      const start = doc.indexOf(`## \`${code}\``);
      expect(start).toBeGreaterThan(0);
      const next = doc.indexOf('\n## ', start + 1);
      const section = doc.slice(start, next < 0 ? undefined : next);
      expect(section).toContain(`**Severity:** ${spec.severity}.`);
      expect(section).toContain('**Meaning:**');
      expect(section).toContain('**What to do:**');
      expect(section).toContain('**Example:**');
      expect(doc).toMatch(new RegExp(`\\| \`${code}\` +\\| ${spec.severity} +\\|`));
    },
  );

  it('documents no code that does not exist', () => {
    const documented = [...doc.matchAll(/^## `([a-z-]+)`/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual(Object.keys(SHARD_CODES).sort());
  });
});
