import { describe, expect, it } from 'vitest';
import type { ChannelScales } from '../../core/values/channel-scales';
import { channelScalesText, scalingSummary } from './channel-scales-text';
import { plainSpaces } from '../../testing/text';

const columns: ChannelScales = {
  axis: 'columns',
  before: 8.633,
  after: 0.000172,
  lines: 64,
  scaled: 64,
  min: 3.77,
  max: 52.31,
  median: 8.1,
  extremes: [7, 40, 3, 12, 60, 1].map((index, i) => ({ index, factor: 52.31 / (i + 1) })),
};

describe('channelScalesText', () => {
  it('says what one factor multiplies, the range, the lines scaled most and what the fit leaves', () => {
    expect(plainSpaces(channelScalesText(columns))).toBe(
      'B = A · diag(s): 64 of 64 input channels (columns) scaled, s from 3.77 to 52.31 (median 8.1); most: 7 ' +
        '(×52.31), 40 (×26.16), 3 (×17.44), 12 (×13.08), 60 (×10.46), …; relative L2 left after the fit 1.72e-4 ' +
        '(8.633 before). As SmoothQuant or AWQ scales a weight’s input channels, or a norm’s weight is folded into them.',
    );
  });

  it('names who undoes it', () => {
    expect(channelScalesText({ ...columns, reciprocalIn: ['model.norm.weight'] })).toMatch(
      /before\)\. Undone by model\.norm\.weight, which carries 1 \/ s line for line: together they compute what they did before, up to rounding\.$/,
    );
    const rows = { ...columns, axis: 'rows' as const, scaled: 2, extremes: columns.extremes.slice(0, 2) };
    expect(plainSpaces(channelScalesText({ ...rows, reciprocalIn: ['down', 'other'] }))).toMatch(
      /^B = diag\(s\) · A: 2 of 64 output channels \(rows\) scaled, .*; most: 7 \(×52\.31\), 40 \(×26\.16\); .* Undone by down, other, which carry 1/,
    );
    expect(channelScalesText(rows)).toMatch(/before\)\.$/);
  });

  it('gives a whole-tensor factor as B = s × A', () => {
    const tensor: ChannelScales = {
      ...columns,
      axis: 'tensor',
      lines: 1,
      scaled: 1,
      min: 0.125,
      max: 0.125,
      median: 0.125,
      extremes: [],
    };
    expect(channelScalesText({ ...tensor, before: 0.875, after: 0 })).toBe(
      'B = 0.125 × A: one factor scales the whole tensor (a constant folded in, such as an attention’s 1/√d), relative L2 left after the fit 0 (0.875 before).',
    );
  });
});

describe('scalingSummary', () => {
  it('counts the scaled tensors and those undone', () => {
    expect(plainSpaces(scalingSummary([{}, { channelScales: columns }]) ?? '')).toMatch(
      /^1 tensor changed by scaling alone: one factor for the whole tensor or one per channel \(below, under each name\)\. SmoothQuant/,
    );
    expect(
      scalingSummary([{ channelScales: columns }, { channelScales: { ...columns, reciprocalIn: ['x'] } }]),
    ).toContain(
      '2 tensors changed by scaling alone: one factor for the whole tensor or one per channel (below, under each name), of which 1 is undone by',
    );
    expect(scalingSummary([{}])).toBeNull();
  });
});
