/**
 * Rows and columns whose every value is zero (core/values/zero-lines.ts): how many, which, and what such a line is
 * in a weight, which a count of zeros over the whole tensor does not say.
 */
import { groupDigits, plural, pluralWord } from '../../core/number-format';
import type { ZeroLines, ZeroLinesChange } from '../../core/values/zero-lines';
import { rowLabel, runsText } from './runs-text';

/** One line for the scan's list: `5 of 384 rows (3, 10–12, 95), 3 of 176 columns (5, 40–41)`. */
export function zeroLinesSummary({ rowDims, rows, columns }: ZeroLines): string {
  const parts: string[] = [];
  if (rows) {
    parts.push(`${groupDigits(rows.count)} of ${plural(rows.of, 'row')} (${runsText(rows, rowLabel(rowDims))})`);
  }
  if (columns) {
    parts.push(`${groupDigits(columns.count)} of ${plural(columns.of, 'column')} (${runsText(columns, groupDigits)})`);
  }
  return parts.join(', ');
}

/** For "Compare values": `all zeros in B only: 5 of 384 rows (3, 10–12, 95); in A only: 2 of 176 columns (7–8)`. */
export function zeroLinesChangeText({ rowDims, rows, columns }: ZeroLinesChange): string {
  const side = (pick: 'onlyA' | 'onlyB') =>
    zeroLinesSummary({ rowDims, rows: rows?.[pick] ?? null, columns: columns?.[pick] ?? null });
  const [inB, inA] = [side('onlyB'), side('onlyA')];
  return [inB && `all zeros in B only: ${inB}`, inA && `${inB ? 'in' : 'all zeros in'} A only: ${inA}`]
    .filter(Boolean)
    .join('; ');
}

export function ZeroLinesNote({
  zeroLines,
  sampled,
  showRows,
  update = false,
}: {
  zeroLines: ZeroLines;
  sampled: boolean;
  /** The values are a LoRA update ΔW laid out as its weight, not a weight. */
  update?: boolean;
  /** False where another note already names the zero rows (a token embedding's untrained rows). */
  showRows: boolean;
}) {
  const { rowDims, columns } = zeroLines;
  const rows = showRows ? zeroLines.rows : null;
  if (rows === null && columns === null) {
    return null;
  }
  const matrix = rowDims.length === 1;
  return (
    <div className="values-zero-lines" role="note" data-testid="values-zero-lines">
      {rows && (
        <p data-testid="values-zero-rows">
          {groupDigits(rows.count)} of {sampled ? plural(rows.of, 'row read', 'rows read') : plural(rows.of, 'row')}{' '}
          {pluralWord(rows.count, 'is', 'are')} all zeros:{' '}
          <span className="mono">{runsText(rows, rowLabel(rowDims))}</span>.
          {rows.count === rows.of
            ? ' Every value read is zero.'
            : !matrix
              ? ''
              : update
                ? ` The update leaves ${rows.count === 1 ? 'that row of the weight as it was' : 'those rows of the weight as they were'}.`
                : ` In a weight [out, in], ${rows.count === 1 ? 'that output is' : 'those outputs are'} never driven (bias aside): neurons pruned or dead, or bytes never written (a save that stopped early, a download whose missing part was zero-filled).`}
        </p>
      )}
      {columns && (
        <p data-testid="values-zero-columns">
          {groupDigits(columns.count)} of {plural(columns.of, 'column')} {pluralWord(columns.count, 'is', 'are')} zero
          in every row: <span className="mono">{runsText(columns, groupDigits)}</span>.
          {columns.count < columns.of &&
            (update
              ? ` The update leaves ${columns.count === 1 ? 'that column of the weight as it was' : 'those columns of the weight as they were'}.`
              : ` In a weight [out, in], ${columns.count === 1 ? 'that input is' : 'those inputs are'} ignored: the neurons of the layer before that pruning removed, or features it never learned to use.`)}
        </p>
      )}
    </div>
  );
}
