/** Index runs (rows, columns, token ids) as the value views write them. */
import { groupDigits, plural } from '../../core/number-format';
import { indexIn } from '../../core/values/non-finite-positions';

/** Index runs as text (`3, 10–12, 95`), each index through `label`, `…` when the runs listed are not all of them. */
export function runsText(
  { runs, count }: { runs: ReadonlyArray<readonly [number, number]>; count: number },
  label: (index: number) => string = groupDigits,
): string {
  const listed = runs.reduce((sum, [first, last]) => sum + last - first + 1, 0);
  const text = runs.map(([first, last]) => (first === last ? label(first) : `${label(first)}–${label(last)}`));
  return text.join(', ') + (listed < count ? ', …' : '');
}

/**
 * `128 of 4,096 rows` when a sample of the rows was looked at, else `4,096 rows`; `suffix` follows the first form only
 * (`read`).
 */
export function rowsReadText(rowsRead: number, rows: number, suffix = ''): string {
  return rowsRead < rows ? `${groupDigits(rowsRead)} of ${plural(rows, 'row')}${suffix}` : plural(rows, 'row');
}

/** A row by its index: a matrix's as a number, a row of a 3-D or larger tensor as its index per leading dimension. */
export function rowLabel(rowDims: readonly number[]): (row: number) => string {
  return rowDims.length === 1 ? groupDigits : (row) => `[${indexIn(rowDims, row).join(', ')}]`;
}
