import { describe, expect, it } from 'vitest';
import { allTensorNames } from './model';
import { parseFileHead } from './parse/parse-header';
import { compileFilter, DEFAULT_QUERY, fileOrderAnswer, nameFilter, namesFilter, queryRows } from './table-query';
import { MAX_ROWS_ORDERED_IN_PAGE } from './limits';
import { buildHeaderBytes } from '../testing/build-safetensors';

function loaded(names: string[]) {
  const { head, dataLength } = buildHeaderBytes(names.map((name) => ({ name, dtype: 'F16', shape: [2] })));
  const outcome = parseFileHead(head, head.length + dataLength);
  if (outcome.kind !== 'parsed') {
    throw new Error('test header did not parse');
  }
  return { columns: outcome.header.tensors, names: allTensorNames(outcome.header.tensors) };
}

describe('queryRows name sort', () => {
  it('sorts numbers inside names as numbers, both directions', () => {
    const { columns, names } = loaded([
      'model.layers.10.mlp.weight',
      'model.layers.2.mlp.weight',
      'model.layers.1.mlp.experts.869.weight',
      'model.layers.1.mlp.experts.87.weight',
      'model.layers.1.mlp.experts.870.weight',
      'h.10.attn',
      'h.2.attn',
    ]);
    const sortedNames = (descending: boolean) =>
      Array.from(queryRows(columns, names, { ...DEFAULT_QUERY, sortKey: 'name', descending }).order).map(
        (row) => names[row],
      );
    const ascending = [
      'h.2.attn',
      'h.10.attn',
      'model.layers.1.mlp.experts.87.weight',
      'model.layers.1.mlp.experts.869.weight',
      'model.layers.1.mlp.experts.870.weight',
      'model.layers.2.mlp.weight',
      'model.layers.10.mlp.weight',
    ];
    expect(sortedNames(false)).toEqual(ascending);
    expect(sortedNames(true)).toEqual([...ascending].reverse());
  });
});

describe('nameFilter', () => {
  it('keeps every row for an empty filter and for an invalid regex, whose error it returns', () => {
    expect(nameFilter('  ')).toEqual({ test: null, filterError: null });
    const invalid = nameFilter('/(/');
    expect(invalid.test).toBeNull();
    expect(invalid.filterError).toMatch(/^Invalid regular expression \/.*\/[a-z]*: \S/);
    expect(invalid.filterError).toBe('Invalid regular expression /(/: Unterminated group');
  });

  it('tests substrings case-insensitively and regexes as written', () => {
    expect(nameFilter('Q_PROJ').test?.('model.q_proj.weight')).toBe(true);
    expect(nameFilter('/^model\\.k/').test?.('model.q_proj.weight')).toBe(false);
  });
});

describe('namesFilter', () => {
  const kept = (filter: string, among: readonly string[]) => {
    const compiled = compileFilter(filter);
    if (!compiled.ok) {
      throw new Error(compiled.error);
    }
    return among.filter(compiled.test);
  };
  const expert = (layer: number, n: number, part: string) => `model.layers.${layer}.mlp.experts.${n}.${part}.weight`;
  const among = [3, 13].flatMap((layer) =>
    [1, 17, 117].flatMap((n) => ['gate_proj', 'up_proj', 'down_proj'].map((part) => expert(layer, n, part))),
  );

  it("gives one expert's tensors as their shared start, which keeps no other layer's or expert's", () => {
    const names = ['gate_proj', 'up_proj', 'down_proj'].map((part) => expert(3, 17, part));
    expect(namesFilter(names, among)).toBe('model.layers.3.mlp.experts.17.');
    expect(kept(namesFilter(names, among), among)).toEqual(names);
  });

  it('spells the names out when their shared start would keep others too', () => {
    const stacks = ['blk.3.ffn_gate_exps.weight', 'blk.3.ffn_up_exps.weight', 'blk.3.ffn_down_exps.weight'];
    const all = [...stacks, 'blk.3.attn_q.weight', 'blk.30.ffn_up_exps.weight'];
    const filter = namesFilter(stacks, all);
    expect(filter).toBe(
      '/^(?:blk\\.3\\.ffn_gate_exps\\.weight|blk\\.3\\.ffn_up_exps\\.weight|blk\\.3\\.ffn_down_exps\\.weight)$/',
    );
    expect(kept(filter, all)).toEqual(stacks);
  });

  it('escapes what a regular expression would read, and keeps nothing for no names', () => {
    const odd = ['a(1)+[x]/y', 'b.*?$'];
    expect(kept(namesFilter(odd, [...odd, 'a1x/y', 'bzzz']), [...odd, 'a1x/y', 'bzzz'])).toEqual(odd);
    expect(namesFilter([], among)).toBe('');
  });
});

describe('fileOrderAnswer', () => {
  const { columns, names } = loaded(['b.weight', 'a.weight', 'c.bias', 'a.bias']);

  it('answers a query that keeps every row in file order exactly as the worker would', () => {
    for (const descending of [false, true]) {
      const query = { ...DEFAULT_QUERY, descending };
      expect(fileOrderAnswer(query, columns.count)).toEqual(queryRows(columns, names, query));
    }
  });

  it('leaves every other query, and tables past the limit, to the worker', () => {
    for (const patch of [
      { filter: 'weight' },
      { dtypes: ['F16'] },
      { module: 'a' },
      { rows: [1, 2] },
      { sortKey: 'name' as const },
    ]) {
      expect(fileOrderAnswer({ ...DEFAULT_QUERY, ...patch }, columns.count)).toBeNull();
    }
    expect(fileOrderAnswer(DEFAULT_QUERY, MAX_ROWS_ORDERED_IN_PAGE)?.order).toHaveLength(MAX_ROWS_ORDERED_IN_PAGE);
    expect(fileOrderAnswer(DEFAULT_QUERY, MAX_ROWS_ORDERED_IN_PAGE + 1)).toBeNull();
    // A filter of spaces keeps every row, as the worker's filter does.
    expect(fileOrderAnswer({ ...DEFAULT_QUERY, filter: '  ' }, columns.count)?.order).toEqual(
      queryRows(columns, names, { ...DEFAULT_QUERY, filter: '  ' }).order,
    );
  });
});
