import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { headerFromSpecs, inputFromFixture } from '../../testing/models/header-from-specs';
import { tensorName, tensorShape } from '../model';
import { MAX_NAME_DISPLAY_CHARS } from '../limits';
import { TABLE_WIDTH_ROWS_PER_STEP } from './analysis-limits';
import { formatShape, formatTensorShape, groupDigits } from '../number-format';
import {
  sameWidths,
  tableWidthsAnalysis,
  tensorColumnWidths,
  widestNameChars,
  widestNumberChars,
  widestShapeChars,
} from './table-widths';

describe('column widths', () => {
  it('measure the widest shape exactly as formatShape prints it', () => {
    const { tensors: columns } = headerFromSpecs([
      { name: 'a', dtype: 'F32', shape: [129280, 7168] },
      { name: 'b', dtype: 'F32', shape: [3] },
      { name: 'c', dtype: 'F32', shape: [] },
    ]);
    let widest = 0;
    for (let row = 0; row < columns.count; row++) {
      widest = Math.max(widest, formatShape(tensorShape(columns, row)).length);
    }
    expect(widestShapeChars(columns)).toBe(widest);
    expect(widest).toBe('[129 280, 7 168]'.length);
  });

  it('measure the longest name, capped', () => {
    const { tensors: columns } = headerFromSpecs([
      { name: 'lm_head.weight', dtype: 'F32', shape: [2] },
      { name: 'model.layers.61.post_attention_layernorm.weight', dtype: 'F32', shape: [2] },
    ]);
    expect(widestNameChars(columns)).toBe('model.layers.61.post_attention_layernorm.weight'.length);
    expect(widestNameChars(columns, 0, 1)).toBe('lm_head.weight'.length);
    expect(widestNameChars(columns, 0, 2, 20)).toBe(20);
  });

  it('measure grouped integers, NaN included', () => {
    expect(widestNumberChars([1, 999, 1000])).toBe(groupDigits(1000).length);
    expect(widestNumberChars([12_345_678_901, 5])).toBe(groupDigits(12_345_678_901).length);
    expect(widestNumberChars([NaN, 3])).toBe(3);
    expect(widestNumberChars([5, Infinity, 10])).toBe('Infinity'.length);
    expect(widestNumberChars([-Infinity, 2])).toBe('-Infinity'.length);
    expect(widestNumberChars([NaN, 123_456_789])).toBe(groupDigits(123_456_789).length);
    expect(widestNumberChars([1, 2, 99_999], 0, 2)).toBe(1);
  });

  it('measure a slice of the rows, or all of them', () => {
    const { tensors: columns } = headerFromSpecs([
      { name: 'a', dtype: 'F32', shape: [3] },
      { name: 'b', dtype: 'F32', shape: [129280, 7168] },
    ]);
    expect(tensorColumnWidths(columns, 0, 1).shape).toBe('[3]'.length);
    expect(tensorColumnWidths(columns, 1, 2).shape).toBe('[129 280, 7 168]'.length);
    expect(tensorColumnWidths(columns).shape).toBe('[129 280, 7 168]'.length);
    expect(tensorColumnWidths(columns).elements).toBe(groupDigits(129280 * 7168).length);
  });

  it('measure every row in parts, and keep the widest of each column whichever part has it', () => {
    const count = 2 * TABLE_WIDTH_ROWS_PER_STEP + 10;
    const specs = Array.from({ length: count }, (_, i) => ({ name: `t.${i}`, dtype: 'U8', shape: [2] }));
    specs[5] = { name: `${'long_name.'.repeat(8)}5`, dtype: 'U8', shape: [2] };
    specs[count - 3] = { name: 'last', dtype: 'U8', shape: [129280, 7168, 3] };
    const input = inputFromFixture({ fileName: 'model.safetensors', specs });
    const steps = tableWidthsAnalysis.steps?.(input);
    if (!steps) {
      throw new Error('the width pass has no steps');
    }
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) {
      pauses++;
    }
    expect(pauses).toBe(3);
    expect(step.value.section).toEqual(tensorColumnWidths(input.header.tensors));
    expect(step.value.section?.name).toBe(specs[5].name.length);
    expect(step.value.section?.shape).toBe('[129 280, 7 168, 3]'.length);
  });

  it('give, as the view analysis, the widest text of every row the way the table prints it', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.stringMatching(/^[a-z_.0-9]{1,40}$/),
            shape: fc.array(fc.integer({ min: 0, max: 2_000_000 }), { maxLength: 20 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        (specs) => {
          const unique = specs.map((spec, i) => ({ name: `${i}.${spec.name}`, dtype: 'U8', shape: spec.shape }));
          const input = inputFromFixture({ fileName: 'model.safetensors', specs: unique });
          const columns = input.header.tensors;
          const rows = Array.from({ length: columns.count }, (_, row) => row);
          const widest = (texts: string[]) => Math.max(...texts.map((text) => text.length));
          const section = tableWidthsAnalysis.run(input).section;
          if (!section) {
            throw new Error('no widths');
          }
          expect(section).toEqual({
            name: Math.min(MAX_NAME_DISPLAY_CHARS, widest(rows.map((row) => tensorName(columns, row)))),
            shape: widest(rows.map((row) => formatTensorShape(columns, row))),
            elements: widest(rows.map((row) => groupDigits(columns.elements[row]))),
            begin: widest(rows.map((row) => groupDigits(columns.begin[row]))),
            end: widest(rows.map((row) => groupDigits(columns.end[row]))),
          });
          expect(sameWidths(section, tensorColumnWidths(columns, 0, columns.count))).toBe(true);
          expect(sameWidths(section, { ...section, end: section.end + 1 })).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });
});
