/** The shared index: name shapes, exact lookups and suffix queries, checked against plain scans of the names. */
import { describe, expect, it } from 'vitest';
import { UNKNOWN_DTYPE_CODE } from '../dtypes';
import { allTensorNames } from '../model';
import type { TensorSpec } from '../../testing/build-safetensors';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { shapeSafe, tensorIndex, type TensorIndex } from './tensor-index';
import { shapesOf } from './tensor-name-shapes';

/** `namesDistinct`: the header says so, as a parser does when no name repeats (ParsedHeader.namesDistinct). */
function indexOf(names: readonly string[], namesDistinct = false): TensorIndex {
  const specs: TensorSpec[] = names.map((name, i) => ({ name, dtype: 'F32', shape: [i + 1] }));
  const header = { ...headerFromSpecs(specs), ...(namesDistinct ? { namesDistinct: true as const } : {}) };
  return tensorIndex(header, allTensorNames(header.tensors));
}

/** What the index answers must equal: a Map filled in row order (the last of repeated names wins). */
function naiveRow(names: readonly string[], name: string): number {
  return names.lastIndexOf(name);
}

const AWKWARD = [
  'model.layers.0.self_attn.q_proj.weight',
  'model.layers.1.self_attn.q_proj.weight',
  'model.layers.10.self_attn.q_proj.weight',
  'model.layers.2.mlp.experts.17.up_proj.weight',
  'model.layers.2.mlp.experts.017.up_proj.weight', // same index tuple as the name above, different name
  'model.layers.2.mlp.experts.17.up_proj.weight', // repeated name: the last row wins
  'blocks.1234567890.weight', // 10 digits: a literal segment, not an index
  'blocks.123456789.weight', // 9 digits: an index
  'a.#.b', // a literal `#` segment is not an index
  'a.5.b',
  '0.weight',
  'x.0',
  'x..1..y',
  '.lead',
  'trail.',
  '',
  'scaled_fp8',
  'model.scaled_fp8',
  'vision.层.3.w', // non-ASCII names are read from the strings, not the bytes
  'vision.层.4.w',
  'emoji.😀.2.w', // a surrogate pair: two UTF-16 code units
];

describe('name shapes', () => {
  it('keeps thousands of distinct shapes apart as the shape table grows, and finds each again', () => {
    // Letters only: no index segment, so every path is its own shape (issue 16's distinct module paths), with
    // an indexed twin per path that must land on one shared shape per path.
    const letters = (value: number) => value.toString(26).replace(/[0-9]/g, (digit) => 'qrstuvwxyz'[Number(digit)]);
    const names: string[] = [];
    for (let i = 0; i < 3_000; i++) {
      names.push(`enc.${letters(i)}.proj.weight`, `enc.${letters(i)}.${i}.w`);
    }
    const header = headerFromSpecs(names.map((name) => ({ name, dtype: 'U8', shape: [1] })));
    const shapes = shapesOf(allTensorNames(header.tensors), header.tensors);
    expect(shapes.count).toBe(6_000);
    expect(new Set(Array.from(shapes.rowShape)).size).toBe(6_000);
    for (let i = 0; i < 3_000; i += 97) {
      expect(shapes.text[shapes.rowShape[2 * i]]).toBe(names[2 * i]);
      expect(shapes.text[shapes.rowShape[2 * i + 1]]).toBe(`enc.${letters(i)}.#.w`);
      expect(shapes.query(`enc.${letters(i)}.${i + 5}.w`)).toEqual({
        shape: shapes.rowShape[2 * i + 1],
        values: [i + 5],
      });
      expect(shapes.query(names[2 * i])).toEqual({ shape: shapes.rowShape[2 * i], values: [] });
    }
    expect(shapes.query('enc.nowhere.proj.weight')).toBeNull();
  });

  it('writes index segments as # and keeps everything else literal', () => {
    const index = indexOf(AWKWARD);
    const shapes = index.shapes();
    const shapeText = (row: number): string => shapes.text[shapes.rowShape[row]];
    const tuple = (row: number): number[] =>
      Array.from(shapes.indexValues.subarray(shapes.indexStart[row], shapes.indexStart[row + 1]));
    expect(shapeText(0)).toBe('model.layers.#.self_attn.q_proj.weight');
    expect(shapes.rowShape[2]).toBe(shapes.rowShape[0]);
    expect(tuple(2)).toEqual([10]);
    expect(tuple(3)).toEqual([2, 17]);
    expect(tuple(4)).toEqual([2, 17]);
    expect(shapeText(6)).toBe('blocks.1234567890.weight');
    expect(shapeText(7)).toBe('blocks.#.weight');
    expect(tuple(7)).toEqual([123456789]);
    // `a.#.b` and `a.5.b` print alike but are different shapes.
    expect(shapeText(8)).toBe('a.#.b');
    expect(shapeText(9)).toBe('a.#.b');
    expect(shapes.rowShape[8]).not.toBe(shapes.rowShape[9]);
    expect(shapes.pieces[shapes.rowShape[8]]).toEqual(['a.#.b']);
    expect(shapes.pieces[shapes.rowShape[9]]).toEqual(['a.', '.b']);
    expect(shapeText(10)).toBe('#.weight');
    expect(shapeText(11)).toBe('x.#');
    expect(shapeText(12)).toBe('x..#..y');
    expect(shapeText(18)).toBe('vision.层.#.w');
    expect(shapes.rowShape[19]).toBe(shapes.rowShape[18]);
    expect(tuple(19)).toEqual([4]);
  });

  it('groups rows by shape in row order', () => {
    const index = indexOf(AWKWARD);
    const shapes = index.shapes();
    for (let s = 0; s < shapes.count; s++) {
      const rows = Array.from(shapes.rowList.subarray(shapes.rowStart[s], shapes.rowStart[s + 1]));
      expect(rows).toEqual(AWKWARD.map((_, row) => row).filter((row) => shapes.rowShape[row] === s));
    }
  });
});

const ASCII_ONLY = AWKWARD.filter((name) => /^[\x20-\x7e]*$/.test(name));

// All-ASCII headers are read straight from the name bytes; others from the name strings. Both must agree.
describe.each([
  ['name bytes', ASCII_ONLY],
  ['name strings', AWKWARD],
])('lookups (%s)', (_, names) => {
  it('row() equals a Map of the names, for present, repeated and absent names', () => {
    const index = indexOf(names);
    const queries = [
      ...AWKWARD,
      'model.layers.3.self_attn.q_proj.weight',
      'model.layers.00.self_attn.q_proj.weight',
      'model.layers.2.mlp.experts.0017.up_proj.weight',
      'a.6.b',
      'a.#',
      'blocks.1234567891.weight',
      'vision.层.5.w',
      'emoji.😀.2.w',
      'emoji.😀.3.w',
      'nope',
    ];
    for (const name of queries) {
      expect([name, index.row(name)]).toEqual([name, naiveRow(names, name)]);
      expect(index.has(name)).toBe(naiveRow(names, name) >= 0);
    }
  });

  it('row() keeps answering the same after enough lookups to switch to a map of every name', () => {
    const index = indexOf(names);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 500; i++) {
        const name = i % 3 === 0 ? `missing.${i}` : names[i % names.length];
        expect(index.row(name)).toBe(naiveRow(names, name));
      }
    }
  });

  it('rowsEndingWith / rowsContaining equal a scan of the names', () => {
    const index = indexOf(names);
    for (const text of ['.weight', 'weight', 'fp8', 'scaled_fp8', '.b', '#.b', '5.b', '17.up_proj.weight', '.', '']) {
      const ending = names.map((_, row) => row).filter((row) => names[row].endsWith(text));
      const containing = names.map((_, row) => row).filter((row) => names[row].includes(text));
      expect([text, [...index.rowsEndingWith(text)]]).toEqual([text, ending]);
      expect([text, [...index.rowsContaining(text)]]).toEqual([text, containing]);
    }
  });
});

/** `model.layers.{layer}.mlp.experts.{expert}.down_proj.weight`, layer by layer. */
function expertNames(layers: number, experts: number): string[] {
  return Array.from({ length: layers * experts }, (_, i) => {
    return `model.layers.${Math.floor(i / experts)}.mlp.experts.${i % experts}.down_proj.weight`;
  });
}

describe('lookups', () => {
  it('row() agrees with a Map on a header listed in lexicographic order', () => {
    const names = expertNames(12, 11);
    names.sort();
    const index = indexOf(names);
    names.forEach((name, row) => expect(index.row(name)).toBe(row));
    expect(index.row('model.layers.12.mlp.experts.0.down_proj.weight')).toBe(-1);
  });

  it('row() on distinct names agrees with a Map before and past the rows it reads unsorted, zero-padded twins absent', () => {
    const names = expertNames(10, 20);
    // Out of tuple order, so a sort has something to do.
    names.reverse();
    const index = indexOf(names, true);
    for (const row of [0, 1, 63, 64, 65, 150, names.length - 1]) {
      expect(index.row(names[row])).toBe(row);
    }
    for (const name of [
      'model.layers.9.mlp.experts.019.down_proj.weight',
      'model.layers.10.mlp.experts.0.down_proj.weight',
      'model.layers.0.mlp.experts.20.down_proj.weight',
    ]) {
      expect(index.row(name)).toBe(-1);
    }
    names.forEach((name, row) => expect(index.row(name)).toBe(row));
  });

  it('knows which literals a shape text answers for', () => {
    expect(shapeSafe('.weight_scale_inv')).toBe(true);
    expect(shapeSafe('scaled_fp8')).toBe(true);
    expect(shapeSafe('.experts.')).toBe(true);
    expect(shapeSafe('.0.weight')).toBe(false);
    expect(shapeSafe('5')).toBe(false);
    expect(shapeSafe('.#.')).toBe(false);
  });
});

/** Module paths whose sidecars the sibling tests look up: index segments of every kind, and the same twists. */
const MODULES = [
  'model.layers.0.mlp',
  'model.layers.1.mlp',
  'model.layers.10.mlp',
  'model.layers.010.mlp', // same tuple as the one above, different name
  'model.layers.2.mlp.experts.17.up_proj',
  'model.layers.2.mlp.experts.017.up_proj',
  'blocks.1234567890.attn', // 10 digits: literal
  'blocks.123456789.attn',
  'a.#',
  'a.5',
  '0',
  'x..1..y',
  'vision.层.3',
  'emoji.😀.2',
  '',
];

function sidecarNames(modules: readonly string[]): string[] {
  const names: string[] = [];
  modules.forEach((module, i) => {
    names.push(`${module}.weight_scale_inv`);
    if (i % 4 !== 1) {
      names.push(`${module}.weight`); // every fourth module has no weight
    }
    if (i % 3 === 0) {
      names.push(`${module}.weight.absmax`, `${module}_blocks`, `${module}_scales`);
    }
  });
  // Only the zero-padded twin has an input scale: the plain one must not find it by its equal tuple.
  names.push('model.layers.010.mlp.input_scale', 'model.layers.2.mlp.experts.017.up_proj.input_scale');
  // A repeated name: the last row wins.
  names.push('model.layers.0.mlp.weight');
  names.push('x.0', 'x.0.weight', 'x.0.0'); // names ending in an index segment
  names.push('b.5x', 'b.5'); // `b.5x` minus `x` is `b.5`, whose 5 is an index segment
  // Neighbours with the sibling's shape and tuple, alone in their shape: only the one spelled the same is found.
  names.push('c.07.weight_scale_inv', 'c.07.weight', 'd.07.weight_scale_inv', 'd.7.weight');
  names.push('e.8.weight_scale_inv', 'e.08.weight', 'f.9.weight', 'f.9.weight_scale_inv');
  // A neighbour with the sibling's tuple but another spelling, and the sibling itself further on.
  names.push('g.5.weight_scale_inv', 'g.05.weight', 'h.1', 'g.5.weight');
  return names;
}

const SUFFIX_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['.weight_scale_inv', '.weight'],
  ['.weight', '.weight_scale_inv'],
  ['.weight_scale_inv', '.input_scale'],
  ['.weight', '.weight.absmax'],
  ['.weight.absmax', '.weight'],
  ['_blocks', '_scales'], // not dotted: asked by name
  ['blocks', 'scales'],
  ['.weight', '.0'], // not shapeSafe: asked by name
  ['.weight', ''],
  ['.0', '.0.weight'],
  ['x', ''],
];

/**
 * Every sibling answer must equal row() of the built name, for every row that ends with the suffix; and again
 * with each name once, on a header that says its names are distinct (the neighbour is then taken unsorted).
 */
function expectSiblingsMatchNames(names: readonly string[]): void {
  expectSiblingsOf(names, false);
  const distinct = [...new Set(names)];
  expectSiblingsOf(distinct, true);
}

function expectSiblingsOf(names: readonly string[], namesDistinct: boolean): void {
  const index = indexOf(names, namesDistinct);
  const rowOf = new Map(names.map((name, row) => [name, row])); // filled in row order: the last repeat wins
  const answers: string[] = [];
  const expected: string[] = [];
  for (const [suffix, siblingSuffix] of SUFFIX_PAIRS) {
    names.forEach((name, row) => {
      if (name.endsWith(suffix)) {
        const wanted = name.slice(0, name.length - suffix.length) + siblingSuffix;
        answers.push(`${name} ${suffix}→${siblingSuffix}: ${index.sibling(row, suffix, siblingSuffix)}`);
        expected.push(`${name} ${suffix}→${siblingSuffix}: ${rowOf.get(wanted) ?? -1}`);
      }
    });
  }
  expect(answers.length).toBeGreaterThan(names.length);
  expect(answers).toEqual(expected);
}

describe.each([
  ['name bytes', MODULES.filter((name) => /^[\x20-\x7e]*$/.test(name))],
  ['name strings', MODULES],
])('sibling (%s)', (_, modules) => {
  it('equals row() of the name with its suffix swapped: zero-padded twins, repeats, absent siblings', () => {
    expectSiblingsMatchNames(sidecarNames(modules));
  });

  it('equals row() on a header listed in lexicographic order (shapes sorted by tuple first)', () => {
    expectSiblingsMatchNames(sidecarNames(modules).sort());
  });
});

describe('sibling', () => {
  it('keeps answering the same past the number of shapes it resolves, when it asks by name', () => {
    const letters = (value: number) => value.toString(26).replace(/[0-9]/g, (digit) => 'qrstuvwxyz'[Number(digit)]);
    const modules: string[] = [];
    for (let i = 0; i < 1_500; i++) {
      modules.push(`enc.${letters(i)}.proj`); // no index segment: every module its own shapes
    }
    expectSiblingsMatchNames(sidecarNames(modules));
  });

  it('finds each expert projection of a many-layer MoE header, and nothing for the missing ones', () => {
    const names: string[] = [];
    for (let layer = 0; layer < 8; layer++) {
      for (let expert = 0; expert < 40; expert++) {
        for (const projection of ['gate_proj', 'up_proj', 'down_proj']) {
          const module = `model.layers.${layer}.mlp.experts.${expert}.${projection}`;
          names.push(`${module}.weight`);
          if ((layer * 40 + expert) % 7 !== 3) {
            names.push(`${module}.weight_scale_inv`);
          }
        }
      }
    }
    expectSiblingsMatchNames(names);
  });
});

describe('dtypeCounts', () => {
  it('counts every row under its dtype code, codes outside the spec included', () => {
    const specs: TensorSpec[] = [
      { name: 'a', dtype: 'F32', shape: [2] },
      { name: 'b', dtype: 'Q9_X', shape: [4] },
      { name: 'c', dtype: 'BF16', shape: [1] },
      { name: 'd', dtype: 'F32', shape: [3] },
      { name: 'e', dtype: 'Q7_Y', shape: [1] },
    ];
    const header = headerFromSpecs(specs);
    const counts = tensorIndex(header, allTensorNames(header.tensors)).dtypeCounts();
    const expected = new Uint32Array(256);
    for (const code of header.tensors.dtype) {
      expected[code]++;
    }
    expect(counts).toEqual(expected);
    expect(counts[UNKNOWN_DTYPE_CODE]).toBe(2);
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(specs.length);
  });
});
