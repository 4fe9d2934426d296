import { describe, expect, it } from 'vitest';
import { compareNatural, naturalKey, naturalKeys, naturalRowOrder } from './natural-order';

const sorted = (names: string[]): string[] => [...names].sort(compareNatural);

describe('natural name order', () => {
  it('orders numbers inside names as numbers', () => {
    expect(sorted(['layers.10', 'layers.2', 'layers.1'])).toEqual(['layers.1', 'layers.2', 'layers.10']);
    expect(sorted(['h.10.attn', 'h.2.attn', 'h.1.mlp'])).toEqual(['h.1.mlp', 'h.2.attn', 'h.10.attn']);
    expect(sorted(['experts.869.w1', 'experts.870.w1', 'experts.87.w1'])).toEqual([
      'experts.87.w1',
      'experts.869.w1',
      'experts.870.w1',
    ]);
  });

  it('keeps byte order between a digit and other characters, as a plain sort does', () => {
    // '.' (0x2E) < digits < letters: the natural key must not move a number past either.
    expect(sorted(['a1', 'a.', 'aa'])).toEqual(['a.', 'a1', 'aa']);
    expect(sorted(['layers.1.b', 'layers.1', 'layers.1_x'])).toEqual(['layers.1', 'layers.1.b', 'layers.1_x']);
    expect(sorted(['x9z', 'x10', 'x9'])).toEqual(['x9', 'x9z', 'x10']);
  });

  it('treats leading zeros as the same number and breaks the tie deterministically', () => {
    expect(sorted(['shard-00010', 'shard-00002', 'shard-2'])).toEqual(['shard-00002', 'shard-2', 'shard-00010']);
    expect(compareNatural('a007', 'a7')).not.toBe(0);
    expect(compareNatural('a0', 'a00')).not.toBe(0);
  });

  it('compares numbers longer than 2^53 by their digits', () => {
    expect(sorted(['n.123456789012345678901', 'n.99999999999999999999'])).toEqual([
      'n.99999999999999999999',
      'n.123456789012345678901',
    ]);
  });

  it('orders digit runs of any length, past the one-character length mark', () => {
    const run = (length: number, digit = '1') => digit.repeat(length);
    const names = [`n.${run(130)}`, `n.${run(125, '9')}`, `n.${run(127)}`, `n.${run(126)}`, `n.${run(1000)}`];
    expect(sorted(names)).toEqual([
      `n.${run(125, '9')}`,
      `n.${run(126)}`,
      `n.${run(127)}`,
      `n.${run(130)}`,
      `n.${run(1000)}`,
    ]);
  });

  it('agrees with a tokenizing reference on random names', () => {
    const reference = (a: string, b: string): number => {
      const ta = a.match(/\d+|\D+/g) ?? [];
      const tb = b.match(/\d+|\D+/g) ?? [];
      for (let i = 0; i < Math.min(ta.length, tb.length); i++) {
        const x = ta[i];
        const y = tb[i];
        const xd = /^\d/.test(x);
        const yd = /^\d/.test(y);
        if (xd && yd) {
          const diff = BigInt(x) - BigInt(y);
          if (diff !== 0n) {
            return diff < 0n ? -1 : 1;
          }
          if (x !== y) {
            // Same value, different zero padding: leave to the whole-name tie-break below.
            continue;
          }
        } else if (x !== y) {
          // A digit run against text, or text against text: first differing character decides; a text run that
          // is a prefix of the other meets a digit ('0' stands for any) or the end of its name.
          const xs = !xd && i + 1 < ta.length ? `${x}0` : x;
          const ys = !yd && i + 1 < tb.length ? `${y}0` : y;
          return xs < ys ? -1 : 1;
        }
      }
      if (ta.length !== tb.length) {
        return ta.length - tb.length;
      }
      return a < b ? -1 : a > b ? 1 : 0;
    };
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const alphabet = ['a', 'b', '.', '_', '1', '2', '9', '0', '10', '87', '869'];
    const names = Array.from({ length: 300 }, () =>
      Array.from({ length: 1 + random(6) }, () => alphabet[random(alphabet.length)]).join(''),
    );
    for (let i = 0; i < names.length; i++) {
      for (let j = 0; j < names.length; j++) {
        const ref = Math.sign(reference(names[i], names[j]));
        const ours = Math.sign(compareNatural(names[i], names[j]));
        // Zero-padding tie-breaks may differ in detail; both must agree whenever the numbers differ.
        if (naturalKey(names[i]) !== naturalKey(names[j])) {
          expect([names[i], names[j], ours]).toEqual([names[i], names[j], ref]);
        }
      }
    }
  });

  it('computes keys once per names array', () => {
    const names = ['b.10', 'b.2'];
    expect(naturalKeys(names)).toBe(naturalKeys(names));
  });
});

describe('naturalRowOrder', () => {
  it('orders rows by their names naturally, then by the plain string, then by row', () => {
    const names = ['layers.10', 'layers.2', 'layers.02', 'layers.2', 'a'];
    const rows = [0, 1, 2, 3, 4].sort(naturalRowOrder(names));
    expect(rows).toEqual([4, 2, 1, 3, 0]);
  });
});
