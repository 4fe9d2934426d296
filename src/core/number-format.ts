/**
 * The one number formatter, for the screen, the report and the finding messages alike: decimal SI units
 * (1 KB = 1000 B, as model hubs and disk vendors report sizes), three significant digits for every rounded
 * figure, exact digit groups (BigInt past 2^53), and words that agree with their count ("1 layer", "2 layers").
 * The screen groups digits with thin spaces; finding messages pass "," because they are copied into plain text.
 */
import type { TensorColumns } from './model';

const THIN_SPACE = '\u2009';

/** 4096 → "4 096" (thin space). One argument, so it can be passed as a chart's tick formatter. */
export function groupDigits(value: number | bigint): string {
  return groupDigitsWith(value, THIN_SPACE);
}

/** 4096 → "4,096" with "," as separator. Exact for every integer, bigints included; a double past 2^53 prints the integer it holds. */
export function groupDigitsWith(value: number | bigint, separator: string): string {
  let text: string;
  if (typeof value === 'bigint') {
    text = value.toString();
  } else if (!Number.isFinite(value)) {
    return String(value);
  } else if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    // String(2 ** 62) is "4611686018427388000": shortest round-trip digits, not the integer the double holds.
    text = BigInt(value).toString();
  } else {
    text = String(value);
  }
  const negative = text.startsWith('-');
  const [whole, fraction] = (negative ? text.slice(1) : text).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
  return `${negative ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}

/** Three significant digits: 6.74, 20.9, 685. The single rounding rule for every scaled figure. */
function threeDigits(value: number): string {
  const magnitude = Math.abs(value);
  return value.toFixed(magnitude >= 99.95 ? 0 : magnitude >= 9.995 ? 1 : 2);
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB'];

function scaled(value: number, units: readonly string[], step = 1000): string {
  let amount = value;
  let unit = 0;
  // Round first, so 999 950 reads "1.00 MB", never "1000 KB".
  while (unit < units.length - 1 && Math.abs(Number(threeDigits(amount))) >= step) {
    amount /= step;
    unit++;
  }
  return `${threeDigits(amount)} ${units[unit]}`;
}

/** Bytes in decimal units: "512 B", "145 KB", "14.1 GB", "4.61 EB". */
export function formatBytes(bytes: number | bigint | null | undefined): string {
  if (bytes === null || bytes === undefined) {
    return '—';
  }
  const value = Number(bytes);
  if (!Number.isFinite(value)) {
    return '—';
  }
  if (Math.abs(value) < 1000) {
    return `${groupDigits(bytes)} B`;
  }
  return scaled(value, BYTE_UNITS);
}

/** "4.61 EB (4 611 686 018 427 387 904 bytes)": the exact figure where it matters (limits, offsets, prefixes). */
export function formatBytesExact(bytes: number | bigint, separator: string = THIN_SPACE): string {
  const value = Number(bytes);
  if (Math.abs(value) < 1000) {
    return plural(bytes, 'byte', 'bytes', separator);
  }
  return `${formatBytes(bytes)} (${groupDigitsWith(bytes, separator)} bytes)`;
}

const COUNT_UNITS = ['', 'K', 'M', 'B', 'T'];

/** Parameter and element counts: "845", "8.45 K", "28.3 M", "6.74 B". Below 1000 the count is exact. */
export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) {
    return '—';
  }
  if (Math.abs(value) < 1000) {
    return groupDigits(value);
  }
  return scaled(value, COUNT_UNITS).trimEnd();
}

/** "1 layer", "2 layers", "12 345 tensors": the count grouped, the word agreeing with it. */
export function plural(
  count: number | bigint,
  singular: string,
  pluralForm = `${singular}s`,
  separator: string = THIN_SPACE,
): string {
  const one = typeof count === 'bigint' ? count === 1n : count === 1;
  return `${groupDigitsWith(count, separator)} ${one ? singular : pluralForm}`;
}

/** Only the word: "layer" or "layers". */
export function pluralWord(count: number, singular: string, pluralForm = `${singular}s`): string {
  return count === 1 ? singular : pluralForm;
}

/** A dim grouped, or "?" for one the reader could not hold exactly (NaN: a GGUF dim past 2^53, named by a finding). */
export function formatDim(dim: number): string {
  return Number.isNaN(dim) ? '?' : groupDigits(dim);
}

/** A count or offset grouped, or "—" where the header gives none (an invalid shape or offsets, named by a finding). */
export function groupDigitsOrDash(value: number): string {
  return Number.isFinite(value) ? groupDigits(value) : '—';
}

/** `[4 096, 11 008]`; a dim the reader could not hold exactly as "?". */
export function formatShape(dims: readonly number[]): string {
  return `[${dims.map(formatDim).join(', ')}]`;
}

/*
 * Shapes as text with a bound: no real tensor has more than 8 dims, but a header may give one 20,000,000 (a 40 MB
 * header), whose full text would be a 60-million-character node. These read dims straight from the columns, so
 * the shape is never copied into an array either.
 */
/** Dims printed before a shape is shortened: the first ones, "…", the last two, and the rank. */
export const MAX_SHAPE_DIMS_SHOWN = 16;
const TAIL_DIMS = 2;

export function shapeRank(columns: TensorColumns, row: number): number {
  return columns.shapeStarts[row + 1] - columns.shapeStarts[row];
}

/**
 * The dims `from` to `to` of the columns' dims, grouped and comma-separated. A dim the reader could not hold exactly
 * (a GGUF dim past 2^53, kept as NaN with a finding that says so) shows as "?".
 */
export function dimsText(columns: TensorColumns, from: number, to: number): string {
  const parts: string[] = [];
  for (let i = from; i < to; i++) {
    parts.push(formatDim(columns.dims[i]));
  }
  return parts.join(', ');
}

/** `[4 096, 11 008]`, or for a hostile rank `[1, 1, …, 1, 1] (20 000 000 dims)`; at most MAX_SHAPE_DIMS_SHOWN dims. */
export function formatTensorShape(columns: TensorColumns, row: number): string {
  const start = columns.shapeStarts[row];
  const end = columns.shapeStarts[row + 1];
  const rank = end - start;
  if (rank <= MAX_SHAPE_DIMS_SHOWN) {
    return `[${dimsText(columns, start, end)}]`;
  }
  const head = dimsText(columns, start, start + MAX_SHAPE_DIMS_SHOWN - TAIL_DIMS);
  const tail = dimsText(columns, end - TAIL_DIMS, end);
  return `[${head}, …, ${tail}] (${groupDigits(rank)} dims)`;
}

export function formatPercent(part: number, whole: number | null): string {
  if (whole === null || whole <= 0) {
    return '—';
  }
  const percent = (part / whole) * 100;
  if (percent === 0) {
    return '0%';
  }
  // Tiny fractions are the point ("read 5 KB of 1.9 TB"): keep two significant digits instead of rounding to 0.
  const digits = percent >= 10 ? 1 : percent >= 1 ? 2 : Math.max(3, 1 - Math.floor(Math.log10(percent)));
  return `${Number(percent.toFixed(digits))}%`;
}

/**
 * The exact decimal a double holds: 0.1 as float32 → "0.100000001490116119384765625". Every binary fraction has a
 * finite decimal expansion (m × 2^−k = m × 5^k / 10^k), so nothing is rounded; subnormals run to ~750 digits.
 */
export function exactDecimal(value: number): string {
  if (!Number.isFinite(value)) {
    return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '−Inf';
  }
  if (value === 0) {
    return Object.is(value, -0) ? '-0' : '0';
  }
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & 0xfffffffffffffn;
  let exponent = biased === 0 ? -1074 : biased - 1075;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
  }
  while (mantissa % 2n === 0n && exponent < 0) {
    mantissa /= 2n;
    exponent++;
  }
  const sign = value < 0 ? '-' : '';
  if (exponent >= 0) {
    return `${sign}${(mantissa << BigInt(exponent)).toString()}`;
  }
  const digits = (mantissa * 5n ** BigInt(-exponent)).toString().padStart(-exponent + 1, '0');
  const point = digits.length + exponent;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A share of a whole in a table column, one decimal on every row so the figures line up: 0.22 → "22.0%". */
export function formatShare(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

/** A duration as people read one: "66 ms", "0.20 s" past 100 ms, "12.3 s" past 10 s. */
export function formatElapsed(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) {
    return '—';
  }
  if (ms < 100) {
    return `${Math.round(ms)} ms`;
  }
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** A measured value in four significant digits: "0.01953", "-3.142e-5", "1.2e+4"; NaN and infinities in words. */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined) {
    return '—';
  }
  if (!Number.isFinite(value)) {
    return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '−Inf';
  }
  if (value === 0) {
    return '0';
  }
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-3 && magnitude < 1e5) {
    return String(Number(value.toPrecision(4)));
  }
  return value.toExponential(3).replace(/\.?0+e/, 'e');
}
