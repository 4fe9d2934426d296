/** joinShapes: the shapes of tables laid end to end, from each table's own, equal those of the joined names. */
import { describe, expect, it } from 'vitest';
import { allTensorNames } from '../model';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { joinShapes, shapesOf, type ParsedShapes } from './tensor-name-shapes';

function shapesOfNames(names: readonly string[]): ParsedShapes {
  const header = headerFromSpecs(names.map((name) => ({ name, dtype: 'U8', shape: [1] })));
  return shapesOf(allTensorNames(header.tensors), header.tensors);
}

/** Everything but `query`, which is compared by asking. */
/** The shapes' fields, without the query and without a join's own record of where each part's shapes went. */
function plain(shapes: ParsedShapes): object {
  const { query: _query, ...rest } = shapes;
  delete (rest as { partShapeIds?: unknown }).partShapeIds;
  return {
    ...rest,
    indexValues: Array.from(shapes.indexValues.subarray(0, shapes.indexStart[shapes.rowShape.length])),
  };
}

const NAMES = [
  'model.embed_tokens.weight',
  'model.layers.0.self_attn.q_proj.weight',
  'model.layers.0.mlp.experts.17.up_proj.weight',
  'model.layers.0.mlp.experts.017.up_proj.weight',
  'model.layers.1.self_attn.q_proj.weight',
  'model.layers.1.self_attn.q_proj.weight',
  'blocks.1234567890.weight',
  'blocks.123456789.weight',
  'a.#.b',
  'a.5.b',
  'x..1..y',
  '',
  'vision.层.3.w',
  'emoji.😀.2.w',
  'model.layers.2.mlp.experts.3.down_proj.weight',
  'model.norm.weight',
  'lm_head.weight',
];

describe('joinShapes', () => {
  it('gives the shapes of the joined names, ids in order of first appearance, however the rows are split', () => {
    const whole = shapesOfNames(NAMES);
    for (const cuts of [[], [1], [4, 9], [2, 5, 6, 12, 16], [0, 17], [3, 3, 10]]) {
      const bounds = [0, ...cuts, NAMES.length];
      const parts = bounds.slice(1).map((end, i) => shapesOfNames(NAMES.slice(bounds[i], end)));
      const joined = joinShapes(parts);
      expect(plain(joined), `cuts ${cuts.join(',')}`).toEqual(plain(whole));
      for (const name of [...NAMES, 'model.layers.77.self_attn.q_proj.weight', 'a.9.b', 'not.there', 'emoji.😀.9.w']) {
        expect(joined.query(name), name).toEqual(whole.query(name));
      }
      // Each part's shape ids lead to the joined shape of the same pieces.
      parts.forEach((part, p) => {
        expect(Array.from(joined.partShapeIds[p], (id) => joined.keys[id])).toEqual(part.keys);
      });
    }
  });

  it('joins a thousand shards of an MoE layout', () => {
    const names: string[] = [];
    for (let layer = 0; layer < 20; layer++) {
      for (let expert = 0; expert < 50; expert++) {
        for (const proj of ['gate_proj', 'up_proj', 'down_proj']) {
          names.push(`model.layers.${layer}.mlp.experts.${expert}.${proj}.weight`);
        }
      }
      names.push(`model.layers.${layer}.input_layernorm.weight`);
    }
    const parts: ParsedShapes[] = [];
    for (let at = 0; at < names.length; at += 3) {
      parts.push(shapesOfNames(names.slice(at, at + 3)));
    }
    expect(plain(joinShapes(parts))).toEqual(plain(shapesOfNames(names)));
  });
});
