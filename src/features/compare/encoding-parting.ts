/**
 * Where two encodings of one text part, for "Encode a text with both" (EncodeBoth.tsx): the tokens before `from`
 * agree, as do those from `toA` in A and from `toB` in B to the ends; null when the two are the same.
 */
export function partingOf(
  a: readonly number[],
  b: readonly number[],
): { from: number; toA: number; toB: number } | null {
  let from = 0;
  while (from < a.length && from < b.length && a[from] === b[from]) {
    from++;
  }
  if (from === a.length && from === b.length) {
    return null;
  }
  let suffix = 0;
  while (
    suffix < a.length - from &&
    suffix < b.length - from &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  return { from, toA: a.length - suffix, toB: b.length - suffix };
}
