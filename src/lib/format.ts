/** Number formatting for people: thin-space digit groups, binary-free SI units, shapes as the Hub shows them. */

const THIN_SPACE = '\u2009';

export function groupDigits(value: number): string {
  if (!Number.isFinite(value)) {
    return String(value);
  }
  const [whole, fraction] = Math.abs(value).toString().split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, THIN_SPACE);
  return `${value < 0 ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** Decimal units (1 KB = 1000 B), as model hubs and disk vendors report sizes. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) {
    return '—';
  }
  if (Math.abs(bytes) < 1000) {
    return `${bytes} B`;
  }
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${BYTE_UNITS[unit]}`;
}

const COUNT_UNITS: Array<[number, string]> = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'K'],
];

/** Parameter counts: 11.9 B, 28.3 M. */
export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) {
    return '—';
  }
  for (const [scale, unit] of COUNT_UNITS) {
    if (Math.abs(value) >= scale) {
      const scaled = value / scale;
      return `${scaled >= 100 ? scaled.toFixed(0) : scaled >= 10 ? scaled.toFixed(1) : scaled.toFixed(2)} ${unit}`;
    }
  }
  return String(value);
}

export function formatShape(dims: readonly number[]): string {
  return `[${dims.map(groupDigits).join(', ')}]`;
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
