/** The diff groups, totals per group and per module, and the alignment property (a set against a prefixed copy). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DTYPES } from '../dtypes';
import type { TensorSpec } from '../../testing/build-safetensors';
import {
  compareBaseTensors,
  ddpTensors,
  fp16Tensors,
  minusLayerTensors,
  REMOVED_LAYER,
} from '../../testing/compare-pairs';
import { ALIGN_RULES } from './align';
import { diffSides, moduleOf, MAX_COMPARE_MODULES, OTHER_MODULES, STATUS_IDENTICAL } from './diff';
import { sideOf } from '../../testing/compare-builders';

const params = (specs: readonly TensorSpec[]) =>
  specs.reduce((sum, spec) => sum + spec.shape.reduce((product, dim) => product * dim, 1), 0);

describe('moduleOf', () => {
  it.each([
    ['layers.5.mlp.up_proj.weight', 'layers.5'],
    ['model.layers.12.self_attn.q_proj.weight', 'model.layers.12'],
    ['down_blocks.1.resnets.0.conv1.weight', 'down_blocks.1'],
    ['embed_tokens.weight', 'embed_tokens'],
    ['time_embedding.linear_1.weight', 'time_embedding.linear_1'],
    ['lm_head', 'lm_head'],
    ['blocks.1234567890.weight', 'blocks.1234567890'],
    // kohya's paths, underscores for dots: cut at their first index, spelled as stored.
    ['lora_unet_down_blocks_1_attentions_0_proj_in.lora_down.weight', 'lora_unet_down_blocks_1'],
    ['lora_te1_text_model_encoder_layers_11_mlp_fc1.alpha', 'lora_te1_text_model_encoder_layers_11'],
    ['lora_unet_conv_in.alpha', 'lora_unet_conv_in'],
  ])('%s → %s', (key, module) => {
    expect(moduleOf(key)).toBe(module);
  });
});

describe('diffSides', () => {
  it('splits tensors into only-A, only-B, dtype, shape and identical, with totals per group', () => {
    const a = sideOf([
      { name: 'same', dtype: 'F32', shape: [2, 3] },
      { name: 'dtype', dtype: 'F32', shape: [4] },
      { name: 'shape', dtype: 'F32', shape: [4, 4] },
      { name: 'both', dtype: 'F32', shape: [2] },
      { name: 'gone', dtype: 'BF16', shape: [10] },
    ]);
    const b = sideOf([
      { name: 'new', dtype: 'F16', shape: [7] },
      { name: 'shape', dtype: 'F32', shape: [4, 8] },
      { name: 'same', dtype: 'F32', shape: [2, 3] },
      { name: 'dtype', dtype: 'BF16', shape: [4] },
      { name: 'both', dtype: 'F16', shape: [3] },
    ]);
    const diff = diffSides(a, b, ALIGN_RULES);
    const { entries } = diff;
    expect(entries.count).toBe(6);
    // A's order first, then what only B has.
    expect(Array.from(entries.rowA)).toEqual([0, 1, 2, 3, 4, -1]);
    expect(Array.from(entries.rowB)).toEqual([2, 3, 1, 4, -1, 0]);
    expect(Array.from(entries.status)).toEqual([4, 2, 3, 3, 0, 1]);
    expect(diff.groups['only-a']).toEqual({ tensors: 1, elementsA: 10, elementsB: 0, bytesA: 20, bytesB: 0 });
    expect(diff.groups['only-b']).toEqual({ tensors: 1, elementsA: 0, elementsB: 7, bytesA: 0, bytesB: 14 });
    expect(diff.groups.dtype).toEqual({ tensors: 1, elementsA: 4, elementsB: 4, bytesA: 16, bytesB: 8 });
    expect(diff.groups.shape).toEqual({ tensors: 2, elementsA: 18, elementsB: 35, bytesA: 72, bytesB: 134 });
    expect(diff.groups.identical.tensors).toBe(1);
    expect(diff.shapeAndDtype).toBe(1);
    expect(diff.elementsB - diff.elementsA).toBe(7 + 32 + 6 + 4 + 3 - (6 + 4 + 16 + 2 + 10));
  });

  it('names only in A that share storage with a name both have are counted as tied/view aliases', () => {
    const specs = [
      { name: 'wte.weight', dtype: 'F16', shape: [8, 4] },
      { name: 'lm_head.weight', dtype: 'F16', shape: [8, 4] },
      { name: 'extra.weight', dtype: 'F16', shape: [2] },
    ];
    const a = { ...sideOf(specs), storageKeys: ['0', '0', '1'] };
    const b = sideOf([specs[0]]);
    const diff = diffSides(a, b, ALIGN_RULES);
    expect(diff.groups['only-a'].tensors).toBe(2);
    // lm_head.weight is wte.weight under a second name; extra.weight is a real difference.
    expect(diff.storageAliases).toEqual({ a: 1, b: 0 });
    expect(diffSides(sideOf(specs), b, ALIGN_RULES).storageAliases).toEqual({ a: 0, b: 0 });
  });

  it('masks and rotary tables only an older save stores are rebuilt buffers; batch-norm statistics are not', () => {
    const weights = [
      { name: 'h.0.attn.c_attn.weight', dtype: 'F32', shape: [32, 96] },
      { name: 'h.0.attn.c_attn.bias', dtype: 'F32', shape: [96] },
    ];
    const legacy = sideOf([
      ...weights,
      { name: 'h.0.attn.bias', dtype: 'BOOL', shape: [1, 1, 64, 64] },
      { name: 'h.0.attn.masked_bias', dtype: 'F32', shape: [] },
      { name: 'h.0.attn.rotary_emb.inv_freq', dtype: 'F32', shape: [4] },
      { name: 'bn.running_mean', dtype: 'F32', shape: [8] },
    ]);
    const diff = diffSides(legacy, sideOf(weights), ALIGN_RULES);
    expect(diff.groups['only-a'].tensors).toBe(4);
    expect(diff.rebuiltBuffers).toEqual({ a: 3, b: 0 });
    // The other way round they are only in B.
    expect(diffSides(sideOf(weights), legacy, ALIGN_RULES).rebuiltBuffers).toEqual({ a: 0, b: 3 });
  });

  it('a DDP `module.` checkpoint against a clean one is identical after alignment, and the rule says so', () => {
    const diff = diffSides(sideOf(ddpTensors()), sideOf(compareBaseTensors()), ALIGN_RULES);
    expect(diff.groups.identical.tensors).toBe(compareBaseTensors().length);
    expect(diff.entries.count).toBe(compareBaseTensors().length);
    const moduleRule = diff.alignment.rules.find((rule) => rule.rule === 'module.');
    expect(moduleRule).toEqual({ rule: 'module.', enabled: true, a: compareBaseTensors().length, b: 0 });
    const modelRule = diff.alignment.rules.find((rule) => rule.rule === 'model.');
    // lm_head.weight has no `model.`.
    expect(modelRule?.a).toBe(compareBaseTensors().length - 1);
    expect(modelRule?.b).toBe(compareBaseTensors().length - 1);
  });

  it('turning the `module.` rule off leaves every tensor on one side only', () => {
    const rules = ALIGN_RULES.filter((rule) => rule !== 'module.');
    const diff = diffSides(sideOf(ddpTensors()), sideOf(compareBaseTensors()), rules);
    expect(diff.groups['only-a'].tensors).toBe(compareBaseTensors().length);
    expect(diff.groups['only-b'].tensors).toBe(compareBaseTensors().length);
    expect(diff.alignment.rules.find((rule) => rule.rule === 'module.')).toMatchObject({ enabled: false, a: 0 });
  });

  it('fp16 against bf16: everything is in "dtype differs", parameters unchanged', () => {
    const diff = diffSides(sideOf(fp16Tensors()), sideOf(compareBaseTensors()), ALIGN_RULES);
    expect(diff.groups.dtype.tensors).toBe(compareBaseTensors().length);
    expect(diff.groups.dtype.elementsA).toBe(diff.groups.dtype.elementsB);
    expect(diff.groups.identical.tensors).toBe(0);
  });

  it('a removed layer: its tensors are only in A, and its module is only in A with its parameter delta', () => {
    const base = compareBaseTensors();
    const diff = diffSides(sideOf(base), sideOf(minusLayerTensors()), ALIGN_RULES);
    const removed = base.filter((tensor) => tensor.name.startsWith(`model.layers.${REMOVED_LAYER}.`));
    expect(diff.groups['only-a'].tensors).toBe(removed.length);
    expect(diff.groups['only-a'].elementsA).toBe(params(removed));
    expect(diff.groups.identical.tensors).toBe(base.length - removed.length);
    const module = diff.modules.find((entry) => entry.name === `layers.${REMOVED_LAYER}`);
    expect(module).toMatchObject({ status: 'only-a', onlyA: removed.length, elementsA: params(removed), elementsB: 0 });
    expect(diff.modules.find((entry) => entry.name === 'layers.1')?.status).toBe('identical');
    expect(diff.modules.map((entry) => entry.name)).toEqual([
      'embed_tokens',
      'layers.0',
      'layers.1',
      'layers.2',
      'layers.3',
      'norm',
      'lm_head',
    ]);
  });

  it('duplicate names pair up one to one; leftovers are only on their side', () => {
    const a = sideOf([
      { name: 'x', dtype: 'F32', shape: [1] },
      { name: 'x', dtype: 'F32', shape: [1] },
    ]);
    const b = sideOf([{ name: 'x', dtype: 'F32', shape: [1] }]);
    const diff = diffSides(a, b, ALIGN_RULES);
    expect(Array.from(diff.entries.status)).toEqual([4, 0]);
  });

  it('unknown dtypes compare by their strings', () => {
    const a = sideOf([{ name: 'x', dtype: 'Q4_K', shape: [1] }]);
    const b = sideOf([{ name: 'x', dtype: 'Q8_0', shape: [1] }]);
    expect(diffSides(a, b, ALIGN_RULES).groups.dtype.tensors).toBe(1);
    expect(diffSides(a, a, ALIGN_RULES).groups.identical.tensors).toBe(1);
  });

  it('folds modules beyond the cap into one row', () => {
    const specs: TensorSpec[] = Array.from({ length: MAX_COMPARE_MODULES + 5 }, (_, i) => ({
      name: `m${i}.weight`,
      dtype: 'F32',
      shape: [1],
    }));
    const diff = diffSides(sideOf(specs), sideOf(specs), ALIGN_RULES);
    expect(diff.modules).toHaveLength(MAX_COMPARE_MODULES + 1);
    expect(diff.modules[MAX_COMPARE_MODULES]).toMatchObject({ name: OTHER_MODULES, tensors: 5 });
  });

  it('250,000 tensors per side diff in well under the worker budget', () => {
    const specs: TensorSpec[] = [];
    for (let layer = 0; specs.length < 250_000; layer++) {
      for (let expert = 0; expert < 256; expert++) {
        for (const proj of ['gate_proj', 'up_proj', 'down_proj']) {
          specs.push({
            name: `model.layers.${layer}.mlp.experts.${expert}.${proj}.weight`,
            dtype: 'BF16',
            shape: [2048, 7168],
          });
        }
      }
    }
    const a = sideOf(specs);
    const b = sideOf(specs.map((spec) => ({ ...spec, name: `module.${spec.name}` })));
    const started = performance.now();
    const diff = diffSides(a, b, ALIGN_RULES);
    const elapsed = performance.now() - started;
    expect(diff.groups.identical.tensors).toBe(specs.length);
    expect(diff.modules.length).toBe(Math.ceil(specs.length / 768));
    // About 0.5 s in Node (more under a busy test runner); the bound only catches an accidental quadratic.
    expect(elapsed).toBeLessThan(20_000);
  }, 60_000);
});

describe('property: a set against a permuted, prefixed copy of itself is all identical after alignment', () => {
  const segment = fc.oneof(
    fc.constantFrom('layers', 'mlp', 'self_attn', 'q_proj', 'weight', 'bias', 'embed_tokens', 'lm_head', 'norm'),
    fc.nat({ max: 64 }).map(String),
    fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/),
  );
  // Names that do not start with a wrapper prefix themselves (a file cannot distinguish `model.x` from `x` anyway).
  const name = fc
    .array(segment, { minLength: 1, maxLength: 5 })
    .map((parts) => parts.join('.'))
    .filter((text) => !ALIGN_RULES.some((rule) => text.startsWith(rule)));
  const tensor = fc.record({
    name,
    dtype: fc.constantFrom(...DTYPES),
    shape: fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 3 }),
  });
  const wrapper = fc.array(fc.constantFrom(...ALIGN_RULES), { maxLength: 3 }).map((prefixes) => prefixes.join(''));

  it('holds for any prefix stack on either side', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(tensor, { selector: (spec) => spec.name, minLength: 1, maxLength: 40 }),
        wrapper,
        wrapper,
        fc.integer(),
        (specs, prefixA, prefixB, seed) => {
          const permuted = [...specs];
          // Deterministic Fisher–Yates from the generated seed, so failures shrink and replay.
          let state = seed >>> 0;
          for (let i = permuted.length - 1; i > 0; i--) {
            state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
            const j = state % (i + 1);
            [permuted[i], permuted[j]] = [permuted[j], permuted[i]];
          }
          const a = sideOf(specs.map((spec) => ({ ...spec, name: prefixA + spec.name })));
          const b = sideOf(permuted.map((spec) => ({ ...spec, name: prefixB + spec.name })));
          const diff = diffSides(a, b, ALIGN_RULES);
          expect(diff.entries.count).toBe(specs.length);
          expect(diff.groups.identical.tensors).toBe(specs.length);
          expect(Array.from(diff.entries.status).every((status) => status === STATUS_IDENTICAL)).toBe(true);
          expect(diff.elementsA).toBe(diff.elementsB);
        },
      ),
      { numRuns: 300 },
    );
  });
});
