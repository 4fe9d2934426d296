/** An index's tensor names, paged with their shard files for an index opened alone. */
import { describe, expect, it } from 'vitest';
import { INDEX_ENTRIES_SECTION, indexEntriesPager } from './index-entries';
import { parseShardIndex } from './index-parser';

const index = (() => {
  const weightMap: Record<string, string> = {};
  for (let layer = 0; layer < 30; layer++) {
    weightMap[`model.layers.${layer}.mlp.up_proj.weight`] =
      `model-0000${1 + Math.floor(layer / 10)}-of-00003.safetensors`;
  }
  weightMap['lm_head.weight'] = 'model-00003-of-00003.safetensors';
  const parsed = parseShardIndex(new TextEncoder().encode(JSON.stringify({ metadata: {}, weight_map: weightMap })));
  if (!parsed.ok) {
    throw new Error('fixture index did not parse');
  }
  return parsed.index;
})();

describe('indexEntriesPager', () => {
  const page = indexEntriesPager(index);

  it('pages the names in weight_map order, each with its shard file', () => {
    const second = page({ section: INDEX_ENTRIES_SECTION, from: 10, count: 3 });
    expect(second).toMatchObject({ from: 10, total: 31, ids: [10, 11, 12] });
    expect(second?.items).toEqual([
      'model.layers.10.mlp.up_proj.weight',
      'model.layers.11.mlp.up_proj.weight',
      'model.layers.12.mlp.up_proj.weight',
    ]);
    expect(second?.shards).toEqual(Array(3).fill('model-00002-of-00003.safetensors'));
    expect(page({ section: INDEX_ENTRIES_SECTION, from: 30, count: 50 })?.items).toEqual(['lm_head.weight']);
  });

  it('finds names across every page, with their ids and shards', () => {
    const found = page({ section: INDEX_ENTRIES_SECTION, from: 1, count: 2, find: '.2' });
    // layers 2 and 20–29 contain ".2": eleven matches, the second and third shown.
    expect(found).toMatchObject({ total: 11, ids: [20, 21] });
    expect(found?.shards).toEqual(['model-00003-of-00003.safetensors', 'model-00003-of-00003.safetensors']);
  });

  it('answers no other list', () => {
    expect(page({ section: 'tokens', from: 0, count: 5 })).toBeNull();
  });
});
