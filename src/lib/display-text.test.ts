import { describe, expect, it } from 'vitest';
import { elideMiddle, shortenForDisplay } from './display-text';

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

describe('elideMiddle', () => {
  it('keeps text that fits', () => {
    expect(elideMiddle('F16', 10)).toBe('F16');
  });

  it('keeps both ends of a long name, the end longer, within max units', () => {
    expect(elideMiddle('lora_unet_blocks_23_attn_to_q', 20)).toBe('lora_un…23_attn_to_q');
  });

  it('shows invisible characters at either end, and reads only the ends of a huge name', () => {
    const shown = elideMiddle(`\u202E${'x'.repeat(5_000_000)}\u200B`, 30);
    expect(shown.length).toBeLessThanOrEqual(30);
    expect(shown.startsWith('\\u202E')).toBe(true);
    expect(shown.endsWith('\\u200B')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    for (let max = 3; max < 12; max++) {
      const shown = elideMiddle('😀'.repeat(20), max);
      expect(shown.length).toBeLessThanOrEqual(max);
      expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(shown)).toBe(false);
    }
  });
});
