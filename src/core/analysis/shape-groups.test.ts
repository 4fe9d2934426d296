/**
 * Shape groups: joined from parts they equal the whole table's, and the memory analysis' weights from them equal its
 * weights from every row, on the layouts whose sums differ by part, dtype or layer (MTP layers, packed words and
 * blocks, quantization sidecars, rows without offsets).
 */
import { describe, expect, it } from 'vitest';
import type { TensorSpec } from '../../testing/build-safetensors';
import { awqLlama2Fixture } from '../../testing/models/awq-llama2-7b';
import { bnbNf4Llama3Fixture } from '../../testing/models/bnb-llama';
import { deepseekV3Fixture } from '../../testing/models/fp8-deepseek-v3';
import { gptOss20bFixture } from '../../testing/models/gpt-oss-20b';
import { gptqLlama2Fixture } from '../../testing/models/gptq-llama2-7b';
import { headerFromSpecs, inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import { mixtralFixture, tinyLlamaFixture } from '../../testing/models/plain-models';
import { DEEPSEEK_V3_CONFIG, GPT_OSS_20B_CONFIG, MIXTRAL_8X7B_CONFIG } from '../../testing/models/published-configs';
import { allTensorNames } from '../model';
import { analyzeMemory } from './memory/memory';
import {
  groupShapeRows,
  joinShapeGroups,
  MAX_GROUPED_FIRST_INDEX,
  shapeGroupsOf,
  type ShapeGroups,
} from './shape-groups';
import { provideShapes, tensorIndex } from './tensor-index';
import { joinShapes, shapesOf } from './tensor-name-shapes';

const FIXTURES: Record<string, () => ModelFixture> = {
  'DeepSeek-V3 FP8 with its MTP layer': () => ({ ...deepseekV3Fixture(), sidecars: { config: DEEPSEEK_V3_CONFIG } }),
  'gpt-oss MXFP4 blocks': () => ({ ...gptOss20bFixture(24), sidecars: { config: GPT_OSS_20B_CONFIG } }),
  'GPTQ int32 words': gptqLlama2Fixture,
  'AWQ int32 words': awqLlama2Fixture,
  'bitsandbytes NF4 sidecars': bnbNf4Llama3Fixture,
  'Mixtral experts': () => ({ ...mixtralFixture(), sidecars: { config: MIXTRAL_8X7B_CONFIG } }),
  // Without config.json the expert count is the highest expert index + 1.
  'Mixtral experts, no config': () => mixtralFixture(),
  'DeepSeek-V3, no config': deepseekV3Fixture,
  'plain BF16': () => tinyLlamaFixture(),
  // The highest layer in the first part: a join must take the maximum, not the last part's value.
  'layers in reverse order': () => {
    const fixture = tinyLlamaFixture(4);
    return { ...fixture, specs: [...fixture.specs].reverse() };
  },
  // One shape, one layer, dtypes alternating row by row: each row leaves the group the row before it used.
  'one shape in two dtypes, interleaved': () => ({
    fileName: 'model.safetensors',
    specs: [
      { name: 'model.layers.0.self_attn.k_proj.weight', dtype: 'BF16', shape: [8, 8] },
      { name: 'model.layers.0.self_attn.v_proj.weight', dtype: 'BF16', shape: [8, 8] },
      ...Array.from({ length: 9 }, (_, expert) => ({
        name: `model.layers.0.mlp.experts.${expert}.w1.weight`,
        dtype: expert % 2 === 0 ? 'F16' : 'BF16',
        shape: [8, 8 + expert],
      })),
    ],
  }),
  // No config.json: the main stack's layer count is the first MTP layer's index (eh_proj), here past the cap.
  'an MTP layer past the grouping cap': () => ({
    fileName: 'model.safetensors',
    specs: [
      { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [32, 8] },
      { name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'BF16', shape: [8, 8] },
      { name: 'model.layers.0.self_attn.k_proj.weight', dtype: 'BF16', shape: [8, 8] },
      { name: 'model.layers.0.self_attn.v_proj.weight', dtype: 'BF16', shape: [8, 8] },
      { name: `model.layers.${MAX_GROUPED_FIRST_INDEX + 5}.mlp.up_proj.weight`, dtype: 'F16', shape: [8, 8] },
      { name: `model.layers.${MAX_GROUPED_FIRST_INDEX + 7}.eh_proj.weight`, dtype: 'F16', shape: [8, 16] },
      { name: `model.layers.${MAX_GROUPED_FIRST_INDEX + 9}.mlp.up_proj.weight`, dtype: 'F16', shape: [8, 8] },
      { name: 'model.norm.weight', dtype: 'F32', shape: [8] },
    ],
  }),
};

/** The fixture's rows cut into `parts` runs, each parsed as a header of its own (a shard set's shards). */
function splitSpecs(specs: readonly TensorSpec[], parts: number): TensorSpec[][] {
  const size = Math.ceil(specs.length / parts);
  return Array.from({ length: parts }, (_, part) => specs.slice(part * size, (part + 1) * size)).filter(
    (run) => run.length > 0,
  );
}

/** Groups as sorted text lines, so that two groupings of the same rows compare equal whatever their order. */
function groupLines(groups: ShapeGroups, text: readonly string[]): string[] {
  return Array.from({ length: groups.count }, (_, g) =>
    [
      text[groups.shape[g]],
      groups.dtype[g],
      groups.first[g],
      groups.tensors[g],
      groups.bytes[g],
      groups.elements[g],
      groups.nonEmpty[g],
    ].join(' '),
  ).sort();
}

/** Each shape's highest index values as text lines. */
function highestLines(groups: ShapeGroups, text: readonly string[]): string[] {
  return text
    .map(
      (shape, s) =>
        `${shape} ${groups.highestIndex.subarray(groups.highestIndexStart[s], groups.highestIndexStart[s + 1]).join(',')}`,
    )
    .sort();
}

/** The fixture's input with its shapes joined from three parts and the parts' groups joined, as a shard set's. */
function inputWithJoinedGroups(fixture: ModelFixture) {
  const input = inputFromFixture(fixture);
  const partShapes = splitSpecs(fixture.specs, 3).map((specs) => {
    const header = headerFromSpecs(specs);
    const shapes = shapesOf(allTensorNames(header.tensors), header.tensors);
    return { shapes, groups: groupShapeRows(shapes, header.tensors) };
  });
  const joined = joinShapes(partShapes.map((part) => part.shapes));
  provideShapes(input.header, input.names, joined);
  const groups = joinShapeGroups(
    joined,
    partShapes.map((part) => part.groups as ShapeGroups),
    joined.partShapeIds,
  );
  return { input, joined, groups };
}

describe('shape groups', () => {
  it.each(Object.entries(FIXTURES))('%s: joined from three parts they equal the whole table’s', (_, fixture) => {
    const { input, joined, groups } = inputWithJoinedGroups(fixture());
    const whole = inputFromFixture(fixture());
    const wholeShapes = shapesOf(whole.names, whole.header.tensors);
    const wholeGroups = groupShapeRows(wholeShapes, whole.header.tensors);
    expect(groups).not.toBeNull();
    expect(shapeGroupsOf(tensorIndex(input.header, input.names).shapes())).toBe(groups);
    expect(groupLines(groups as ShapeGroups, joined.text)).toEqual(
      groupLines(wholeGroups as ShapeGroups, wholeShapes.text),
    );
    expect(highestLines(groups as ShapeGroups, joined.text)).toEqual(
      highestLines(wholeGroups as ShapeGroups, wholeShapes.text),
    );
  });

  it.each(Object.entries(FIXTURES))('%s: the weights from groups equal the weights from every row', (_, fixture) => {
    const byRows = analyzeMemory(inputFromFixture(fixture()));
    const { input } = inputWithJoinedGroups(fixture());
    const byGroups = analyzeMemory(input);
    expect(byRows).not.toBeNull();
    expect(byGroups?.weights.byPart).toEqual(byRows?.weights.byPart);
    expect(byGroups?.weights.byDtype).toEqual(byRows?.weights.byDtype);
    expect(byGroups).toEqual(byRows);
  });

  it('gives the expert count without config.json from the highest expert index', () => {
    const section = analyzeMemory(inputWithJoinedGroups(mixtralFixture()).input);
    expect(section?.moe?.experts).toBe(8);
  });

  it('tells MTP layers past the cap from the main stack by their rows, not their capped groups', () => {
    const section = analyzeMemory(inputWithJoinedGroups(FIXTURES['an MTP layer past the grouping cap']()).input);
    // Layers cap + 7 and cap + 9 are MTP layers (from cap + 7 on), cap + 5 is not, though all three group at the cap.
    expect(section?.weights.byPart.find((part) => part.part === 'mtp')?.tensors).toBe(2);
  });

  it('a table with rows its shapes do not cover is not grouped', () => {
    const header = headerFromSpecs([{ name: 'a.weight', dtype: 'F32', shape: [2] }]);
    const other = headerFromSpecs([
      { name: 'a.weight', dtype: 'F32', shape: [2] },
      { name: 'b.weight', dtype: 'F32', shape: [2] },
    ]);
    expect(groupShapeRows(shapesOf(allTensorNames(header.tensors), header.tensors), other.tensors)).toBeNull();
  });
});
