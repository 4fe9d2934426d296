/** Tiny, locale-independent number and name formatting for finding messages (the core has no UI helpers). */
import { revealInvisible } from '../invisible-chars';

const BYTE_UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB'] as const;
/** Decimal units, as the Hugging Face Hub shows file sizes. */
const UNIT_STEP = 1000;
/** Names longer than this are shortened in messages; the table shows them in full. */
const MAX_NAME_CHARS_IN_MESSAGE = 80;
/** Tensors named one by one in a message before "and N more". */
export const MAX_NAMES_IN_MESSAGE = 3;

/** 1234 → "1,234"; exact for every safe integer and for bigints. */
export function formatCount(value: number | bigint): string {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    return String(value);
  }
  const text = value.toString();
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (negative ? '-' : '') + grouped;
}

/** 1234 → "1.2 KB"; small values stay exact ("12 bytes"). */
export function formatBytes(value: number | bigint): string {
  let scaled = typeof value === 'bigint' ? Number(value) : value;
  if (!Number.isFinite(scaled)) {
    return `${scaled} bytes`;
  }
  if (Math.abs(scaled) < UNIT_STEP) {
    return `${formatCount(value)} ${Math.abs(scaled) === 1 ? 'byte' : 'bytes'}`;
  }
  let unit = 0;
  while (Math.abs(scaled) >= UNIT_STEP && unit < BYTE_UNITS.length - 1) {
    scaled /= UNIT_STEP;
    unit++;
  }
  const digits = Math.abs(scaled) < 10 ? 2 : Math.abs(scaled) < 100 ? 1 : 0;
  return `${scaled.toFixed(digits).replace(/\.?0+$/, '')} ${BYTE_UNITS[unit]}`;
}

/** "1.2 KB (1,234 bytes)": the exact count matters when comparing with offsets. */
export function formatBytesExact(value: number | bigint): string {
  const rough = formatBytes(value);
  const magnitude = typeof value === 'bigint' ? value : BigInt(Math.trunc(Number.isFinite(value) ? value : 0));
  return magnitude < 1000n && magnitude > -1000n ? rough : `${rough} (${formatCount(value)} bytes)`;
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
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
