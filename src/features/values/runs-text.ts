/** Index runs (rows, columns, token ids) as the value views write them. */
import { groupDigits } from '../../core/number-format';

/** Index runs as text (`3, 10–12, 95`), each index through `label`, `…` when the runs listed are not all of them. */
export function runsText(
  { runs, count }: { runs: ReadonlyArray<readonly [number, number]>; count: number },
  label: (index: number) => string = groupDigits,
): string {
  const listed = runs.reduce((sum, [first, last]) => sum + last - first + 1, 0);
  const text = runs.map(([first, last]) => (first === last ? label(first) : `${label(first)}–${label(last)}`));
  return text.join(', ') + (listed < count ? ', …' : '');
}
