/**
 * Issue #7, UI side of the hostile catalog: metadata from a stranger's file renders as text (never markup), only
 * http(s) values become links, and hostile lengths are shortened on screen while the model keeps them whole.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MAX_METADATA_VALUE_DISPLAY_CHARS, MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import { metadataEntries, type ParsedHeader } from '../../core/model';
import { parseFileHead } from '../../core/parse/parse-header';
import { FIXTURES } from '../../testing/fixture-manifest';
import { HOSTILE_FIXTURES, LONG_METADATA_KEY, LONG_METADATA_VALUE } from '../../testing/hostile-fixtures';
import { torchFixtureHeader } from '../../testing/torch-fixtures';
import { MetadataPanel } from './MetadataPanel';

function header(file: string): ParsedHeader {
  const bytes = [...FIXTURES, ...HOSTILE_FIXTURES].find((fixture) => fixture.file === file)?.bytes();
  const outcome = bytes ? parseFileHead(bytes, bytes.length) : null;
  if (outcome?.kind !== 'parsed') {
    throw new Error(`${file} did not parse`);
  }
  return outcome.header;
}

describe('MetadataPanel with hostile metadata', () => {
  const html = renderToStaticMarkup(<MetadataPanel header={header('hostile-names.safetensors')} />);

  it('shows HTML and script payloads as escaped text', () => {
    expect(html).not.toMatch(/<script|<img/i);
    expect(html).toContain('&lt;img src=x onerror=&quot;window.__pwned=3&quot;&gt;');
    expect(html).toContain('&lt;script&gt;window.__pwned=6&lt;/script&gt;');
  });

  it('shows __proto__, constructor and toString as keys', () => {
    for (const key of ['__proto__', 'constructor', 'toString']) {
      expect(html).toContain(`<dt>${key}</dt>`);
    }
  });

  it('links only the https value; javascript:, data:, vbscript: and file: stay text', () => {
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);
    expect(hrefs).toEqual(['https://example.com/model']);
    expect(html).toContain('rel="noopener noreferrer nofollow"');
    for (const text of [
      'javascript:window.__pwned=4',
      'data:text/html',
      'JaVaScRiPt:window.__pwned=7',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
    ]) {
      expect(html).toContain(text);
    }
  });
});

describe('MetadataPanel with hostile lengths', () => {
  const parsed = header('long-values.safetensors');
  const html = renderToStaticMarkup(<MetadataPanel header={parsed} />);

  it('keeps the full value in the model and shows a shortened one with a "show all" control', () => {
    expect(metadataEntries(parsed.metadata).find((entry) => entry.key === 'long_value')?.value).toBe(
      LONG_METADATA_VALUE,
    );
    expect(html).not.toContain(LONG_METADATA_VALUE);
    expect(html).toContain(`${LONG_METADATA_VALUE.slice(0, MAX_METADATA_VALUE_DISPLAY_CHARS)}…`);
    expect(html).toContain('Show all 1,000,000 characters');
  });

  it('shortens a 10,000-character key', () => {
    expect(html).not.toContain(LONG_METADATA_KEY);
    expect(html).toContain(`<dt>${LONG_METADATA_KEY.slice(0, MAX_NAME_DISPLAY_CHARS - 1)}…</dt>`);
    // The page for a 1 MB value and a 10 KB key stays small.
    expect(html.length).toBeLessThan(20_000);
  });
});

describe('MetadataPanel of a PyTorch checkpoint: its scalars have types of their own', () => {
  it('lists the numbers and flags as values, with no "not a string" badge', async () => {
    const html = renderToStaticMarkup(<MetadataPanel header={await torchFixtureHeader('lightning.ckpt')} />);
    expect(html).toContain('values that are not tensors');
    expect(html).toContain('global_step');
    expect(html).toContain('1200');
    expect(html).not.toContain('not a string');
    expect(html).not.toContain('__metadata__');
  });
});
