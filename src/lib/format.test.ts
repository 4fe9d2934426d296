import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount, formatPercent, formatShape, groupDigits } from './format';

describe('format', () => {
  it('groups digits with thin spaces', () => {
    expect(groupDigits(4096)).toBe('4\u2009096');
    expect(groupDigits(14336)).toBe('14\u2009336');
    expect(groupDigits(999)).toBe('999');
  });
  it('formats shapes as the Hub does', () => {
    expect(formatShape([4096, 14336])).toBe('[4\u2009096, 14\u2009336]');
    expect(formatShape([])).toBe('[]');
  });
  it('formats bytes with decimal units', () => {
    expect(formatBytes(145_000)).toBe('145 KB');
    expect(formatBytes(14_100_000_000)).toBe('14.1 GB');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(null)).toBe('—');
  });
  it('formats counts', () => {
    expect(formatCount(11_900_000_000)).toBe('11.9 B');
    expect(formatCount(28_300_000)).toBe('28.3 M');
  });
  it('formats tiny percentages', () => {
    expect(formatPercent(145_000, 14_100_000_000)).toBe('0.001%');
    expect(formatPercent(4690, 1_940_000_000)).toBe('0.00024%');
    expect(formatPercent(50, 100)).toBe('50%');
  });
});
