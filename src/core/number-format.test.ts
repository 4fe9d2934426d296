import { describe, expect, it } from 'vitest';
import {
  exactDecimal,
  formatElapsed,
  formatShare,
  formatValue,
  formatBytes,
  formatBytesExact,
  formatCount,
  formatPercent,
  formatShape,
  formatTensorShape,
  groupDigits,
  groupDigitsOrDash,
  groupDigitsWith,
  plural,
  pluralWord,
} from './number-format';
import type { TensorColumns } from './model';

const T = '\u2009';

describe('format', () => {
  it('groups digits with thin spaces, or a given separator', () => {
    expect(groupDigits(4096)).toBe(`4${T}096`);
    expect(groupDigits(14336)).toBe(`14${T}336`);
    expect(groupDigits(999)).toBe('999');
    expect(groupDigitsWith(-1234567, ',')).toBe('-1,234,567');
  });
  it('groups integers past 2^53 exactly (BigInt), never as rounded shortest digits', () => {
    expect(groupDigitsWith(2n ** 64n - 1n, ',')).toBe('18,446,744,073,709,551,615');
    // String(2 ** 62) is "4611686018427388000"; the double holds 4 611 686 018 427 387 904.
    expect(groupDigitsWith(2 ** 62, ',')).toBe('4,611,686,018,427,387,904');
  });
  it('shows a dim the reader could not hold exactly (NaN, a GGUF dim past 2^53) as "?"', () => {
    const columns = {
      shapeStarts: Uint32Array.from([0, 2]),
      dims: Float64Array.from([Number.NaN, 4096]),
    } as unknown as TensorColumns;
    expect(formatTensorShape(columns, 0)).toBe(`[?, 4${T}096]`);
    expect(formatShape([Number.NaN, 4096])).toBe(`[?, 4${T}096]`);
    expect(groupDigitsOrDash(Number.NaN)).toBe('—');
    expect(groupDigitsOrDash(Number.POSITIVE_INFINITY)).toBe('—');
    expect(groupDigitsOrDash(4096)).toBe(`4${T}096`);
  });
  it('formats shapes as the Hub does', () => {
    expect(formatShape([4096, 14336])).toBe(`[4${T}096, 14${T}336]`);
    expect(formatShape([])).toBe('[]');
  });
  it('formats bytes with decimal units and three significant digits', () => {
    expect(formatBytes(145_000)).toBe('145 KB');
    expect(formatBytes(14_100_000_000)).toBe('14.1 GB');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(512_000_000)).toBe('512 MB');
    expect(formatBytes(999_950)).toBe('1.00 MB');
    expect(formatBytes(2n ** 62n)).toBe('4.61 EB');
    expect(formatBytes(null)).toBe('—');
  });
  it('gives exact bytes beside the rounded figure', () => {
    expect(formatBytesExact(2n ** 62n, ',')).toBe('4.61 EB (4,611,686,018,427,387,904 bytes)');
    expect(formatBytesExact(1, ',')).toBe('1 byte');
    expect(formatBytesExact(12)).toBe('12 bytes');
    expect(formatBytesExact(536_870_912, ',')).toBe('537 MB (536,870,912 bytes)');
  });
  it('formats counts with one rounding rule', () => {
    expect(formatCount(11_900_000_000)).toBe('11.9 B');
    expect(formatCount(28_300_000)).toBe('28.3 M');
    expect(formatCount(6_738_415_616)).toBe('6.74 B');
    expect(formatCount(684_531_386_000)).toBe('685 B');
    expect(formatCount(8450)).toBe('8.45 K');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(999_999)).toBe('1.00 M');
  });
  it('agrees words with their counts', () => {
    expect(plural(1, 'layer')).toBe('1 layer');
    expect(plural(2, 'layer')).toBe('2 layers');
    expect(plural(0, 'tensor')).toBe('0 tensors');
    expect(plural(12_345, 'tensor')).toBe(`12${T}345 tensors`);
    expect(plural(1n, 'byte')).toBe('1 byte');
    expect(plural(3, 'LoRA module', 'LoRA modules')).toBe('3 LoRA modules');
    expect(pluralWord(1, 'shard')).toBe('shard');
    expect(pluralWord(2, 'shard')).toBe('shards');
  });
  it('formats tiny percentages', () => {
    expect(formatPercent(145_000, 14_100_000_000)).toBe('0.001%');
    expect(formatPercent(4690, 1_940_000_000)).toBe('0.00024%');
    expect(formatPercent(50, 100)).toBe('50%');
  });
});

describe('exactDecimal and formatValue', () => {
  it('writes the exact decimal a float holds', () => {
    expect(exactDecimal(Math.fround(0.1))).toBe('0.100000001490116119384765625');
    expect(exactDecimal(-2.5)).toBe('-2.5');
    expect(exactDecimal(2 ** 60)).toBe('1152921504606846976');
    expect(exactDecimal(2 ** -149)).toMatch(/^0\.0{44}1401298464324817/);
    expect([exactDecimal(Number.NaN), exactDecimal(-Infinity), exactDecimal(-0)]).toEqual(['NaN', '−Inf', '-0']);
  });

  it('rounds measured values to four significant digits', () => {
    expect(formatValue(0.019531)).toBe('0.01953');
    expect(formatValue(-3.14159e-5)).toBe('-3.142e-5');
    expect(formatValue(123456)).toBe('1.235e+5');
    expect(formatValue(null)).toBe('—');
  });
});

describe('formatElapsed', () => {
  it('milliseconds under a tenth of a second, then seconds with two decimals, one past 10 s', () => {
    expect(formatElapsed(32.4)).toBe('32 ms');
    expect(formatElapsed(66)).toBe('66 ms');
    expect(formatElapsed(199.7)).toBe('0.20 s');
    expect(formatElapsed(1234)).toBe('1.23 s');
    expect(formatElapsed(12_345)).toBe('12.3 s');
    expect(formatElapsed(Number.NaN)).toBe('—');
  });
});

describe('formatShare', () => {
  it('one decimal on every row, trailing zero kept', () => {
    expect(formatShare(0.22)).toBe('22.0%');
    expect(formatShare(0.379)).toBe('37.9%');
    expect(formatShare(0)).toBe('0.0%');
  });
});
