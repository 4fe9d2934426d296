/**
 * Numbers and names as finding messages write them: the numbers come from the one formatter,
 * `src/core/number-format.ts`, with "," digit groups because messages are copied into plain text.
 */
import {
  formatBytes as formatBytesForScreen,
  formatBytesExact as formatBytesExactForScreen,
  groupDigitsWith,
  plural as pluralForScreen,
} from '../number-format';
import { revealInvisible } from '../invisible-chars';
import { MAX_NAMES_IN_MESSAGE } from '../limits';

/** Names longer than this are shortened in messages; the table shows them in full. */
const MAX_NAME_CHARS_IN_MESSAGE = 80;
/** Messages are copied into plain text (issues, chats), so digit groups there use commas. */
const MESSAGE_SEPARATOR = ',';

/** 1234 → "1,234"; exact for every integer and for bigints. */
export function formatCount(value: number | bigint): string {
  return groupDigitsWith(value, MESSAGE_SEPARATOR);
}

/** 1234 → "1.23 KB"; small values stay exact ("12 bytes"). */
export function formatBytes(value: number | bigint): string {
  const number = Number(value);
  if (!Number.isFinite(number)) {
    return `${number} bytes`;
  }
  return Math.abs(number) < 1000 ? plural(value, 'byte', 'bytes') : formatBytesForScreen(value);
}

/** "1.23 KB (1,234 bytes)": the exact count matters when comparing with offsets. */
export function formatBytesExact(value: number | bigint): string {
  return formatBytesExactForScreen(value, MESSAGE_SEPARATOR);
}

export function plural(count: number | bigint, singular: string, pluralForm = `${singular}s`): string {
  return pluralForScreen(count, singular, pluralForm, MESSAGE_SEPARATOR);
}

/** A tensor or key name as code, shortened and with control, bidi and other invisible characters made visible. */
export function quoteName(name: string): string {
  const shown = name.length > MAX_NAME_CHARS_IN_MESSAGE ? `${name.slice(0, MAX_NAME_CHARS_IN_MESSAGE - 1)}…` : name;
  return `\`${revealInvisible(shown).replace(/`/g, "'")}\``;
}

/** "`a`, `b`, `c` and 7 more" from the first few names and the exact total. */
export function listNames(names: readonly string[], total: number): string {
  const shown = names.slice(0, MAX_NAMES_IN_MESSAGE).map(quoteName);
  const rest = total - shown.length;
  if (rest <= 0) {
    if (shown.length <= 1) {
      return shown.join('');
    }
    return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
  }
  return `${shown.join(', ')} and ${formatCount(rest)} more`;
}

/** "a", "b", "c" and 7 more: file and tensor names JSON-quoted (as the index spells them), the rest counted. */
export function quoteNames(names: readonly string[], total = names.length): string {
  const shown = names.slice(0, MAX_NAMES_IN_MESSAGE).map((name) => JSON.stringify(name));
  const rest = total - shown.length;
  return rest > 0 ? `${shown.join(', ')} and ${formatCount(rest)} more` : shown.join(', ');
}

/** [1, 2, 3, 7, 9, 10] → "1–3, 7, 9–10": missing shard numbers stay readable when hundreds are missing. */
export function formatRanges(sortedNumbers: readonly number[], maxRanges = 20): string {
  const ranges: string[] = [];
  let i = 0;
  while (i < sortedNumbers.length && ranges.length < maxRanges) {
    let j = i;
    while (j + 1 < sortedNumbers.length && sortedNumbers[j + 1] === sortedNumbers[j] + 1) {
      j++;
    }
    ranges.push(i === j ? String(sortedNumbers[i]) : `${sortedNumbers[i]}–${sortedNumbers[j]}`);
    i = j + 1;
  }
  return i < sortedNumbers.length ? `${ranges.join(', ')}, …` : ranges.join(', ');
}

/** A shape for messages: [2048, 7168]. */
export function formatShape(dims: ArrayLike<number>): string {
  return `[${Array.from(dims, (dim) => (Number.isNaN(dim) ? '?' : String(dim))).join(', ')}]`;
}
