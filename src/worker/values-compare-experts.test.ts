/**
 * "Compare values" of stacked experts, expert by expert (scripts/expert-changes-fixtures.py): gpt-oss-style
 * `experts.gate_up_proj` / `down_proj` in BF16 and F32 where a fine-tune trained two experts of eight (ESFT-style),
 * every expert by a different amount, ten values of one, or turned a zero of another into -0; and llama.cpp's
 * `ffn_gate_exps` (F32) and `ffn_down_exps` (Q8_0) with two experts trained. numpy's figures per expert are the answer.
 */
import { describe, expect, it } from 'vitest';
import { VALUES_FIXTURES_DIR as DIR } from '../testing/lora-fixtures';
import { buildSafetensors } from '../testing/build-safetensors';
import { keptFile } from '../testing/kept-load';
import { compareFilesByName, elementPairings } from '../testing/value-pairings';
import { compareTensorValues } from './values-compare';
import { expertChangesCompareAnswer, expertMapAnswer, expertScalesAnswer, present } from '../testing/values-fixtures';

function close(found: number | null, want: number | null, what: string): void {
  if (want === null || found === null) {
    expect(found, what).toBe(want);
    return;
  }
  expect(Math.abs(found - want), what).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want)));
}

describe.each(['safetensors', 'gguf'] as const)('a stack of experts compared expert by expert (%s)', (pair) => {
  const answer = expertChangesCompareAnswer(pair);

  it('gives each expert numpy’s figures and counts the experts left bit for bit as they were', async () => {
    const result = await compareFilesByName(DIR, answer.a, answer.b);
    expect(result.tensors.map((entry) => entry.tensor).sort()).toEqual(Object.keys(answer.tensors).sort());
    for (const entry of result.tensors) {
      const want = answer.tensors[entry.tensor];
      if (want === null) {
        expect(entry.experts, entry.tensor).toBeUndefined();
        continue;
      }
      const found = present(entry.experts, `the experts of ${entry.tensor}`);
      expect(found.experts, entry.tensor).toBe(want.experts.length);
      expect(found.read.map((expert) => expert.expert)).toEqual(want.experts.map((expert) => expert.expert));
      expect(found.unchanged, entry.tensor).toBe(want.experts.filter((expert) => expert.changedShare === 0).length);
      want.experts.forEach((expected, i) => {
        const got = found.read[i];
        const what = `${entry.tensor} expert ${expected.expert}`;
        close(got.relL2, expected.relL2, `${what} relative L2`);
        close(got.cosine, expected.cosine, `${what} cosine`);
        close(got.maxAbs, expected.maxAbs, `${what} max |b − a|`);
        expect(got.changedShare, `${what} share changed`).toBe(expected.changedShare);
      });
    }
  });
});

describe('which tensors are read expert by expert', () => {
  it('leaves a router and a 3-D tensor that stacks no experts whole, and an identical stack unsplit', async () => {
    const answer = expertChangesCompareAnswer('safetensors');
    const same = await compareFilesByName(DIR, answer.a, answer.a);
    expect(same.tensors.every((entry) => entry.identical && entry.experts === undefined)).toBe(true);
    const result = await compareFilesByName(DIR, answer.a, answer.b);
    const byName = new Map(result.tensors.map((entry) => [entry.tensor, entry]));
    expect(byName.get('model.layers.0.mlp.router.weight')?.identical).toBe(false);
    expect(byName.get('model.layers.0.conv.weight')?.identical).toBe(false);
    // The -0 of expert 3 counts as a change of the stack, bit for bit, with no distance.
    const down = present(byName.get('model.layers.1.mlp.experts.down_proj')?.experts, 'layer 1 down_proj experts');
    expect(down.read[3].relL2).toBe(0);
    expect(down.read[3].changedShare).toBeGreaterThan(0);
    expect(down.unchanged).toBe(6);
  });
});

describe.each(['safetensors', 'gguf', 'numbered'] as const)('the expert map of a comparison (%s)', (pair) => {
  it('gives each layer’s experts numpy’s largest relative change and whether any value moved', async () => {
    const { a, b, map: want } = expertMapAnswer(pair);
    const result = await compareFilesByName(DIR, a, b);
    const map = present(result.expertMap, 'an expert map');
    expect(map.layers.map((row) => row.layer)).toEqual(want.layers);
    expect(map.experts).toBe(want.experts);
    expect(map.changed).toEqual(want.changed);
    map.relL2.forEach((found, i) => close(found, want.relL2[i], `cell ${i}`));
    expect(map.changedCells).toBe(want.changed.filter((cell) => cell === true).length);
    expect(map.unchangedCells).toBe(want.changed.filter((cell) => cell === false).length);
  });
});

describe('a remote stack past the whole-read limit', () => {
  it('is compared over the same row sample of both sides, each expert read judged on its rows, and says so', async () => {
    const [experts, rows, cols] = [64, 256, 512];
    const name = 'model.layers.0.mlp.experts.down_proj';
    const base = Float32Array.from({ length: experts * rows * cols }, (_, i) => Math.sin(i * 0.37) * 0.02);
    const tuned = base.slice();
    const trained = new Set([10, 50]);
    for (const expert of trained) {
      for (let i = expert * rows * cols; i < (expert + 1) * rows * cols; i++) {
        tuned[i] += 1e-3;
      }
    }
    const file = (values: Float32Array) =>
      buildSafetensors([{ name, dtype: 'F32', shape: [experts, rows, cols] }], {
        tensorData: { [name]: new Uint8Array(values.buffer) },
      });
    const [a, b] = await Promise.all([keptFile(file(base), 'a.safetensors'), keptFile(file(tuned), 'b.safetensors')]);
    for (const load of [a, b]) {
      load.data = load.data && { ...load.data, remote: true };
    }
    const job = { signal: new AbortController().signal, progress: () => {} };
    const result = await compareTensorValues(a, b, elementPairings(a, [[0, 0]]), job);
    const [entry] = result.tensors;
    expect(entry.basis).toBe('sampled');
    const stack = present(entry.experts, 'the sampled experts');
    // The sample's rows reach some experts and not others: those it reached are listed, the rest are not guessed.
    expect(stack.read.length).toBeGreaterThan(1);
    expect(stack.read.length).toBeLessThan(experts);
    expect(stack.read.some((expert) => expert.changedShare > 0)).toBe(true);
    for (const expert of stack.read) {
      expect(expert.changedShare > 0, `expert ${expert.expert}`).toBe(trained.has(expert.expert));
    }
    expect(present(result.expertMap, 'the map').sampled).toBe(true);
  });
});

describe('an expert scaled as a whole', () => {
  it('gives the experts numpy finds A times one factor that factor, and no factor to the others', async () => {
    const answer = expertScalesAnswer();
    const result = await compareFilesByName(DIR, answer.a, answer.b);
    const entry = result.tensors.find((found) => found.tensor === answer.tensor);
    const found = present(entry?.experts, `the experts of ${answer.tensor}`);
    expect(found.read.map((expert) => expert.expert)).toEqual(answer.experts.map((expert) => expert.expert));
    answer.experts.forEach((want, i) => {
      close(found.read[i].relL2, want.relL2, `expert ${want.expert} relative L2`);
      close(found.read[i].scale, want.scale, `expert ${want.expert} factor`);
    });
    expect(answer.experts.filter((expert) => expert.scale !== null)).toHaveLength(2);
  });
});
