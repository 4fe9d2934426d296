/** The line-magnitudes note's words: the spreads, the outliers, the int8 steps, a sample's rows, a LoRA update. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { LineMagnitudes, LineMagnitudeSpread } from '../../core/values/line-magnitudes';
import { LineMagnitudesNote, outlierColumnsChangeText, outlierColumnsSummary } from './LineMagnitudesNote';
import { plainSpaces } from '../../testing/text';

/** Digit groups as plain spaces, so the expectations read as the page does. */

const text = (html: string) =>
  plainSpaces(
    html
      .replace(/<title>[^<]*<\/title>/g, '')
      .replace(/<[^>]+>/g, '')
      .replace(/&#x27;/g, "'")
      .replace(/&amp;/g, '&'),
  );

function spread(figures: Partial<LineMagnitudeSpread>): LineMagnitudeSpread {
  return {
    lines: 512,
    of: 512,
    median: 0.05,
    max: 0.075,
    maxAt: 7,
    outliers: [],
    outlierCount: 0,
    ...figures,
    profile: Array.from({ length: Math.min(240, figures.lines ?? 512) }, () => 0.05),
  };
}

const spreadOut: LineMagnitudes = {
  rowDims: [512],
  rows: spread({
    max: 1.5,
    maxAt: 3,
    outliers: [
      { index: 3, absMax: 1.5 },
      { index: 300, absMax: 0.6 },
    ],
    outlierCount: 2,
  }),
  columns: {
    ...spread({ lines: 256, of: 256, median: 0.4, max: 1.5, maxAt: 49 }),
    rowsPeakingInOutliers: 0,
  },
};

describe('LineMagnitudesNote', () => {
  it('names the rows far above the rest, and what one int8 scale would leave the median row', () => {
    const html = text(
      renderToStaticMarkup(<LineMagnitudesNote magnitudes={spreadOut} dtype="F16" sampled={false} update={false} />),
    );
    expect(html).toContain(
      "Row abs-max (each row's largest |value|): median 0.05 over 512 rows, largest 1.5 in row 3, 30× the median.",
    );
    expect(html).toContain('2 of 512 rows over 10× the median: 3 (1.5, 30×), 300 (0.6, 12×).');
    // 127 × 0.05 / 1.5 = 4.2 steps; log2(30) = 4.9 bits.
    expect(html).toContain('would leave the median row about 4 of the 127 steps on each side of zero (4.9 bits fewer)');
    expect(html).toContain('Column abs-max: median 0.4 over 256 columns, largest 1.5 in column 49, 3.8× the median.');
    expect(html).not.toContain('They hold');
  });

  it('rows close together say nothing of int8; stored integers and a LoRA update never do', () => {
    const close: LineMagnitudes = { rowDims: [512], rows: spread({ max: 0.15 }), columns: null };
    const html = (magnitudes: LineMagnitudes, dtype: string, update: boolean) =>
      text(
        renderToStaticMarkup(
          <LineMagnitudesNote magnitudes={magnitudes} dtype={dtype} sampled={false} update={update} />,
        ),
      );
    expect(html(close, 'BF16', false)).toContain('3.0× the median.');
    expect(html(close, 'BF16', false)).not.toContain('int8');
    expect(html(spreadOut, 'I8', false)).not.toContain('int8');
    expect(html(spreadOut, 'F32', true)).not.toContain('int8');
  });

  it('outlier columns: how many rows peak in them, in a weight and in an update; a sample counts rows read', () => {
    const channels: LineMagnitudes = {
      rowDims: [4, 32],
      rows: spread({ lines: 128, of: 128, median: 0.7, max: 2.6, maxAt: 37 }),
      columns: {
        ...spread({
          lines: 1024,
          of: 1024,
          median: 0.06,
          max: 2.6,
          maxAt: 77,
          outliers: [{ index: 77, absMax: 2.6 }],
          outlierCount: 1,
        }),
        rowsPeakingInOutliers: 96,
      },
    };
    const weight = text(
      renderToStaticMarkup(<LineMagnitudesNote magnitudes={channels} dtype="BF16" sampled update={false} />),
    );
    expect(weight).toContain('median 0.7 over 128 rows read, largest 2.6 in row [1, 5], 3.7× the median.');
    expect(weight).toContain('Column abs-max over the rows read: median 0.06 over 1 024 columns');
    expect(weight).toContain('1 of 1 024 columns over 10× the median: 77 (2.6, 43×).');
    expect(weight).toContain('It holds the largest value of 96 of 128 rows read (75%): in a weight [out, in]');
    const update = text(
      renderToStaticMarkup(<LineMagnitudesNote magnitudes={channels} dtype="F32" sampled={false} update />),
    );
    expect(update).toContain('(75%): inputs the update moves far more than the others.');
  });
});

describe('outlierColumnsSummary', () => {
  it('the scan line: columns, the ratio to the median, and the rows it looked at', () => {
    const columns = {
      ...spread({
        lines: 4096,
        of: 4096,
        median: 0.05,
        max: 2,
        maxAt: 7,
        outliers: [
          { index: 7, absMax: 2 },
          { index: 1200, absMax: 0.9 },
        ],
        outlierCount: 3,
      }),
      rowsPeakingInOutliers: 200,
    };
    const { profile: _profile, ...figures } = columns;
    expect(plainSpaces(outlierColumnsSummary({ rowsRead: 256, rowStride: 16, rows: 4096, columns: figures }))).toBe(
      '3 of 4 096 columns (7, 1 200, …; up to 40× the median 0.05), holding the largest value of 200 of 256 of 4 096 rows read',
    );
    expect(plainSpaces(outlierColumnsSummary({ rowsRead: 128, rowStride: 1, rows: 128, columns: figures }))).toContain(
      'holding the largest value of 200 of 128 rows',
    );
  });
});

describe('outlierColumnsChangeText', () => {
  it("names each side's own outlier columns with their ratio to that side's median, and counts past the list", () => {
    expect(
      plainSpaces(
        outlierColumnsChangeText({
          onlyA: {
            count: 3,
            median: 0.05,
            columns: [
              { index: 77, absMax: 2 },
              { index: 1300, absMax: 0.6 },
            ],
          },
          onlyB: null,
        }),
      ),
    ).toBe(
      "outlier input channels (columns over 10× the median column's abs-max) in A only: 77 (40×), 1 300 (12×), … (3 in all)",
    );
    expect(
      outlierColumnsChangeText({
        onlyA: { count: 1, median: 0.1, columns: [{ index: 4, absMax: 1.25 }] },
        onlyB: { count: 1, median: 0.2, columns: [{ index: 9, absMax: 2.5 }] },
      }),
    ).toBe(
      "outlier input channels (columns over 10× the median column's abs-max) in A only: 4 (13×); in B only: 9 (13×)",
    );
  });
});
