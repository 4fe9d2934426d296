/**
 * "Compare values" of a matrix whose change uses few directions (core/values/change-rank.ts), in words: its rank and
 * how sharply the singular values fall after it; and for the comparison, how many changed matrices are such.
 */
import { groupDigits, plural } from '../../core/number-format';
import { median } from '../../core/median';
import { MIN_OVER_ROUNDING, type ChangeRank } from '../../core/values/change-rank';
import type { ValueComparison } from '../../core/values/compare-values';
import { layerParts } from '../../core/values/layer-names';
import { rowsReadText } from './runs-text';

/** Targets named in the line above the table, most tensors first. */
const TARGETS_NAMED = 8;

/**
 * `self_attn.q_proj (32), self_attn.v_proj (32)`: what the low-rank updates adapt, by the name within the layer
 * (a LoRA's target modules), with how many layers each.
 */
function targetsText(entries: readonly ValueComparison[]): string {
  const counts = new Map<string, number>();
  for (const { tensor } of entries) {
    const target = (layerParts(tensor)?.rest ?? tensor).replace(/\.weight$/, '');
    counts.set(target, (counts.get(target) ?? 0) + 1);
  }
  const sorted = [...counts.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
  const named = sorted.slice(0, TARGETS_NAMED).map(([target, count]) => `${target} (${groupDigits(count)})`);
  return named.join(', ') + (sorted.length > named.length ? ', …' : '');
}

function timesText(ratio: number): string {
  return `${ratio < 100 ? ratio.toFixed(1) : groupDigits(Math.round(ratio))}×`;
}

/**
 * `ΔW = B − A over 128 of 512 rows has rank 8 over the rounding: its 8th singular value is 31× the largest that
 * rounding B to its dtype leaves, and all under it is rounding.`; null when not low-rank.
 */
export function changeRankText(rank: ChangeRank): string | null {
  if (rank.lowRank === null) {
    return null;
  }
  const { rank: r, aboveFloor } = rank.lowRank;
  return (
    `ΔW = B − A over ${rowsReadText(rank.rowsRead, rank.rows)} has rank ${groupDigits(r)} over the rounding: its ${ordinal(r)} singular ` +
    `value is ${timesText(aboveFloor)} the largest that rounding B to its dtype leaves, and all under it is rounding.`
  );
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${groupDigits(n)}${suffix}`;
}

/**
 * The line above the table: how many changed matrices are low-rank updates and at which ranks (a merged LoRA), or,
 * when none is and both sides store the same dtype, that none is (not a merged LoRA); null otherwise.
 */
export function changeRankSummary(changed: readonly ValueComparison[]): string | null {
  // A tensor changed by scaling alone changes in every direction and says why in its own note; a change too close
  // to the rounding of its values tells no rank.
  const ranked = changed.filter(
    (entry) => entry.changeRank && !entry.channelScales && (entry.changeRank.overRounding ?? 0) >= MIN_OVER_ROUNDING,
  );
  const low = ranked.filter((entry) => entry.changeRank?.lowRank);
  const close = changed.filter(
    (entry) => entry.changeRank && !entry.channelScales && (entry.changeRank.overRounding ?? 0) < MIN_OVER_ROUNDING,
  ).length;
  const untold =
    close > 0
      ? ` ${groupDigits(close)} more ${close === 1 ? 'is' : 'are'} too close to the rounding of the stored values to tell.`
      : '';
  if (low.length > 0) {
    const byRank = new Map<number, number>();
    for (const entry of low) {
      const r = entry.changeRank?.lowRank?.rank ?? 0;
      byRank.set(r, (byRank.get(r) ?? 0) + 1);
    }
    const ranks = [...byRank.entries()]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .map(([r, count]) => `${groupDigits(count)} of rank ${groupDigits(r)}`)
      .join(', ');
    const others = ranked.length - low.length;
    const are = low.length === 1 ? 'is a low-rank update' : 'are low-rank updates';
    const rest =
      others > 0
        ? `; ${groupDigits(others)} ${others === 1 ? 'other changes' : 'others change'} in more directions.`
        : '.';
    return (
      `${groupDigits(low.length)} of ${plural(ranked.length, 'changed matrix', 'changed matrices')} ${are} ` +
      `(${ranks}) in ${targetsText(low)}: B − A takes that many directions and leaves only rounding, as when a LoRA ` +
      `is merged into them (one whose weaker directions sank into the rounding shows fewer)${rest}${untold}`
    );
  }
  if (ranked.length === 0 || ranked.some((entry) => entry.identicalBy !== 'bytes')) {
    return null;
  }
  const needed = median(ranked.map((entry) => entry.changeRank?.directions90 ?? 0)) ?? 0;
  const of = median(ranked.map((entry) => entry.changeRank?.directions ?? 0)) ?? 0;
  const besides = changed.some((entry) => entry.changeRank && entry.channelScales) ? ' not scaled' : '';
  const subject =
    ranked.length === 1
      ? `The changed matrix${besides} is not a low-rank update: 90 % of its change takes`
      : `None of the ${plural(ranked.length, 'changed matrix', 'changed matrices')}${besides} is a low-rank update: ` +
        '90 % of each change takes a median of';
  return (
    `${subject} ${groupDigits(Math.round(needed))} of ${groupDigits(Math.round(of))} directions, as training every ` +
    `weight leaves, not a merged LoRA of rank up to ${groupDigits(Math.floor(of / 2))}.${untold}`
  );
}
