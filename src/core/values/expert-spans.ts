/**
 * Where a piece of a stack of experts falls: a stack [E, …] is E equal slices of `perExpert` values, row-major, and a
 * piece read from element `first` on may end one expert and start the next. One owner of that cut for the scan's, Read
 * values' and Compare values' per-expert sums.
 */

/** Calls `visit(expert, start, end)` for each expert's part of a piece of `length` values from element `first`. */
export function forEachExpertSpan(
  first: number,
  length: number,
  perExpert: number,
  experts: number,
  visit: (expert: number, start: number, end: number) => void,
): void {
  let at = 0;
  while (at < length && perExpert > 0) {
    const expert = Math.floor((first + at) / perExpert);
    if (expert >= experts) {
      return;
    }
    const end = Math.min(length, (expert + 1) * perExpert - first);
    visit(expert, at, end);
    at = end;
  }
}
