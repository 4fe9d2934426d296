import { describe, expect, it } from 'vitest';
import {
  applyChannelScales,
  ChannelScaleFit,
  fittedScales,
  MAX_SCALED_LINES_LISTED,
  reciprocalPartners,
  type ChannelScales,
  type FittedLines,
} from './channel-scales';
import { present } from '../../testing/values-fixtures';

/** A seeded matrix of weight-like values (xorshift), row-major. */
function weights(rows: number, cols: number, seed = 7): Float64Array {
  let state = seed;
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < out.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = ((state >>> 0) / 2 ** 32 - 0.5) * 0.04;
  }
  return out;
}

function scaled(a: Float64Array, cols: number, factor: (row: number, col: number) => number): Float64Array {
  return a.map((value, i) => value * factor(Math.floor(i / cols), i % cols));
}

function fitOf(shape: number[], a: Float64Array, b: ArrayLike<number>): ChannelScaleFit {
  const fit = new ChannelScaleFit(shape);
  fit.add(a, b, 0);
  return fit;
}

describe('ChannelScaleFit', () => {
  const [rows, cols] = [48, 32];
  const a = weights(rows, cols);

  it('names a whole-tensor factor', () => {
    const found = fitOf(
      [rows, cols],
      a,
      scaled(a, cols, () => 0.125),
    ).result();
    expect(found?.axis).toBe('tensor');
    expect(found?.median).toBeCloseTo(0.125, 12);
    expect(found?.before).toBeCloseTo(0.875, 12);
    expect(found?.after).toBeLessThan(1e-12);
  });

  it('names a factor per column, the furthest from 1 first and a sign flip before any', () => {
    const factors = Array.from({ length: cols }, (_, col) => (col === 3 ? 40 : col === 9 ? 0.01 : col === 20 ? -1 : 1));
    const found = fitOf(
      [rows, cols],
      a,
      scaled(a, cols, (_, col) => factors[col]),
    ).result();
    expect(found?.axis).toBe('columns');
    expect([found?.lines, found?.scaled]).toEqual([cols, 3]);
    expect(found?.extremes.map((line) => line.index)).toEqual([20, 9, 3]);
    expect(found?.extremes[2].factor).toBeCloseTo(40, 10);
    expect([found?.min, found?.max, found?.median]).toEqual([
      expect.closeTo(-1, 10),
      expect.closeTo(40, 10),
      expect.closeTo(1, 10),
    ]);
  });

  it('names a factor per row', () => {
    const found = fitOf(
      [rows, cols],
      a,
      scaled(a, cols, (row) => 1 + row / 10),
    ).result();
    expect(found?.axis).toBe('rows');
    expect([found?.lines, found?.scaled]).toEqual([rows, rows - 1]);
    expect(found?.max).toBeCloseTo(1 + (rows - 1) / 10, 10);
  });

  it('fits the columns of a B far smaller than A, not one factor near zero', () => {
    const found = fitOf(
      [rows, cols],
      a,
      scaled(a, cols, (_, col) => 0.02 + 0.08 * (col % 2)),
    ).result();
    expect(found?.axis).toBe('columns');
    expect(found?.min).toBeCloseTo(0.02, 10);
  });

  it('leaves a pruning (lines scaled to zero alone) to the zero-line note', () => {
    const pruned = fitOf(
      [rows, cols],
      a,
      scaled(a, cols, (_, col) => (col === 3 || col === 8 ? 0 : 1)),
    );
    expect(pruned.result()).toBeNull();
    const mixed = fitOf(
      [rows, cols],
      a,
      scaled(a, cols, (_, col) => (col === 3 ? 0 : col === 8 ? 4 : 1)),
    );
    expect(mixed.result()).toMatchObject({ axis: 'columns', scaled: 2 });
  });

  it('says nothing of a fine-tune, a change under 1 %, or an unchanged tensor', () => {
    const noise = weights(rows, cols, 99);
    const tuned = a.map((value, i) => value + noise[i] * 0.3);
    expect(fitOf([rows, cols], a, tuned).result()).toBeNull();
    expect(
      fitOf(
        [rows, cols],
        a,
        scaled(a, cols, () => 1.005),
      ).result(),
    ).toBeNull();
    expect(fitOf([rows, cols], a, a).result()).toBeNull();
  });

  it('leaves out pairs holding NaN or an infinity', () => {
    const b = scaled(a, cols, (_, col) => (col === 5 ? 3 : 1));
    const withBad = Float64Array.from(a);
    withBad[7] = NaN;
    b[40] = Infinity;
    const found = fitOf([rows, cols], withBad, b).result();
    expect(found?.axis).toBe('columns');
    expect(found?.extremes).toEqual([{ index: 5, factor: expect.closeTo(3, 10) }]);
  });

  it('takes pieces in any order, split anywhere in a row', () => {
    const b = scaled(a, cols, (_, col) => 1 + col / 100);
    const whole = fitOf([rows, cols], a, b).result();
    const pieces = new ChannelScaleFit([rows, cols]);
    for (const [start, end] of [
      [700, a.length],
      [0, 13],
      [13, 700],
    ]) {
      pieces.add(a.subarray(start, end), b.subarray(start, end), start);
    }
    const found = pieces.result();
    expect(found?.axis).toBe('columns');
    // Exact factors: what is left is rounding in the sums, whatever their order.
    expect(found?.after).toBeLessThan(1e-6);
    expect(found?.extremes).toEqual(
      whole?.extremes.map((line) => ({ ...line, factor: expect.closeTo(line.factor, 12) })),
    );
  });

  it('fits columns over the rows read, and not over fewer than eight', () => {
    const b = scaled(a, cols, (_, col) => (col === 2 ? 5 : 1));
    const sample = (count: number) => {
      const fit = new ChannelScaleFit([rows, cols]);
      for (let row = 0; row < count; row++) {
        const at = row * 5 * cols;
        fit.add(a.subarray(at, at + cols), b.subarray(at, at + cols), at);
      }
      return fit.result();
    };
    expect(sample(9)?.axis).toBe('columns');
    expect(sample(9)?.extremes[0].index).toBe(2);
    expect(sample(7)).toBeNull();
  });

  it('gives a vector its element ratios, never a verdict of its own', () => {
    const vector = weights(1, 64).map((value) => 1 + value);
    const fit = fitOf(
      [64],
      vector,
      vector.map((value, i) => value / (i + 1)),
    );
    expect(fit.result()).toBeNull();
    const ratios = fit.elementFactors();
    expect(ratios?.scales.axis).toBe('elements');
    expect(ratios?.lines.factors[9]).toBeCloseTo(0.1, 12);
    expect(ratios?.scales.extremes).toHaveLength(MAX_SCALED_LINES_LISTED);
  });
});

describe('reciprocal factors', () => {
  const s = Float64Array.from({ length: 16 }, (_, i) => 1 + i);
  const inverse = s.map((value) => 1 / value);
  const lines = (tensor: string, axis: FittedLines['axis'], factors: Float64Array, error = 0): FittedLines => ({
    tensor,
    axis,
    factors,
    errors: new Float64Array(factors.length).fill(error),
  });

  it('pairs columns with the elements or rows that carry their inverse, both ways', () => {
    const partners = reciprocalPartners([
      lines('q', 'columns', s),
      lines('k', 'columns', s),
      lines(
        'norm',
        'elements',
        inverse.map((value) => value * 1.004),
      ),
      lines('up', 'rows', inverse),
      lines('other', 'elements', s),
    ]);
    expect(partners.get('q')).toEqual(['norm', 'up']);
    expect(partners.get('norm')).toEqual(['q', 'k']);
    expect(partners.has('other')).toBe(false);
  });

  it('needs a line scaled, skips lines without a factor, and refuses a product off 1 by over 1 %', () => {
    const ones = new Float64Array(16).fill(1);
    expect(reciprocalPartners([lines('a', 'columns', ones), lines('b', 'elements', ones)]).size).toBe(0);
    const gaps = Float64Array.from(inverse);
    gaps[3] = NaN;
    const off = Float64Array.from(inverse);
    off[5] *= 1.02;
    const partners = reciprocalPartners([
      lines('a', 'columns', s),
      lines('gaps', 'rows', gaps),
      lines('off', 'rows', off),
    ]);
    expect(partners.get('a')).toEqual(['gaps']);
  });

  it('allows four standard errors of the two fits on top of the 1 %', () => {
    const off = inverse.map((value, i) => (i === 5 ? value * 1.05 : value));
    const fitted = (error: number) => [lines('a', 'columns', s, error), lines('b', 'rows', off, error)];
    expect(reciprocalPartners(fitted(0.006)).get('a')).toEqual(['b']);
    expect(reciprocalPartners(fitted(0.004)).has('a')).toBe(false);
  });

  it('shows a vector only with its partner, and each side with the other', () => {
    const [rows, cols] = [16, 16];
    const a = weights(rows, cols);
    const norm = Float64Array.from({ length: cols }, () => 1);
    const matrix = fitOf(
      [rows, cols],
      a,
      scaled(a, cols, (_, col) => s[col]),
    );
    const vector = fitOf([cols], norm, inverse);
    const lone = fitOf(
      [cols],
      norm,
      norm.map((_, i) => 1 + i / 50),
    );
    const into: Array<{ channelScales?: ChannelScales }> = [{}, {}, {}];
    applyChannelScales([
      { into: into[0], fit: present(fittedScales(matrix, 'q')) },
      { into: into[1], fit: present(fittedScales(vector, 'norm')) },
      { into: into[2], fit: present(fittedScales(lone, 'lone')) },
    ]);
    expect(into[0].channelScales?.reciprocalIn).toEqual(['norm']);
    expect(into[1].channelScales).toMatchObject({ axis: 'elements', reciprocalIn: ['q'] });
    expect(into[2].channelScales).toBeUndefined();
  });
});
