/** The zero-lines note's words: runs, a stacked tensor's rows by index, a sample's rows, a LoRA update's lines. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ZeroLines } from '../../core/values/zero-lines';
import { ZeroLinesNote, zeroLinesChangeText, zeroLinesSummary } from './ZeroLinesNote';

const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/&#x27;/g, "'");

const pruned: ZeroLines = {
  rowDims: [384],
  rows: {
    count: 5,
    of: 384,
    runs: [
      [3, 3],
      [10, 12],
      [95, 95],
    ],
  },
  columns: { count: 1, of: 176, runs: [[40, 40]] },
};

describe('ZeroLinesNote', () => {
  it('a weight: its rows are outputs never driven, its columns inputs ignored', () => {
    const html = text(renderToStaticMarkup(<ZeroLinesNote zeroLines={pruned} sampled={false} showRows />));
    expect(html).toContain('5 of 384 rows are all zeros: 3, 10–12, 95. In a weight [out, in], those outputs are');
    expect(html).toContain('1 of 176 columns is zero in every row: 40. In a weight [out, in], that input is ignored');
  });

  it('a LoRA update: the lines of the weight it leaves as they were', () => {
    const html = text(renderToStaticMarkup(<ZeroLinesNote zeroLines={pruned} sampled={false} showRows update />));
    expect(html).toContain('The update leaves those rows of the weight as they were.');
    expect(html).toContain('The update leaves that column of the weight as it was.');
    expect(html).not.toContain('never driven');
  });

  it('a sample counts the rows read; a stacked tensor names rows by index; listed runs short of the count end in …', () => {
    const stacked: ZeroLines = {
      rowDims: [4, 16],
      rows: { count: 40, of: 48, runs: [[32, 47]] },
      columns: null,
    };
    const html = text(renderToStaticMarkup(<ZeroLinesNote zeroLines={stacked} sampled showRows />));
    expect(html).toContain('40 of 48 rows read are all zeros: [2, 0]–[2, 15], ….');
    expect(html).not.toContain('In a weight');
  });

  it('rows another note names are left to it; with nothing else to say, nothing renders', () => {
    expect(
      renderToStaticMarkup(<ZeroLinesNote zeroLines={{ ...pruned, columns: null }} sampled={false} showRows={false} />),
    ).toBe('');
    expect(
      text(renderToStaticMarkup(<ZeroLinesNote zeroLines={pruned} sampled={false} showRows={false} />)),
    ).not.toContain('rows are');
  });

  it('one line for the scan', () => {
    expect(zeroLinesSummary(pruned)).toBe('5 of 384 rows (3, 10–12, 95), 1 of 176 columns (40)');
  });

  it('a comparison: the lines all zeros on one side only', () => {
    const runs = (count: number, of: number, first: number, last: number) => ({
      count,
      of,
      runs: [[first, last]] as Array<[number, number]>,
    });
    expect(
      zeroLinesChangeText({
        rowDims: [64],
        rows: { onlyB: runs(24, 64, 40, 63), onlyA: null },
        columns: { onlyB: null, onlyA: runs(2, 32, 7, 8) },
      }),
    ).toBe('all zeros in B only: 24 of 64 rows (40–63); in A only: 2 of 32 columns (7–8)');
    expect(zeroLinesChangeText({ rowDims: [64], rows: { onlyB: null, onlyA: runs(1, 64, 3, 3) }, columns: null })).toBe(
      'all zeros in A only: 1 of 64 rows (3)',
    );
  });
});
