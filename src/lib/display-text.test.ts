import { describe, expect, it } from 'vitest';
import { shortenForDisplay } from './display-text';

describe('shortenForDisplay', () => {
  it('keeps short text', () => {
    expect(shortenForDisplay('model.weight', 20)).toBe('model.weight');
  });

  it('shows a bidi override as an escape, so the name cannot display as something else', () => {
    expect(shortenForDisplay('model.\u202Egnp.exe', 100)).toBe('model.\\u202Egnp.exe');
  });

  it('shortens after revealing, to at most max units', () => {
    const shown = shortenForDisplay('\u200B'.repeat(50), 20);
    expect(shown.length).toBeLessThanOrEqual(20);
    expect(shown.endsWith('…')).toBe(true);
    expect(shown.startsWith('\\u200B')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    const shown = shortenForDisplay(`${'a'.repeat(8)}😀😀😀`, 10);
    expect(shown).toBe(`${'a'.repeat(8)}…`);
  });

  it('looks at no more than max units of a huge string', () => {
    const huge = 'x'.repeat(10_000_000);
    expect(shortenForDisplay(huge, 1000).length).toBe(1000);
  });
});
