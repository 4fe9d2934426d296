/**
 * "Compare values" of a stack of experts (core/values/expert-changes.ts) in words: which experts changed and by how
 * much under the tensor's name, above the table how many expert slices of all the stacks changed, and the expert
 * map's summary, rows and cells (core/values/expert-map.ts).
 */
import { formatPercent, formatValue, groupDigits, plural, pluralWord } from '../../core/number-format';
import type { ValueComparison } from '../../core/values/compare-values';
import type { ExpertChange, ExpertChanges } from '../../core/values/expert-changes';
import type { ExpertChangeMap } from '../../core/values/expert-map';
import type { ExpertBar } from './ExpertStrip';

/** Changed experts named under a tensor, most changed first; the strip beside the words shows them all. */
const EXPERTS_NAMED = 6;

/** Ranks experts by their relative change; one whose A is all zeros (no relative figure) first. */
function changeOf(expert: ExpertChange): number {
  return expert.relL2 ?? Infinity;
}

/**
 * `#5 0.0312`, `#7 0.119 (5.2% of values)`, or for an expert that differs with no distance, `#3 only signed zeros or
 * NaN/±Inf differ` (a −0 for a +0, a NaN where the other side has a number: left out of the sums).
 */
function expertText(expert: ExpertChange): string {
  if (expert.relL2 === 0) {
    return `#${expert.expert} only signed zeros or NaN/±Inf differ`;
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
 * when every one changed, `all 8 experts changed, relative L2 from 0.002 (#0) to 0.016 (#7): #7 0.016, …`; of a
 * remote row sample, said to be over it.
 */
export function expertChangesText(changes: ExpertChanges, sampled = false): string {
  return changedExpertsText(changes, sampled) + scaledExpertsText(changes.read);
}

/** `; scaled as a whole: #1 × 0.5, #4 × 1.25` for experts whose B is A times one factor; empty when none is. */
function scaledExpertsText(read: readonly ExpertChange[]): string {
  const scaled = read.filter((expert) => expert.scale !== null);
  if (scaled.length === 0) {
    return '';
  }
  const named = scaled.slice(0, EXPERTS_NAMED).map((expert) => `#${expert.expert} × ${formatValue(expert.scale)}`);
  const more = scaled.length > named.length ? `, and ${groupDigits(scaled.length - named.length)} more` : '';
  return `; ${scaled.length === 1 ? 'one' : groupDigits(scaled.length)} of them A's values times one factor: ${named.join(', ')}${more}`;
}

function changedExpertsText({ experts, read, unchanged }: ExpertChanges, sampled: boolean): string {
  const changed = read.filter((expert) => expert.changedShare > 0).sort((x, y) => changeOf(y) - changeOf(x));
  const of =
    (sampled ? 'over the rows sampled, ' : '') +
    (read.length < experts ? `of the ${groupDigits(read.length)} experts of ${groupDigits(experts)} read, ` : '');
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

/** Expert numbers listed per layer before the rest are counted. */
const MAP_EXPERTS_LISTED = 16;

function expertList(experts: readonly number[]): string {
  const listed = experts.slice(0, MAP_EXPERTS_LISTED).map((expert) => `#${expert}`);
  return (
    listed.join(', ') +
    (experts.length > listed.length ? `, … ${groupDigits(experts.length - listed.length)} more` : '')
  );
}

/**
 * `26 layers × 64 experts: 156 of 1,664 compared changed (9.38%), 1,508 bit for bit the same; 4–8 per layer.`, or
 * when every expert compared changed, says so.
 */
export function expertMapSummary(map: ExpertChangeMap): string {
  const compared = map.changedCells + map.unchangedCells;
  const head = `${plural(map.layers.length, 'layer')} × ${plural(map.experts, 'expert')}`;
  if (map.unchangedCells === 0) {
    return `${head}: every one of the ${groupDigits(compared)} compared changed.`;
  }
  const perLayer = map.layers.map((_, row) => expertsOfLayer(map, row).changed.length);
  const [least, most] = [Math.min(...perLayer), Math.max(...perLayer)];
  return (
    `${head}: ${groupDigits(map.changedCells)} of ${groupDigits(compared)} compared changed ` +
    `(${formatPercent(map.changedCells, compared)}), ${groupDigits(map.unchangedCells)} bit for bit the same; ` +
    `${least === most ? groupDigits(least) : `${groupDigits(least)}–${groupDigits(most)}`} changed per layer` +
    (map.sampled ? ', over the rows sampled from tensors past the whole-read limit.' : '.')
  );
}

/** The experts of row `row` that changed and that kept every value. */
export function expertsOfLayer(map: ExpertChangeMap, row: number): { changed: number[]; same: number[] } {
  const changed: number[] = [];
  const same: number[] = [];
  for (let expert = 0; expert < map.experts; expert++) {
    const cell = map.changed[row * map.experts + expert];
    if (cell !== null) {
      (cell ? changed : same).push(expert);
    }
  }
  return { changed, same };
}

/** `2 of 8 changed: #2, #5`, or where most changed, `7 of 8 changed, all but #3`. */
export function layerExpertsText(map: ExpertChangeMap, row: number): string {
  const { changed, same } = expertsOfLayer(map, row);
  const of = `${groupDigits(changed.length)} of ${groupDigits(changed.length + same.length)} changed`;
  if (changed.length === 0) {
    return `none of ${groupDigits(same.length)} changed`;
  }
  return same.length > 0 && same.length < changed.length
    ? `${of}, all but ${expertList(same)}`
    : `${of}: ${expertList(changed)}`;
}

/** What one cell holds, for the map's pointer readout. */
export function expertCellText(map: ExpertChangeMap, row: number, expert: number): string {
  const { stack, layer } = map.layers[row];
  const at = row * map.experts + expert;
  const where = `${stack}${layer}, expert ${expert}`;
  const changed = map.changed[at];
  if (changed === null) {
    return `${where}: not compared`;
  }
  return changed
    ? `${where}: changed, relative L2 ${formatValue(map.relL2[at])} (the largest of its tensors)`
    : `${where}: every value bit for bit the same`;
}

/** The strip of a compared stack: each expert's relative change against the most changed one. */
export function expertChangeBars({ read }: ExpertChanges): ExpertBar[] {
  const top = Math.max(0, ...read.map((expert) => expert.relL2 ?? 0));
  return read.map((expert) => {
    const changed = expert.changedShare > 0;
    return {
      expert: expert.expert,
      height: !changed ? null : expert.relL2 === null ? 1 : top > 0 ? expert.relL2 / top : 0,
      marked: changed,
      title: changed
        ? `expert ${expert.expert}: relative L2 ${formatValue(expert.relL2)}, ${formatPercent(expert.changedShare, 1)} of values changed`
        : `expert ${expert.expert}: bit for bit the same`,
    };
  });
}
