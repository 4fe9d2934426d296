/**
 * Natural order for tensor names: digit runs compare as numbers, so `layers.2` < `layers.10` and
 * `experts.87` < `experts.869`. Sorting 250,000 names with a per-comparison tokenizer is slow, so each name is
 * turned once into a key that plain `<` orders naturally, and the keys are cached per names array.
 */

/**
 * The key replaces each digit run by `0`, then its length without leading zeros as one character (from U+0081;
 * runs of 126 digits or more: U+00FF and the length in nine digits), then the digits. `0` sorts where any digit
 * would against non-digits, so the rest of the name keeps its byte order; a longer number has a greater length
 * mark, so it sorts after a shorter one. Length marks stay below U+0100 so keys of ASCII names stay one-byte
 * strings (half the memory, faster compares).
 */
export function naturalKey(name: string): string {
  return DIGIT.test(name) ? name.replace(DIGIT_RUNS, encodeRun) : name;
}

const DIGIT = /\d/;
// A regex replace builds one flat string; hand-written concatenation measured slower on 250,000 names.
const DIGIT_RUNS = /\d+/g;
const LONG_RUN = 126;

function encodeRun(run: string): string {
  const digits = run.charCodeAt(0) === 0x30 && run.length > 1 ? run.replace(/^0+(?=\d)/, '') : run;
  const length = digits.length;
  const mark = length < LONG_RUN ? String.fromCharCode(0x80 + length) : `\u00ff${String(length).padStart(9, '0')}`;
  return `0${mark}${digits}`;
}

/** Compares two names naturally; ties (`01` vs `1`) fall back to the plain string order. */
export function compareNatural(a: string, b: string): number {
  const ka = naturalKey(a);
  const kb = naturalKey(b);
  if (ka !== kb) {
    return ka < kb ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Compares rows by the natural order of their names (keys built once per array, so each comparison is a plain `<`);
 * equal keys fall back to the plain string order, then to the row.
 */
export function naturalRowOrder(names: readonly string[]): (a: number, b: number) => number {
  const keys = naturalKeys(names);
  return (a, b) => {
    const keyA = keys[a];
    const keyB = keys[b];
    if (keyA !== keyB) {
      return keyA < keyB ? -1 : 1;
    }
    const nameA = names[a];
    const nameB = names[b];
    return nameA < nameB ? -1 : nameA > nameB ? 1 : a - b;
  };
}

const keyCache = new WeakMap<readonly string[], string[]>();

/** The natural keys of a names array, computed once per array (the worker keeps one array per loaded file). */
export function naturalKeys(names: readonly string[]): string[] {
  let keys = keyCache.get(names);
  if (!keys || keys.length !== names.length) {
    keys = names.map(naturalKey);
    keyCache.set(names, keys);
  }
  return keys;
}
