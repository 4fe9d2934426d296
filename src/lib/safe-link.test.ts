/** Only http(s) metadata values ever become links (issue #7: hostile links). */
import { describe, expect, it } from 'vitest';
import { shortenForDisplay } from './display-text';
import { safeHttpUrl } from './safe-link';

describe('safeHttpUrl', () => {
  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    '  javascript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'blob:https://example.com/x',
    '//evil.example/x',
    'https:evil.example',
    'https://exa mple.com',
    'https://example.com/\njavascript:alert(1)',
    'ftp://example.com/x',
    '',
  ])('refuses %j', (text) => {
    expect(safeHttpUrl(text)).toBeNull();
  });

  it.each([
    ['https://example.com/model', 'https://example.com/model'],
    ['HTTPS://Example.COM/a', 'https://example.com/a'],
    [' http://127.0.0.1:8080/x ', 'http://127.0.0.1:8080/x'],
  ])('links %j', (text, href) => {
    expect(safeHttpUrl(text)).toBe(href);
  });
});

describe('shortenForDisplay', () => {
  it('keeps short text and cuts long text to the limit with an ellipsis', () => {
    expect(shortenForDisplay('abc', 3)).toBe('abc');
    expect(shortenForDisplay('abcdef', 4)).toBe('abc…');
    expect(shortenForDisplay('x'.repeat(100_000), 1_000)).toHaveLength(1_000);
  });

  it('never splits a surrogate pair', () => {
    const shortened = shortenForDisplay('ab😀cd', 4);
    expect(shortened).toBe('ab…');
    expect(encodeURIComponent(shortened)).toBe('ab%E2%80%A6');
  });
});
