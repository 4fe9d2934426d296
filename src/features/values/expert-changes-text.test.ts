import { describe, expect, it } from 'vitest';
import type { ValueComparison } from '../../core/values/compare-values';
import type { ExpertChange, ExpertChanges } from '../../core/values/expert-changes';
import type { ExpertChangeMap } from '../../core/values/expert-map';
import {
  expertCellText,
  expertChangesSummary,
  expertChangesText,
  expertMapSummary,
  layerExpertsText,
} from './expert-changes-text';

function expert(index: number, relL2: number | null, changedShare: number, scale: number | null = null): ExpertChange {
  return { expert: index, relL2, cosine: null, maxAbs: 0, changedShare, elements: 64, scale };
}

function stack(read: ExpertChange[], experts = read.length): ExpertChanges {
  return { experts, read, unchanged: read.filter((entry) => entry.changedShare === 0).length };
}

describe('a stack of experts in words', () => {
  it('names the changed experts, most changed first, when the others kept every bit', () => {
    const text = expertChangesText(
      stack([expert(0, 0, 0), expert(1, 0.0101, 0.83), expert(2, 0.0502, 1), expert(3, 0, 0)]),
    );
    expect(text).toBe(
      '2 of 4 experts changed, 2 bit for bit the same; relative L2 of each: #2 0.0502, #1 0.0101 (83% of values)',
    );
  });

  it('names the experts whose B is A times one factor, and the factor', () => {
    const text = expertChangesText(
      stack([expert(0, 0, 0), expert(1, 0.5, 1, 0.5), expert(2, 0.25, 1, 1.25), expert(3, 0.05, 1)]),
    );
    expect(text).toBe(
      '3 of 4 experts changed, 1 bit for bit the same; relative L2 of each: #1 0.5, #2 0.25, #3 0.05; ' +
        "2 of them A's values times one factor: #1 × 0.5, #2 × 1.25",
    );
    expect(expertChangesText(stack([expert(0, 0, 0), expert(1, 0.5, 1, 0.5)]))).toMatch(
      /; one of them A's values times one factor: #1 × 0\.5$/,
    );
  });

  it('gives the range when every expert changed, and folds the rest of a long list', () => {
    const read = Array.from({ length: 8 }, (_, i) => expert(i, 0.002 * (i + 1), 1));
    expect(expertChangesText(stack(read))).toBe(
      'all 8 experts changed, relative L2 from 0.002 (#0) to 0.016 (#7): #7 0.016, #6 0.014, #5 0.012, ' +
        '#4 0.01, #3 0.008, #2 0.006, and 2 more',
    );
  });

  it('says a sign of zero is all that changed, and which experts a sample read', () => {
    const text = expertChangesText(stack([expert(0, 0, 0), expert(5, 0, 0.01), expert(9, 0, 0)], 16), true);
    expect(text).toBe(
      'over the rows sampled, of the 3 experts of 16 read, 1 of 3 experts changed, 2 bit for bit the same; relative L2 of each: ' +
        '#5 only signed zeros or NaN/±Inf differ',
    );
  });

  it('counts the slices kept across every stack, and says nothing when every slice changed', () => {
    const entry = (experts: ExpertChanges) => ({ experts }) as ValueComparison;
    const kept = [
      entry(stack([expert(0, 0, 0), expert(1, 0.1, 1)])),
      entry(stack([expert(0, 0.2, 1), expert(1, 0.1, 1)])),
    ];
    expect(expertChangesSummary(kept)).toMatch(
      /^In 2 changed stacked-expert tensors, 3 of 4 expert slices changed and 1 is bit for bit the same/,
    );
    expect(expertChangesSummary(kept.slice(1))).toBeNull();
    expect(expertChangesSummary([])).toBeNull();
  });
});

describe('the expert map in words', () => {
  const map = (changed: Array<boolean | null>, experts: number): ExpertChangeMap => ({
    layers: Array.from({ length: changed.length / experts }, (_, layer) => ({ stack: 'model.layers.', layer })),
    experts,
    relL2: changed.map((cell) => (cell === null ? null : cell ? 0.25 : 0)),
    changed,
    changedCells: changed.filter((cell) => cell === true).length,
    unchangedCells: changed.filter((cell) => cell === false).length,
    sampled: false,
  });

  it('sums the cells, and says when every expert compared changed', () => {
    expect(expertMapSummary(map([true, false, false, false, true, true, false, null], 4))).toBe(
      '2 layers × 4 experts: 3 of 7 compared changed (42.9%), 4 bit for bit the same; 1–2 changed per layer.',
    );
    expect(expertMapSummary(map([true, true], 2))).toBe('1 layer × 2 experts: every one of the 2 compared changed.');
    expect(expertMapSummary({ ...map([true, false], 2), sampled: true })).toMatch(
      / changed per layer, over the rows sampled from tensors past the whole-read limit\.$/,
    );
  });

  it('lists a layer’s changed experts, or the few it kept when most changed', () => {
    const cells = [...[true, false, false, true], ...[true, true, true, false], ...[false, false, false, false]];
    const layers = map(cells, 4);
    expect([0, 1, 2].map((row) => layerExpertsText(layers, row))).toEqual([
      '2 of 4 changed: #0, #3',
      '3 of 4 changed, all but #3',
      'none of 4 changed',
    ]);
    expect(expertCellText(layers, 1, 2)).toBe(
      'model.layers.1, expert 2: changed, relative L2 0.25 (the largest of its tensors)',
    );
    expect(expertCellText(map([true, null], 2), 0, 1)).toBe('model.layers.0, expert 1: not compared');
  });
});
