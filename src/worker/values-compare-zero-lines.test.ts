/**
 * "Compare values" of a dense model against the same model with lines zeroed (scripts/zero-lines-fixtures.py): the
 * rows and columns all zeros on one side only, as numpy's any() on both sides gives them, either way round, and
 * neither a scaling nor a low-rank update named for them; a 2:4-sparse gate against its dense original has none.
 */
import { describe, expect, it } from 'vitest';
import type { ZeroLineRuns } from '../core/values/zero-lines';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { compareFilesByName } from '../testing/value-pairings';
import { zeroLinesCompareAnswer } from '../testing/values-fixtures';

const ANSWER = zeroLinesCompareAnswer();

const indices = (runs: ZeroLineRuns | null | undefined) =>
  (runs?.runs ?? []).flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, i) => first + i));

const compare = (first: string, second: string) => compareFilesByName(DIR, first, second);

describe('lines all zeros on one side of a comparison', () => {
  for (const reversed of [false, true]) {
    it(
      reversed ? 'zeroed against dense: the lines only A has' : 'dense against zeroed: the lines only B has',
      async () => {
        const result = await (reversed ? compare(ANSWER.b, ANSWER.a) : compare(ANSWER.a, ANSWER.b));
        for (const [tensor, want] of Object.entries(ANSWER.tensors)) {
          const entry = result.tensors.find((t) => t.tensor === tensor);
          const lines = entry?.zeroLines;
          const [rowsB, rowsA] = reversed ? [want.onlyARows, want.onlyBRows] : [want.onlyBRows, want.onlyARows];
          const [colsB, colsA] = reversed
            ? [want.onlyAColumns ?? [], want.onlyBColumns ?? []]
            : [want.onlyBColumns ?? [], want.onlyAColumns ?? []];
          expect(indices(lines?.rows?.onlyB), tensor).toEqual(rowsB);
          expect(indices(lines?.rows?.onlyA), tensor).toEqual(rowsA);
          expect(indices(lines?.columns?.onlyB), tensor).toEqual(colsB);
          expect(indices(lines?.columns?.onlyA), tensor).toEqual(colsA);
          expect(lines === undefined, tensor).toBe(rowsA.length + rowsB.length + colsA.length + colsB.length === 0);
          // A pruning is neither a scaling (lines scaled to zero) nor a low-rank update (as many directions as lines).
          if (lines) {
            expect(entry?.channelScales, tensor).toBeUndefined();
            expect(entry?.changeRank, tensor).toBeUndefined();
          }
        }
      },
    );
  }
});
