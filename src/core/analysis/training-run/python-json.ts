/**
 * JSON as Python's `json.dump` writes it by default (`allow_nan=True`): the bare tokens `NaN`, `Infinity` and
 * `-Infinity` stand for non-finite floats, which JSON itself has no spelling for (RFC 8259 §6). transformers writes
 * trainer_state.json this way, so a run whose loss or gradient norm became NaN leaves a file `JSON.parse` rejects.
 */

/** The tokens Python writes for non-finite floats, and the numbers they stand for. */
const NON_FINITE_TOKENS: ReadonlyArray<readonly [string, number]> = [
  ['-Infinity', -Infinity],
  ['Infinity', Infinity],
  ['NaN', NaN],
];
/**
 * Stands for a non-finite token while `JSON.parse` reads the text: a JSON string holds U+0000 only escaped
 * (`\u0000`), which no trainer_state.json value does.
 */
const MARK = '\u0000';

/**
 * The value of `text`, with Python's non-finite tokens read as numbers; undefined when it is not JSON even so.
 * Plain JSON takes `JSON.parse` alone; only text that fails it is scanned for the tokens (outside strings).
 */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Not plain JSON: it may be Python's.
  }
  const marked = markNonFiniteTokens(text);
  if (marked === null) {
    return undefined;
  }
  try {
    return JSON.parse(marked, (_key, value: unknown) =>
      typeof value === 'string' && value.startsWith(MARK) ? numberOfMark(value) : value,
    ) as unknown;
  } catch {
    return undefined;
  }
}

/** `text` with each token outside a string written as a marked string, or null when it has none. */
function markNonFiniteTokens(text: string): string | null {
  const parts: string[] = [];
  let copiedTo = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === 0x5c) {
        at++; // the escaped character, whatever it is
      } else if (code === 0x22) {
        inString = false;
      }
      continue;
    }
    if (code === 0x22) {
      inString = true;
      continue;
    }
    // 'N', 'I' or '-' can start a token; JSON's own values never start with the first two.
    if (code !== 0x4e && code !== 0x49 && code !== 0x2d) {
      continue;
    }
    const token = NON_FINITE_TOKENS.find(([spelling]) => text.startsWith(spelling, at));
    if (token === undefined) {
      continue;
    }
    // Escaped: JSON.parse refuses a raw control character in a string, and decodes this one to MARK.
    parts.push(text.slice(copiedTo, at), `"\\u0000${token[0]}"`);
    at += token[0].length - 1;
    copiedTo = at + 1;
  }
  if (parts.length === 0) {
    return null;
  }
  parts.push(text.slice(copiedTo));
  return parts.join('');
}

function numberOfMark(value: string): unknown {
  const token = NON_FINITE_TOKENS.find(([spelling]) => value === MARK + spelling);
  return token === undefined ? value : token[1];
}
