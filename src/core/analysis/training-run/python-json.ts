/**
 * JSON as Python's `json.dump` writes it by default (`allow_nan=True`): the bare tokens `NaN`, `Infinity` and
 * `-Infinity` stand for non-finite floats, which JSON itself has no spelling for (RFC 8259 §6). transformers writes
 * trainer_state.json this way, so a run whose loss or gradient norm became NaN leaves a file `JSON.parse` rejects.
 */

/** The numbers Python's tokens stand for. */
const NON_FINITE_VALUES: ReadonlyMap<string, number> = new Map([
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['-Infinity', -Infinity],
]);
/** Python's tokens wherever they appear; each is then checked to lie outside a string. */
const NON_FINITE_TOKEN = /NaN|-?Infinity/g;
/**
 * Starts the string a token is written as while `JSON.parse` reads the text: a JSON string holds U+0000 only
 * escaped (`\u0000`), which no trainer_state.json value does.
 */
const MARK = '\u0000';

/**
 * The value of `text`, with Python's non-finite tokens read as numbers; undefined when it is not JSON even so.
 * Text without the words takes `JSON.parse` alone; otherwise the tokens outside strings are written as marked
 * strings, the text parsed once, and the marks turned into numbers (a walk of the value, cheaper than a reviver).
 */
export function parsePythonJson(text: string): unknown {
  const marked = text.includes('NaN') || text.includes('Infinity') ? markNonFiniteTokens(text) : null;
  try {
    const value = JSON.parse(marked ?? text) as unknown;
    return marked === null ? value : unmarked(value);
  } catch {
    return undefined;
  }
}

/** `text` with each token outside a string written as a marked string, or null when none is outside one. */
function markNonFiniteTokens(text: string): string | null {
  const parts: string[] = [];
  let copiedTo = 0;
  let inString = false;
  // Where the quote count has reached: each token's place is judged by the quotes before it, found by indexOf.
  let scannedTo = 0;
  for (const match of text.matchAll(NON_FINITE_TOKEN)) {
    const at = match.index;
    for (let quote = text.indexOf('"', scannedTo); quote !== -1 && quote < at; quote = text.indexOf('"', quote + 1)) {
      if (!isEscaped(text, quote)) {
        inString = !inString;
      }
    }
    scannedTo = at + match[0].length;
    if (!inString) {
      // Escaped: JSON.parse refuses a raw control character in a string, and decodes this one to MARK.
      parts.push(text.slice(copiedTo, at), `"\\u0000${match[0]}"`);
      copiedTo = scannedTo;
    }
  }
  if (parts.length === 0) {
    return null;
  }
  parts.push(text.slice(copiedTo));
  return parts.join('');
}

/** Whether the character at `at` follows an odd run of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (at - backslashes > 0 && text.charCodeAt(at - backslashes - 1) === 0x5c) {
    backslashes++;
  }
  return backslashes % 2 === 1;
}

/** `value` with every marked string replaced by its number, in place; a stack, not recursion, for deep nesting. */
function unmarked(value: unknown): unknown {
  const root = { value };
  const stack: Array<Record<string, unknown> | unknown[]> = [root];
  while (stack.length > 0) {
    const holder = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(holder)) {
      const inner = holder[key];
      if (typeof inner === 'string') {
        if (inner.charCodeAt(0) === 0) {
          holder[key] = NON_FINITE_VALUES.get(inner.slice(MARK.length)) ?? inner;
        }
      } else if (typeof inner === 'object' && inner !== null) {
        stack.push(inner as Record<string, unknown>);
      }
    }
  }
  return root.value;
}
