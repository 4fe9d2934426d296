/**
 * Where the NaN and infinities among the values read are (core/values/non-finite-positions.ts): how many rows hold
 * one, the rows themselves when the first positions cover them all, and the first positions with their kinds.
 */
import { groupDigits, plural } from '../../core/number-format';
import type { NonFinitePositions } from '../../core/values/non-finite-positions';
import { inlineTokens } from './token-lists';

/** An element's or a row's index per dimension: `[17, 3]`. */
export const positionText = (at: readonly number[]) => `[${at.join(', ')}]`;

/** The distinct rows (every index but the last) of the first positions, and whether those are all that hold one. */
function firstRows({ first, rows }: NonFinitePositions): { keys: string[]; all: boolean } {
  // A row is every index but the last: a matrix's row, a token embedding's token id, a kernel's output channel.
  const keys = [...new Set(first.map(({ at }) => positionText(at.slice(0, -1))))];
  return { keys, all: rows !== null && keys.length === rows && first[0].at.length > 1 };
}

/**
 * Where they are, in words: ` in row [17] of 512: every value of that row`, ` in 3 of 300 rows`, or '' for a tensor of
 * one row. `total`: how many there are; `rowLength`: values per row (the tensor's last dimension).
 */
export function nonFiniteWhere(nonFinite: NonFinitePositions, total: number, rowLength: number): string {
  const { rows, ofRows } = nonFinite;
  // Whole rows broken (a token whose embedding is all NaN) read differently from values spread through the tensor.
  const wholeRows = rows !== null && ofRows > 1 && total === rows * rowLength;
  const { keys: rowKeys, all: rowsNamed } = firstRows(nonFinite);
  const where =
    ofRows <= 1
      ? ''
      : rows === null
        ? ` in rows of ${groupDigits(ofRows)}`
        : rowsNamed
          ? ` in ${rows === 1 ? 'row' : 'rows'} ${rowKeys.join(', ')} of ${groupDigits(ofRows)}`
          : ` in ${groupDigits(rows)} of ${plural(ofRows, 'row')}`;
  return where + (wholeRows ? (rows === 1 ? ': every value of that row' : ': every value of those rows') : '');
}

/** The first positions and kinds as text: `[3, 1] NaN, [7, 0] +Inf`. */
function nonFinitePositionsText(first: NonFinitePositions['first']): string {
  return first.map(({ at, kind }) => `${positionText(at)} ${kind}`).join(', ');
}

export function NonFiniteNote({
  nonFinite,
  total,
  rowLength,
  sampled,
}: {
  nonFinite: NonFinitePositions;
  total: number;
  /** Values per row: the tensor's last dimension. */
  rowLength: number;
  sampled: boolean;
}) {
  const { first } = nonFinite;
  const rowsNamed = firstRows(nonFinite).all;
  const tokens = nonFinite.tokens;
  return (
    <div className="values-error" role="note" data-testid="values-non-finite">
      <p>
        {plural(total, 'non-finite value')}
        {nonFiniteWhere(nonFinite, total, rowLength)}
        {sampled ? ' (among the rows read)' : ''}. First, in element order
        {first.length < total ? ` (${first.length} of ${groupDigits(total)})` : ''}:
      </p>
      <p className="mono values-inline-list" data-testid="values-non-finite-first">
        {nonFinitePositionsText(first)}
      </p>
      {tokens && (
        <p data-testid="values-non-finite-tokens">
          {rowsNamed ? 'The tokens of those rows' : 'Tokens of the first rows'} ({tokens.origin}):{' '}
          {inlineTokens(tokens.texts, tokens.texts.length, tokens.texts.length)}.
        </p>
      )}
    </div>
  );
}
