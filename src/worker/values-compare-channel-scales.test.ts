/**
 * "Compare values" of two layers of a Llama-shaped model against a copy with channels rescaled as SmoothQuant and AWQ
 * rescale them, an attention scale folded into a query projection, and two tensors fine-tuned
 * (scripts/channel-scale-fixtures.py): which tensors are a scaling, along which axis, by which factors (numpy's
 * least-squares fit, and within BF16 rounding of the factors the generator planted), and which tensors undo each
 * other's factors; either way round; and against the copy stored as a W8A8 checkpoint stores it (int8 weights with
 * a scale per output row), whose quantization the fits and the pairing see through.
 */
import { describe, expect, it } from 'vitest';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { compareFilesByName } from '../testing/value-pairings';
import { channelScalesCompareAnswer, present } from '../testing/values-fixtures';

const ANSWER = channelScalesCompareAnswer();
const INT8 = channelScalesCompareAnswer('int8');

/** Relative closeness: the app's Float64 sums run in another order than numpy's. */
function expectNear(found: number, want: number, label: string) {
  expect(Math.abs(found - want), `${label}: ${found} against ${want}`).toBeLessThanOrEqual(
    1e-9 * Math.abs(want) + 1e-12,
  );
}

describe('a change that is one factor per channel', () => {
  for (const [label, answer] of [
    ['written in BF16', ANSWER],
    ['stored as int8 with a scale per output row (W8A8), dequantized', INT8],
  ] as const) {
    it(`names each scaled tensor, its axis, factors and partners as numpy fits them: the copy ${label}`, async () => {
      const result = await compareFilesByName(DIR, answer.a, answer.b);
      expect(result.tensors.length).toBe(Object.keys(answer.tensors).length);
      for (const [tensor, want] of Object.entries(answer.tensors)) {
        const scales = result.tensors.find((entry) => entry.tensor === tensor)?.channelScales;
        if (want === null) {
          expect(scales, tensor).toBeUndefined();
          continue;
        }
        const found = present(scales, `fit of ${tensor}`);
        expect(found.axis, tensor).toBe(want.axis);
        for (const key of ['before', 'after', 'min', 'max', 'median'] as const) {
          expectNear(found[key], want[key], `${tensor} ${key}`);
        }
        expect([found.lines, found.scaled], tensor).toEqual([want.lines, want.scaled]);
        expect(
          found.extremes.map((line) => line.index),
          tensor,
        ).toEqual(want.extremes.map(([index]) => index));
        expect([...(found.reciprocalIn ?? [])].sort(), tensor).toEqual([...(want.reciprocalIn ?? [])].sort());
      }
    });
  }

  it('finds the factors the generator planted, within BF16 rounding', async () => {
    const result = await compareFilesByName(DIR, ANSWER.a, ANSWER.b);
    for (const [tensor, planted] of Object.entries(ANSWER.planted)) {
      const found = present(result.tensors.find((entry) => entry.tensor === tensor)?.channelScales, tensor);
      expect(found.axis, tensor).toBe(planted.axis);
      const want = planted.factors;
      expect(found.min / Math.min(...want), tensor).toBeCloseTo(1, 2);
      expect(found.max / Math.max(...want), tensor).toBeCloseTo(1, 2);
      for (const line of found.extremes) {
        expect(line.factor / (want.length === 1 ? want[0] : want[line.index]), `${tensor} [${line.index}]`).toBeCloseTo(
          1,
          2,
        );
      }
    }
    // The SmoothQuant pair and the AWQ pair each undo the other; the folded scale and the fine-tunes pair with none.
    const partners = (tensor: string) =>
      result.tensors.find((entry) => entry.tensor === tensor)?.channelScales?.reciprocalIn;
    expect(partners('model.layers.0.input_layernorm.weight')?.length).toBe(3);
    expect(partners('model.layers.1.mlp.down_proj.weight')).toEqual(['model.layers.1.mlp.up_proj.weight']);
    expect(partners('model.layers.1.self_attn.q_proj.weight')).toBeUndefined();
    for (const tuned of ['model.layers.1.self_attn.o_proj.weight', 'model.norm.weight']) {
      const entry = result.tensors.find((t) => t.tensor === tuned);
      expect(entry?.identical, tuned).toBe(false);
      expect(entry?.channelScales, tuned).toBeUndefined();
    }
  });

  it('reads the other way round as the reciprocal factors, with the same partners', async () => {
    const forward = await compareFilesByName(DIR, ANSWER.a, ANSWER.b);
    const reversed = await compareFilesByName(DIR, ANSWER.b, ANSWER.a);
    for (const entry of forward.tensors) {
      const there = reversed.tensors.find((t) => t.tensor === entry.tensor)?.channelScales;
      const here = entry.channelScales;
      expect(there?.axis, entry.tensor).toBe(here?.axis);
      if (here && there) {
        expect(there.min * here.max, entry.tensor).toBeCloseTo(1, 2);
        expect([...(there.reciprocalIn ?? [])].sort()).toEqual([...(here.reciprocalIn ?? [])].sort());
      }
    }
  });
});
