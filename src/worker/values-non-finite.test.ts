/**
 * "Read values" says where a tensor's NaN and infinities are (scripts/non-finite-fixtures.py: the safetensors library
 * and gguf-py wrote the files, numpy's argwhere gave the answer): the first positions in row-major order with their
 * kinds, and how many rows hold one. F32, BF16 (counted by code), F16 in four dimensions, and a Q8_0 block whose
 * scale is NaN. "Scan all values" finds the same positions for every tensor it lists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptLoad } from '../testing/kept-load';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { nonFiniteAnswers, present } from '../testing/values-fixtures';
import { readTensorValues, scanValues, type ValuesJob } from './values-handler';

const ANSWERS = nonFiniteAnswers();

const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });

describe('where the NaN and infinities are', () => {
  for (const [file, tensors] of Object.entries(ANSWERS)) {
    for (const [tensor, want] of Object.entries(tensors)) {
      it(`${file}: ${tensor} (${want.count} of them in ${want.rows} of ${want.ofRows} rows)`, async () => {
        const kept = await keptLoad({ kind: 'file', file: new File([readFileSync(join(DIR, file))], file) });
        const values = await readTensorValues(kept, kept.names.indexOf(tensor), false, job());
        expect(values.shape).toEqual(want.shape);
        expect(values.stats.nan + values.stats.posInf + values.stats.negInf).toBe(want.count);
        const found = present(values.nonFinite, 'non-finite positions');
        expect(found.first.map(({ at, kind }) => ({ at, kind }))).toEqual(want.first);
        expect(found).toMatchObject({ rows: want.rows, ofRows: want.ofRows });
        expect(found.tokens?.texts).toEqual(want.tokens);
      });
    }
  }

  for (const [file, tensors] of Object.entries(ANSWERS)) {
    it(`${file}: the scan finds numpy's positions in every tensor it lists`, async () => {
      const kept = await keptLoad({ kind: 'file', file: new File([readFileSync(join(DIR, file))], file) });
      const scan = await scanValues(kept, job());
      for (const [tensor, want] of Object.entries(tensors)) {
        const entry = present(
          [...scan.nanTensors, ...scan.infTensors].find((t) => t.tensor === tensor),
          `${tensor} in the scan's lists`,
        );
        const found = present(entry.nonFinite, 'non-finite positions');
        expect(
          found.first.map(({ at, kind }) => ({ at, kind })),
          tensor,
        ).toEqual(want.first);
        expect(found, tensor).toMatchObject({ rows: want.rows, ofRows: want.ofRows });
      }
      expect(scan.perTensor.filter((t) => t.nonFinite).length).toBe(Object.keys(tensors).length);
    });
  }

  it('a tensor with none has no positions', async () => {
    const file = 'planted.safetensors';
    const kept = await keptLoad({ kind: 'file', file: new File([readFileSync(join(DIR, file))], file) });
    const values = await readTensorValues(
      kept,
      kept.names.indexOf('model.layers.1.mlp.down_proj.weight'),
      false,
      job(),
    );
    expect(values.nonFinite).toBeUndefined();
  });
});
