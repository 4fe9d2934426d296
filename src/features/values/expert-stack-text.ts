/**
 * What "Scan all values" found in a stack of experts (core/values/expert-stack-scan.ts), in words, one line per
 * stack: `expert 3 all zeros; expert 4 holds NaN or ±Inf; experts 2 and 5 hold the same values; expert 7's RMS 50×
 * the stack's median (0.0201)`.
 */
import { formatValue, groupDigits } from '../../core/number-format';
import { MAX_EXPERTS_LISTED, type ExpertStackFigures } from '../../core/values/expert-stack-scan';

/** `expert 3`, `experts 2, 5 and 7`, at most MAX_EXPERTS_LISTED named. */
export function expertsText(experts: readonly number[]): string {
  const listed = experts.slice(0, MAX_EXPERTS_LISTED);
  const words =
    listed.length === 1
      ? `expert ${listed[0]}`
      : `experts ${listed.slice(0, -1).join(', ')} and ${listed[listed.length - 1]}`;
  return experts.length > listed.length ? `${words} (of ${groupDigits(experts.length)})` : words;
}

export function expertStackText(stack: ExpertStackFigures): string {
  const parts: string[] = [];
  if (stack.zeroExperts.length > 0) {
    parts.push(`${expertsText(stack.zeroExperts)} all zeros`);
  }
  if (stack.nonFiniteExperts.length > 0) {
    parts.push(
      `${expertsText(stack.nonFiniteExperts)} ${stack.nonFiniteExperts.length === 1 ? 'holds' : 'hold'} NaN or ±Inf`,
    );
  }
  for (const group of stack.copies) {
    parts.push(
      group.length === stack.experts
        ? `all ${groupDigits(stack.experts)} experts hold the same values (an upcycled layer whose experts never diverged, or one expert copied into every slot)`
        : `${expertsText(group)} hold the same values`,
    );
  }
  for (const { expert, ratio } of stack.rmsOutliers.slice(0, MAX_EXPERTS_LISTED)) {
    parts.push(`expert ${expert}'s RMS ${formatValue(ratio)}× the stack's median (${formatValue(stack.medianRms)})`);
  }
  return parts.join('; ');
}
