/**
 * "Compare values" of a stack of experts (core/values/expert-changes.ts) in words: which experts changed and by how
 * much under the tensor's name, and above the table how many expert slices of all the stacks changed.
 */
import { formatPercent, formatValue, groupDigits, plural, pluralWord } from '../../core/number-format';
import type { ValueComparison } from '../../core/values/compare-values';
import type { ExpertChange, ExpertChanges } from '../../core/values/expert-changes';

/** Changed experts named under a tensor, most changed first; the strip beside the words shows them all. */
const EXPERTS_NAMED = 6;

/** Ranks experts by their relative change; one whose A is all zeros (no relative figure) by its max |b − a|. */
function changeOf(expert: ExpertChange): number {
  return expert.relL2 ?? Infinity;
}

/** `#5 0.0312`, `#7 0.119 (5.2% of values)`, `#3 −0 against +0 only`. */
function expertText(expert: ExpertChange): string {
  if (expert.relL2 === 0) {
    return `#${expert.expert} −0 against +0 only`;
  }
  const share = expert.changedShare < 0.995 ? ` (${formatPercent(expert.changedShare, 1)} of values)` : '';
  return `#${expert.expert} ${formatValue(expert.relL2)}${share}`;
}

function namedText(experts: readonly ExpertChange[]): string {
  const named = experts.slice(0, EXPERTS_NAMED).map(expertText);
  return (
    named.join(', ') + (experts.length > named.length ? `, and ${groupDigits(experts.length - named.length)} more` : '')
  );
}

/**
 * Under the tensor: `2 of 8 experts changed, 6 bit for bit the same; relative L2 of each: #2 0.0502, #5 0.0101`, or
 * when every one changed, `all 8 experts changed, relative L2 from 0.002 (#0) to 0.016 (#7): #7 0.016, …`.
 */
export function expertChangesText({ experts, read, unchanged }: ExpertChanges): string {
  const changed = read.filter((expert) => expert.changedShare > 0).sort((x, y) => changeOf(y) - changeOf(x));
  const of =
    read.length < experts ? `of the ${groupDigits(read.length)} experts of ${groupDigits(experts)} read, ` : '';
  if (unchanged > 0) {
    return (
      `${of}${groupDigits(changed.length)} of ${plural(read.length, 'expert')} changed, ` +
      `${groupDigits(unchanged)} bit for bit the same; relative L2 of each: ${namedText(changed)}`
    );
  }
  const least = changed[changed.length - 1];
  const most = changed[0];
  const range =
    most.relL2 !== null && least.relL2 !== null
      ? `, relative L2 from ${formatValue(least.relL2)} (#${least.expert}) to ${formatValue(most.relL2)} (#${most.expert})`
      : '';
  return `${of}${read.length < experts ? 'every one' : `all ${groupDigits(read.length)} experts`} changed${range}: ${namedText(changed)}`;
}

/**
 * Above the table, when some stack kept experts as they were: `In 3 stacked-expert tensors, 5 of 24 expert slices
 * changed and 19 are bit for bit the same: …`; null when no changed tensor stacks experts, or every slice changed.
 */
export function expertChangesSummary(changed: readonly ValueComparison[]): string | null {
  const stacks = changed.flatMap((entry) => (entry.experts ? [entry.experts] : []));
  const slices = stacks.reduce((sum, stack) => sum + stack.read.length, 0);
  const same = stacks.reduce((sum, stack) => sum + stack.unchanged, 0);
  if (same === 0) {
    return null;
  }
  return (
    `In ${plural(stacks.length, 'changed stacked-expert tensor')}, ${groupDigits(slices - same)} of ` +
    `${plural(slices, 'expert slice')} changed and ${groupDigits(same)} ${pluralWord(same, 'is', 'are')} bit for ` +
    'bit the same (under each name, which): a fine-tune that trained only the experts its data routes to, as ' +
    'expert-specialized fine-tuning (ESFT) does, or a merge that took some experts from another model.'
  );
}
