/** Small text helpers shared by the shard modules' finding messages. */
import { MAX_NAMES_IN_MESSAGE } from './shard-limits';

/** 1234567 → "1,234,567": finding messages quote byte counts that are otherwise unreadable. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** "a", "b", "c" and 7 more: quotes the first few names and says how many were left out. */
export function quoteNames(names: readonly string[], total = names.length): string {
  const shown = names.slice(0, MAX_NAMES_IN_MESSAGE).map((name) => JSON.stringify(name));
  const rest = total - shown.length;
  return rest > 0 ? `${shown.join(', ')} and ${formatCount(rest)} more` : shown.join(', ');
}

/** [1, 2, 3, 7, 9, 10] → "1–3, 7, 9–10": missing shard numbers stay readable when hundreds are missing. */
export function formatRanges(sortedNumbers: readonly number[], maxRanges = 20): string {
  const ranges: string[] = [];
  let i = 0;
  while (i < sortedNumbers.length && ranges.length < maxRanges) {
    let j = i;
    while (j + 1 < sortedNumbers.length && sortedNumbers[j + 1] === sortedNumbers[j] + 1) {
      j++;
    }
    ranges.push(i === j ? String(sortedNumbers[i]) : `${sortedNumbers[i]}–${sortedNumbers[j]}`);
    i = j + 1;
  }
  return i < sortedNumbers.length ? `${ranges.join(', ')}, …` : ranges.join(', ');
}

/** "1 tensor" / "3 tensors". */
export function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}
