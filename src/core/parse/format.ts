/** Number and name formatting for finding messages: the numbers come from the one formatter, `src/core/number-format.ts`. */
import {
  formatBytes as formatBytesForScreen,
  formatBytesExact as formatBytesExactForScreen,
  groupDigitsWith,
  plural as pluralForScreen,
} from '../number-format';
import { revealInvisible } from '../invisible-chars';

/** Names longer than this are shortened in messages; the table shows them in full. */
const MAX_NAME_CHARS_IN_MESSAGE = 80;
/** Tensors named one by one in a message before "and N more". */
const MAX_NAMES_IN_MESSAGE = 3;
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

/** A shape for messages: [2048, 7168]. */
export function formatShape(dims: ArrayLike<number>): string {
  return `[${Array.from(dims, (dim) => (Number.isNaN(dim) ? '?' : String(dim))).join(', ')}]`;
}
