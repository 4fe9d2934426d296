/**
 * "Compare values" of a tensor whose change is a scaling (core/values/channel-scales.ts), in words: what one factor
 * multiplies, how far the factors run, the lines scaled most, what the fit leaves, and the tensors that undo it.
 */
import { formatValue, groupDigits, plural } from '../../core/number-format';
import type { ChannelScales, ScaleAxis } from '../../core/values/channel-scales';

/** Lines named in the note; the report has up to MAX_SCALED_LINES_LISTED. */
const LINES_NAMED = 5;

const LINE_WORDS: Record<Exclude<ScaleAxis, 'tensor'>, { formula: string; one: string; many: string }> = {
  columns: { formula: 'B = A · diag(s)', one: 'input channel (column)', many: 'input channels (columns)' },
  rows: { formula: 'B = diag(s) · A', one: 'output channel (row)', many: 'output channels (rows)' },
  elements: { formula: 'b = s ⊙ a', one: 'element', many: 'elements' },
};

/**
 * `B = A · diag(s): 64 of 64 input channels (columns) scaled, s from 3.77 to 52.31 (median 8.1); most: 7 (×52.31),
 * 40 (×31.2), …; relative L2 left after the fit 1.72e-4 (8.633 before). Undone by model.norm.weight, …`
 */
export function channelScalesText(scales: ChannelScales): string {
  const left = `relative L2 left after the fit ${formatValue(scales.after)} (${formatValue(scales.before)} before)`;
  if (scales.axis === 'tensor') {
    return (
      `B = ${formatValue(scales.median)} × A: one factor scales the whole tensor (a constant folded in, such as an ` +
      `attention’s 1/√d), ${left}.`
    );
  }
  const words = LINE_WORDS[scales.axis];
  const named = scales.extremes
    .slice(0, LINES_NAMED)
    .map((line) => `${groupDigits(line.index)} (×${formatValue(line.factor)})`);
  const more = scales.scaled > named.length ? ', …' : '';
  const why = scales.reciprocalIn
    ? ` Undone by ${scales.reciprocalIn.join(', ')}, which ${scales.reciprocalIn.length === 1 ? 'carries' : 'carry'} ` +
      '1 / s line for line: together they compute what they did before, up to rounding.'
    : scales.axis === 'columns'
      ? ' As SmoothQuant or AWQ scales a weight’s input channels, or a norm’s weight is folded into them.'
      : '';
  return (
    `${words.formula}: ${groupDigits(scales.scaled)} of ${plural(scales.lines, words.one, words.many)} scaled, ` +
    `s from ${formatValue(scales.min)} to ${formatValue(scales.max)} (median ${formatValue(scales.median)}); ` +
    `most: ${named.join(', ')}${more}; ${left}.${why}`
  );
}

/**
 * The line above the table: `5 tensors changed by scaling alone (below, under each name), of which 4 are undone by
 * another's reciprocal factors`; null when none.
 */
export function scalingSummary(entries: ReadonlyArray<{ channelScales?: ChannelScales }>): string | null {
  const scaled = entries.filter((entry) => entry.channelScales);
  if (scaled.length === 0) {
    return null;
  }
  const undone = scaled.filter((entry) => entry.channelScales?.reciprocalIn).length;
  const pairs =
    undone > 0
      ? `, of which ${groupDigits(undone)} ${undone === 1 ? 'is' : 'are'} undone by another's reciprocal factors ` +
        '(the model computes what it computed before, up to rounding)'
      : '';
  return (
    `${plural(scaled.length, 'tensor')} changed by scaling alone: one factor for the whole tensor or one per channel ` +
    `(below, under each name)${pairs}. SmoothQuant and AWQ move a range between two tensors so; a norm folded into ` +
    'a linear, or a constant into a projection, also scales.'
  );
}
