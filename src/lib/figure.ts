/**
 * A figure as the panels show it: short (`206 K`, `413 KB`) with the exact number and its unit as the tooltip
 * (`206 080 elements`, `413 204 bytes`). Spread into a Fact or Stat: `<Fact label="…" {...bytesFigure(n)} />`.
 */
import { formatBytes, formatCount, groupDigits } from '../core/number-format';

export interface Figure {
  value: string;
  title: string;
}

export function countFigure(count: number, unit: string): Figure {
  return { value: formatCount(count), title: `${groupDigits(count)} ${unit}` };
}

export function bytesFigure(bytes: number): Figure {
  return { value: formatBytes(bytes), title: `${groupDigits(bytes)} bytes` };
}
