/**
 * "Read values" gives each row's and column's abs-max as numpy does (scripts/line-magnitudes-fixtures.py: the
 * safetensors library and gguf-py wrote the files): outlier input channels of a BF16 down projection, outlier rows
 * of an F16 query projection, a token embedding's massive dims, a row of stacked experts, a weight with no line far
 * from the rest, one holding NaN and infinities, and a Q8_0 matrix dequantized.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptLoad } from '../testing/kept-load';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { lineMagnitudesAnswers, type LineSpreadAnswer } from '../testing/values-fixtures';
import type { LineMagnitudeSpread } from '../core/values/line-magnitudes';
import { readTensorValues, scanValues, type ValuesJob } from './values-handler';

const ANSWERS = lineMagnitudesAnswers();

const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });

function expectSpread(
  got: Omit<LineMagnitudeSpread, 'profile'> | null | undefined,
  want: LineSpreadAnswer | null,
): void {
  if (want === null) {
    expect(got ?? null).toBeNull();
    return;
  }
  expect(got).toBeTruthy();
  const spread = got as Omit<LineMagnitudeSpread, 'profile'>;
  expect(spread.lines).toBe(want.lines);
  expect(spread.of).toBe(want.of);
  expect(spread.median).toBeCloseTo(want.median, 6);
  expect(spread.max).toBeCloseTo(want.max, 6);
  expect(spread.maxAt).toBe(want.maxAt);
  expect(spread.outlierCount).toBe(want.outlierCount);
  expect(spread.outliers.map((line) => line.index)).toEqual(want.outliers.map(([index]) => index));
  spread.outliers.forEach((line, k) => expect(line.absMax).toBeCloseTo(want.outliers[k][1], 6));
}

describe("each row's and column's abs-max", () => {
  for (const [file, tensors] of Object.entries(ANSWERS)) {
    for (const [tensor, want] of Object.entries(tensors)) {
      it(`${file}: ${tensor}`, async () => {
        const kept = await keptLoad({ kind: 'file', file: new File([readFileSync(join(DIR, file))], file) });
        const values = await readTensorValues(kept, kept.names.indexOf(tensor), false, job());
        expect(values.shape).toEqual(want.shape);
        expectSpread(values.lineMagnitudes?.rows, want.rows);
        expectSpread(values.lineMagnitudes?.columns, want.columns);
        if (want.columns) {
          expect(values.lineMagnitudes?.columns?.rowsPeakingInOutliers).toBe(want.columns.rowsPeakingInOutliers);
        }
        expect(values.lineMagnitudes?.rowTokens?.texts).toEqual(want.rowTokens);
      });
    }
  }

  for (const [file, tensors] of Object.entries(ANSWERS)) {
    it(`${file}: the scan lists the matrices with outlier columns, over the rows it looks at, as numpy finds them`, async () => {
      const kept = await keptLoad({ kind: 'file', file: new File([readFileSync(join(DIR, file))], file) });
      const scan = await scanValues(kept, job());
      const withOutliers = Object.entries(tensors).filter(([, want]) => (want.scan?.outlierCount ?? 0) > 0);
      expect(withOutliers.length).toBeGreaterThan(0);
      expect(scan.outlierColumnTensors.map((entry) => entry.tensor).sort()).toEqual(
        withOutliers.map(([name]) => name).sort(),
      );
      for (const [name, want] of withOutliers) {
        const found = scan.outlierColumnTensors.find((entry) => entry.tensor === name)?.outlierColumns;
        const answer = want.scan as NonNullable<typeof want.scan>;
        expect(found?.rowStride).toBe(answer.rowStride);
        expect(found?.rowsRead).toBe(answer.rowsRead);
        expect(found?.columns.rowsPeakingInOutliers).toBe(answer.rowsPeakingInOutliers);
        expectSpread(found?.columns, answer);
      }
    });
  }

  it('the fixture holds what it stands for: outliers of every kind, and tensors with none', () => {
    const tensors = ANSWERS['line-magnitudes.safetensors'];
    expect(tensors['model.layers.0.mlp.down_proj.weight'].columns?.outliers.map(([index]) => index)).toEqual([
      77, 300, 451,
    ]);
    expect(tensors['model.layers.0.self_attn.q_proj.weight'].rows?.outliers.map(([index]) => index)).toEqual([3, 300]);
    expect(tensors['model.embed_tokens.weight'].columns?.outliers.map(([index]) => index)).toEqual([10, 33]);
    expect(tensors['model.layers.1.mlp.experts.down_proj'].rows?.outliers.map(([index]) => index)).toEqual([37]);
    expect(tensors['model.layers.1.self_attn.o_proj.weight'].rows?.outlierCount).toBe(0);
    expect(tensors['model.layers.1.self_attn.o_proj.weight'].columns?.outlierCount).toBe(0);
    expect(ANSWERS['line-magnitudes.gguf']['blk.0.ffn_down.weight'].columns?.outliers.map(([index]) => index)).toEqual([
      17,
    ]);
  });
});
