/** Filtering and sorting the comparison table in the worker: groups, module, substring/regex, every sort key. */
import { describe, expect, it } from 'vitest';
import { ALIGN_RULES } from './align';
import { DEFAULT_COMPARE_QUERY, entryKeys, queryCompare, type CompareQuery } from './compare-query';
import { diffSides } from './diff';
import { sideOf } from '../../testing/compare-builders';

const a = sideOf([
  { name: 'model.layers.0.a.weight', dtype: 'F32', shape: [2, 3] },
  { name: 'model.layers.0.b.weight', dtype: 'F32', shape: [4] },
  { name: 'model.layers.1.a.weight', dtype: 'F32', shape: [4, 4] },
  { name: 'model.norm.weight', dtype: 'BF16', shape: [10] },
]);
const b = sideOf([
  { name: 'module.model.layers.0.a.weight', dtype: 'F32', shape: [2, 3] },
  { name: 'module.model.layers.0.b.weight', dtype: 'F16', shape: [4] },
  { name: 'module.model.layers.1.a.weight', dtype: 'F32', shape: [4, 8] },
  { name: 'module.lm_head.weight', dtype: 'F32', shape: [7] },
]);
const diff = diffSides(a, b, ALIGN_RULES);
const input = {
  entries: diff.entries,
  moduleNames: diff.modules.map((module) => module.name),
  columnsA: a.columns,
  columnsB: b.columns,
  namesA: a.names,
  namesB: b.names,
  keys: entryKeys(diff.entries, a.names, b.names),
};
const run = (patch: Partial<CompareQuery>) => queryCompare(input, { ...DEFAULT_COMPARE_QUERY, ...patch });
const keysOf = (patch: Partial<CompareQuery>) => Array.from(run(patch).order).map((i) => input.keys[i]);

describe('queryCompare', () => {
  it('keys are the aligned names, A order then B-only', () => {
    expect(input.keys).toEqual([
      'layers.0.a.weight',
      'layers.0.b.weight',
      'layers.1.a.weight',
      'norm.weight',
      'lm_head.weight',
    ]);
  });

  it('filters by group and by module', () => {
    expect(keysOf({ groups: ['dtype', 'shape'] })).toEqual(['layers.0.b.weight', 'layers.1.a.weight']);
    expect(keysOf({ groups: ['only-a', 'only-b'] })).toEqual(['norm.weight', 'lm_head.weight']);
    expect(keysOf({ module: 'layers.0' })).toEqual(['layers.0.a.weight', 'layers.0.b.weight']);
    expect(keysOf({ module: 'no such module' })).toEqual([]);
  });

  it('filters by substring, /regex/ and the full (unaligned) names; bad regexes say why', () => {
    expect(keysOf({ filter: 'LAYERS.1' })).toEqual(['layers.1.a.weight']);
    expect(keysOf({ filter: '/^layers\\.0\\./' })).toEqual(['layers.0.a.weight', 'layers.0.b.weight']);
    expect(keysOf({ filter: 'module.lm' })).toEqual(['lm_head.weight']);
    expect(run({ filter: '/(/' }).filterError).toMatch(/Invalid regular expression/);
  });

  it('sorts by every key, both directions', () => {
    expect(keysOf({ sortKey: 'name' })).toEqual([
      'layers.0.a.weight',
      'layers.0.b.weight',
      'layers.1.a.weight',
      'lm_head.weight',
      'norm.weight',
    ]);
    expect(keysOf({ sortKey: 'status' })[0]).toBe('norm.weight');
    expect(keysOf({ sortKey: 'delta', descending: true })[0]).toBe('layers.1.a.weight');
    expect(keysOf({ sortKey: 'delta' })[0]).toBe('norm.weight');
    expect(keysOf({ sortKey: 'paramsA', descending: true })[0]).toBe('layers.1.a.weight');
    expect(keysOf({ sortKey: 'paramsB' })[0]).toBe('norm.weight');
    expect(keysOf({ sortKey: 'shape' })).toEqual([
      'layers.0.b.weight',
      'lm_head.weight',
      'norm.weight',
      'layers.0.a.weight',
      'layers.1.a.weight',
    ]);
    expect(keysOf({ sortKey: 'index', descending: true })[0]).toBe('lm_head.weight');
    expect(keysOf({ sortKey: 'dtype' }).length).toBe(5);
  });
});
