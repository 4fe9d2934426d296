/**
 * Characters that change how a name looks without showing themselves: bidi controls (U+202E makes
 * `model.\u202Egnp.exe` display as `model.exe.png`), zero-width characters that hide a difference between two
 * names, other format and control characters, and spaces that are not U+0020. The screen and the CSV show each as
 * a `\uXXXX` escape; the JSON report keeps names exact.
 */

/**
 * Cc (controls), Cf (format: bidi, zero-width, BOM, tags…), line/paragraph separators, non-ASCII spaces, and the
 * blank-looking letters and variation selectors that render as nothing.
 */
const INVISIBLE_SOURCE =
  '[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\u00A0\\u1680\\u2000-\\u200A\\u202F\\u205F\\u3000' +
  '\\u034F\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u2800\\u3164\\uFFA0\\uFE00-\\uFE0F\\u{E0100}-\\u{E01EF}]';
// The class lists combining marks (U+034F, variation selectors) one by one on purpose: each is matched alone.
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE_TEST = new RegExp(INVISIBLE_SOURCE, 'u');
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE_ALL = new RegExp(INVISIBLE_SOURCE, 'gu');

/** Bidi controls: they reorder the text around them. */
const BIDI_CONTROLS = new Set([
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]);
const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x034f, 0x180e]);

export type InvisibleKind = 'bidi' | 'zero-width' | 'control' | 'space' | 'other';

export function hasInvisible(text: string): boolean {
  return INVISIBLE_TEST.test(text);
}

/** `\u202E` for a BMP character, `\u{E0041}` beyond it. */
export function escapeCodePoint(codePoint: number): string {
  const hex = codePoint.toString(16).toUpperCase();
  return codePoint > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/** The text with every invisible character replaced by its `\uXXXX` escape. */
export function revealInvisible(text: string): string {
  if (!INVISIBLE_TEST.test(text)) {
    return text;
  }
  return text.replace(INVISIBLE_ALL, (c) => escapeCodePoint(c.codePointAt(0) ?? 0));
}

export function invisibleKind(codePoint: number): InvisibleKind {
  if (BIDI_CONTROLS.has(codePoint)) {
    return 'bidi';
  }
  if (ZERO_WIDTH.has(codePoint)) {
    return 'zero-width';
  }
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f)) {
    return 'control';
  }
  if (/\p{Zs}|\p{Zl}|\p{Zp}/u.test(String.fromCodePoint(codePoint))) {
    return 'space';
  }
  return 'other';
}

/** Each distinct invisible code point in `text`, in order of first appearance. */
export function invisibleCodePoints(text: string): number[] {
  const found = new Set<number>();
  for (const match of text.matchAll(INVISIBLE_ALL)) {
    found.add(match[0].codePointAt(0) ?? 0);
  }
  return [...found];
}
