/**
 * "Compare values" of a model against the same model with one layer's outlier input channels scaled into line (as
 * SmoothQuant migrates them) and another layer's input channel grown (scripts/line-magnitudes-fixtures.py): the
 * outlier columns on one side only, as numpy finds them on both sides, either way round; the tensors that did not
 * change say nothing.
 */
import { describe, expect, it } from 'vitest';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { compareFilesByName } from '../testing/value-pairings';
import { outlierColumnsCompareAnswer } from '../testing/values-fixtures';
import type { OutlierColumnsOnOneSide } from '../core/values/line-magnitudes';

const ANSWER = outlierColumnsCompareAnswer();

const compare = (first: string, second: string) => compareFilesByName(DIR, first, second);

describe('outlier columns on one side of a comparison', () => {
  for (const reversed of [false, true]) {
    it(reversed ? 'smoothed against original: the sides swap' : 'original against smoothed', async () => {
      const result = await (reversed ? compare(ANSWER.b, ANSWER.a) : compare(ANSWER.a, ANSWER.b));
      const changed = Object.keys(ANSWER.tensors);
      for (const [tensor, want] of Object.entries(ANSWER.tensors)) {
        const found = result.tensors.find((t) => t.tensor === tensor)?.outlierColumns;
        const [onlyA, onlyB] = reversed ? [want.onlyB, want.onlyA] : [want.onlyA, want.onlyB];
        const columns = (side: OutlierColumnsOnOneSide | null) =>
          (side?.columns ?? []).map((line) => line.index).sort((x, y) => x - y);
        expect(columns(found?.onlyA ?? null), tensor).toEqual(onlyA);
        expect(columns(found?.onlyB ?? null), tensor).toEqual(onlyB);
        expect(found?.onlyA?.count ?? 0).toBe(onlyA.length);
        expect(found?.onlyB?.count ?? 0).toBe(onlyB.length);
      }
      expect(onlyChanged(result.tensors, changed)).toEqual([]);
    });
  }
});

/** Tensors other than `changed` that claim an outlier-column change. */
function onlyChanged(tensors: ReadonlyArray<{ tensor: string; outlierColumns?: unknown }>, changed: string[]) {
  return tensors.filter((t) => t.outlierColumns && !changed.includes(t.tensor)).map((t) => t.tensor);
}
