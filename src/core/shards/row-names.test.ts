import { describe, expect, it } from 'vitest';
import { parsedHeaderFromSpecs } from '../../testing/build-sharded';
import { parseShardIndex, type ShardIndex } from './index-parser';
import { indexEntriesOf, rowNames, singleIndexShard } from './row-names';

function index(weightMap: Record<string, string>): ShardIndex {
  const result = parseShardIndex(new TextEncoder().encode(JSON.stringify({ weight_map: weightMap })));
  if (!result.ok) {
    throw new Error(result.finding.message);
  }
  return result.index;
}

const columns = (names: string[]) =>
  parsedHeaderFromSpecs(names.map((name) => ({ name, dtype: 'F32' as const, shape: [1] }))).tensors;

describe('rowNames', () => {
  const rows = ['a', 'b', 'a', 'c', 'b'];

  it('groups rows by name and finds each name in the index through the table the scan built', () => {
    const withTable = index({ b: 's1', a: 's2', c: 's1' });
    expect(rowNames(columns(rows), withTable)).toEqual({
      firstOf: Int32Array.from([0, 1, 0, 3, 1]),
      entryOf: Int32Array.from([1, 0, 1, 2, 0]),
      repeated: true,
    });
    const { nameTable: _table, ...withoutTable } = withTable;
    expect(rowNames(columns(rows), withoutTable)).toEqual(rowNames(columns(rows), withTable));
    // Shard by shard, as the reading asks: the table built for an index without one serves every shard.
    for (const shard of [
      ['c', 'a'],
      ['b', 'x'],
    ]) {
      expect(indexEntriesOf(withoutTable, columns(shard))).toEqual(indexEntriesOf(withTable, columns(shard)));
    }
    expect(Array.from(indexEntriesOf(withoutTable, columns(['b', 'x'])))).toEqual([0, -1]);
  });

  it('groups names the index lacks by their bytes, repeats included', () => {
    const names = rowNames(columns(['x', 'a', 'x', 'y']), index({ a: 's1' }));
    expect(names.entryOf).toEqual(Int32Array.from([-1, 0, -1, -1]));
    expect(names.firstOf).toEqual(Int32Array.from([0, 1, 0, 3]));
    expect(names.repeated).toBe(true);
    expect(rowNames(columns(['x', 'a', 'y']), index({ a: 's1' })).repeated).toBe(false);
  });

  it('without an index, only groups', () => {
    expect(rowNames(columns(rows), null)).toEqual({
      firstOf: Int32Array.from([0, 1, 0, 3, 1]),
      entryOf: null,
      repeated: true,
    });
    expect(rowNames(columns(['a', 'b']), null).repeated).toBe(false);
    expect(rowNames(columns(['a', 'b']), index({ a: 's1', b: 's1' })).repeated).toBe(false);
  });
});

describe('indexEntriesOf', () => {
  /** Entry ids of an index are the weight_map's order (its names are distinct). */
  const expected = (weightMap: Record<string, string>, names: string[]) => {
    const ids = new Map(Object.keys(weightMap).map((name, id) => [name, id]));
    return Int32Array.from(names, (name) => ids.get(name) ?? -1);
  };

  it('finds every row of an FP8 shard, sorted by dtype then name, in an index sorted by name', () => {
    const layers = [0, 1, 2, 10, 11];
    const weights = layers.flatMap((layer) =>
      ['down_proj', 'gate_proj', 'up_proj'].map((proj) => `model.layers.${layer}.mlp.${proj}.weight`),
    );
    const weightMap: Record<string, string> = {};
    for (const name of [...weights, ...weights.map((name) => `${name}_scale_inv`)].sort()) {
      weightMap[name] = 's1';
    }
    // The header's order: the F32 scales as one group, then the F8 weights, each sorted by name.
    const header = [...weights.map((name) => `${name}_scale_inv`).sort(), ...[...weights].sort()];
    expect(indexEntriesOf(index(weightMap), columns(header))).toEqual(expected(weightMap, header));
  });

  it('matches the table on repeats, names the index lacks, and guesses past its last entry', () => {
    const weightMap = { a: 's1', b: 's1', c: 's1', d: 's2' };
    for (const header of [
      ['a', 'a', 'b', 'b', 'c'],
      ['c', 'd', 'x', 'd'],
      ['d', 'a', 'y', 'b', 'c', 'd'],
      ['ab', 'b', 'bc', 'c'],
    ]) {
      const set = index(weightMap);
      expect(indexEntriesOf(set, columns(header))).toEqual(expected(weightMap, header));
      const { nameTable: _table, ...withoutTable } = set;
      expect(indexEntriesOf(withoutTable, columns(header))).toEqual(expected(weightMap, header));
    }
  });
});

describe('singleIndexShard', () => {
  const set = index({ a: 's1', b: 's1', c: 's2', d: 's2' });
  const shardOf = (names: string[]) => singleIndexShard(set, indexEntriesOf(set, columns(names)));

  it("gives the index shard of a header whose every name is that shard's", () => {
    expect(set.shardFiles).toEqual(['s1', 's2']);
    expect(shardOf(['b', 'a'])).toBe(0);
    expect(shardOf(['c'])).toBe(1);
    // A subset or a repeat still has one shard: the merge compares the count and the header's distinct names.
    expect(shardOf(['d', 'd'])).toBe(1);
  });

  it('gives -1 for names of two shards, a name the index lacks, or no names', () => {
    expect(shardOf(['a', 'c'])).toBe(-1);
    expect(shardOf(['c', 'a'])).toBe(-1);
    expect(shardOf(['a', 'x'])).toBe(-1);
    expect(shardOf(['x', 'a'])).toBe(-1);
    expect(shardOf([])).toBe(-1);
  });
});
