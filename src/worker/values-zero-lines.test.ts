/**
 * "Read values" says which rows and columns are all zeros (scripts/zero-lines-fixtures.py: the safetensors library
 * and gguf-py wrote the files, numpy's any() gave the answer): pruned neurons as an up projection's rows and a down
 * projection's columns, rows never written at a tensor's end, an expert of a stacked tensor, a Q8_0 matrix, and a
 * 2:4-sparse weight that has half its values zero but no line all zero. "Scan all values" lists the same tensors with
 * the same lines, counted by code for the 16-bit ones.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptLoad } from '../testing/kept-load';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { present, zeroLinesAnswers } from '../testing/values-fixtures';
import type { ZeroLineRuns } from '../core/values/zero-lines';
import { readTensorValues, scanValues, type ValuesJob } from './values-handler';

const ANSWERS = zeroLinesAnswers();

const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });

/** The indices the runs cover (every fixture lists fewer runs than the cap). */
const indices = (runs: ZeroLineRuns | null | undefined) =>
  (runs?.runs ?? []).flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, i) => first + i));

describe('rows and columns all zeros', () => {
  for (const [file, tensors] of Object.entries(ANSWERS)) {
    for (const [tensor, want] of Object.entries(tensors)) {
      it(`${file}: ${tensor} (rows ${want.zeroRows.length}, columns ${want.zeroColumns?.length ?? '-'})`, async () => {
        const kept = await keptLoad({ kind: 'file', file: new File([readFileSync(join(DIR, file))], file) });
        const values = await readTensorValues(kept, kept.names.indexOf(tensor), false, job());
        expect(values.shape).toEqual(want.shape);
        const { rows = null, columns = null } = values.zeroLines ?? {};
        expect(indices(rows)).toEqual(want.zeroRows);
        expect(rows?.count ?? 0).toBe(want.zeroRows.length);
        if (rows) {
          expect(rows.of).toBe(want.ofRows);
        }
        expect(indices(columns)).toEqual(want.zeroColumns ?? []);
        expect(values.zeroLines === undefined).toBe(want.zeroRows.length === 0 && !want.zeroColumns?.length);
      });
    }
  }

  for (const [file, tensors] of Object.entries(ANSWERS)) {
    it(`${file}: the scan lists the tensors with zero lines, each with numpy's`, async () => {
      const kept = await keptLoad({ kind: 'file', file: new File([readFileSync(join(DIR, file))], file) });
      const scan = await scanValues(kept, job());
      const withLines = Object.entries(tensors).filter(
        ([, want]) => want.zeroRows.length + (want.zeroColumns?.length ?? 0) > 0,
      );
      expect(scan.zeroLineTensors.map((entry) => entry.tensor).sort()).toEqual(withLines.map(([name]) => name).sort());
      for (const [name, want] of withLines) {
        const entry = present(
          scan.zeroLineTensors.find((t) => t.tensor === name),
          name,
        );
        expect(indices(entry.zeroLines?.rows)).toEqual(want.zeroRows);
        expect(indices(entry.zeroLines?.columns)).toEqual(want.zeroColumns ?? []);
      }
    });
  }
});
