/**
 * "Scan all values" on stacks of experts (scripts/expert-changes-fixtures.py: gguf-py and the safetensors library
 * wrote them, numpy gave the answer): an expert all zeros, one holding a NaN, two the same, one fifty times the
 * others' scale, an upcycled stack of eight copies and an expert a thousandth of the rest, each named as numpy finds
 * them; a stack with nothing to say is not listed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptLoad } from '../testing/kept-load';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { expertScaleMapAnswer, expertStacksScanAnswer, present } from '../testing/values-fixtures';
import { readTensorValues, scanValues, type ValuesJob } from './values-handler';

const ANSWER = expertStacksScanAnswer();

const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });

describe.each(Object.keys(ANSWER))('the experts of each stack, scanned (%s)', (name) => {
  it('names the experts numpy finds all zeros, non-finite, the same, or far from the stack’s scale', async () => {
    const file = new File([readFileSync(join(DIR, name))], name);
    const scan = await scanValues(await keptLoad({ kind: 'file', file }), job());
    const want = ANSWER[name];
    expect(scan.expertStacks.map((stack) => stack.tensor).sort()).toEqual(Object.keys(want).sort());
    for (const stack of scan.expertStacks) {
      const expected = want[stack.tensor];
      expect(stack.experts, stack.tensor).toBe(expected.experts);
      expect(stack.zeroExperts, stack.tensor).toEqual(expected.zeroExperts);
      expect(stack.nonFiniteExperts, stack.tensor).toEqual(expected.nonFiniteExperts);
      expect(stack.copies, stack.tensor).toEqual(expected.copies);
      expect(
        stack.rmsOutliers.map((outlier) => outlier.expert),
        stack.tensor,
      ).toEqual(expected.rmsOutliers);
      expect((stack.medianRms ?? NaN) / expected.medianRms, stack.tensor).toBeCloseTo(1, 9);
    }
  });
});

describe('Read values of a stack of experts', () => {
  it('gives each expert numpy’s RMS and names the same experts as the scan', async () => {
    const name = 'expert-stacks.gguf';
    const file = new File([readFileSync(join(DIR, name))], name);
    const load = await keptLoad({ kind: 'file', file });
    for (const [tensor, want] of Object.entries(ANSWER[name])) {
      const values = await readTensorValues(load, load.names.indexOf(tensor), false, job());
      const experts = present(values.experts, `the experts of ${tensor}`);
      expect(experts.zeroExperts).toEqual(want.zeroExperts);
      expect(experts.nonFiniteExperts).toEqual(want.nonFiniteExperts);
      expect(experts.copies).toEqual(want.copies);
      expect(experts.rmsOutliers.map((outlier) => outlier.expert)).toEqual(want.rmsOutliers);
      experts.rms.forEach((rms, expert) => {
        expect(Math.abs((rms ?? NaN) - want.rms[expert]), `expert ${expert}`).toBeLessThanOrEqual(1e-12);
      });
    }
    // The other stack: an RMS for each of its experts, and nothing that stands out.
    const down = await readTensorValues(load, load.names.indexOf('blk.0.ffn_down_exps.weight'), false, job());
    expect(down.experts).toMatchObject({ zeroExperts: [], nonFiniteExperts: [], copies: [], rmsOutliers: [] });
    expect(down.experts?.rms.every((rms) => rms !== null && rms > 0)).toBe(true);
  });
});

describe('the scan’s map of expert scales (per-expert tensors)', () => {
  it('gives each expert of each layer numpy’s ratio to its tensor’s median, and its marks', async () => {
    const want = expertScaleMapAnswer();
    const file = new File([readFileSync(join(DIR, want.file))], want.file);
    const scan = await scanValues(await keptLoad({ kind: 'file', file }), job());
    const map = present(scan.expertScaleMap, 'the map of expert scales');
    expect(map.layers).toEqual(want.map.layers.map((layer) => ({ stack: 'model.layers.', layer })));
    expect(map.experts).toBe(want.map.experts);
    expect(map.marks).toEqual(want.map.marks);
    map.ratio.forEach((ratio, at) => {
      const expected = want.map.ratio[at];
      if (expected === null) {
        expect(ratio, `cell ${at}`).toBeNull();
      } else {
        expect((ratio ?? NaN) / expected, `cell ${at}`).toBeCloseTo(1, 9);
      }
      const role = map.roleOf[at] < 0 ? null : map.roles[map.roleOf[at]];
      expect(role, `cell ${at}`).toBe(
        expected === null ? null : `block_sparse_moe.experts.#.${want.map.role[at]}.weight`,
      );
    });
    expect([map.outlierCells, map.zeroCells, map.nonFiniteCells, map.copyCells]).toEqual([
      want.map.ratio.filter((ratio) => ratio !== null && (ratio > 10 || ratio < 0.1)).length,
      want.map.marks.filter((marks) => marks & 1).length,
      want.map.marks.filter((marks) => marks & 2).length,
      want.map.marks.filter((marks) => marks & 4).length,
    ]);
    // The router (`block_sparse_moe.gate.weight`) is no expert: 4 layers × 8 experts, nothing else.
    expect(map.scannedCells).toBe(32);
  });

  it('maps the stacks of a GGUF and a safetensors file expert by expert', async () => {
    for (const name of Object.keys(ANSWER)) {
      const file = new File([readFileSync(join(DIR, name))], name);
      const scan = await scanValues(await keptLoad({ kind: 'file', file }), job());
      const map = present(scan.expertScaleMap, `the map of ${name}`);
      for (const [tensor, stack] of Object.entries(ANSWER[name])) {
        const row = map.layers.findIndex((layer) => tensor.startsWith(`${layer.stack}${layer.layer}.`));
        const rest = tensor.slice(`${map.layers[row].stack}${map.layers[row].layer}.`.length);
        stack.rmsOutliers.forEach((expert) => {
          const at = row * map.experts + expert;
          expect(map.roles[map.roleOf[at]], `${tensor} expert ${expert}`).toBe(rest);
          expect((map.ratio[at] ?? NaN) / (stack.rms[expert] / stack.medianRms)).toBeCloseTo(1, 9);
        });
        stack.zeroExperts.forEach((expert) => expect((map.marks[row * map.experts + expert] ?? 0) & 1).toBe(1));
      }
    }
  });
});
