import { describe, expect, it } from 'vitest';
import { entry, parseBytes, parsedHeader, rawFile, verdictOf } from '../testing/parse-helpers';
import { computeTotals, dtypeSums, joinDtypeSums } from './stats';

describe('computeTotals', () => {
  it('counts a repeated tensor name once, as the reference loader keeps only its last entry', () => {
    // "a" twice with identical entries: the reference sees two tensors, a and b, and two parameters.
    const text = `{"a":${entry('F32', [1], 0, 4)},"b":${entry('F32', [1], 4, 8)},"a":${entry('F32', [1], 0, 4)}}`;
    const outcome = parseBytes(rawFile(text, 8));
    expect(verdictOf(outcome)).toBe('accepts');
    const header = parsedHeader(outcome);
    expect(header.tensors.count).toBe(3);
    expect(Array.from(header.shadowedRows ?? [])).toEqual([0]);
    const totals = computeTotals(header.tensors, header.unknownDtypes, header.shadowedRows);
    expect(totals.tensors).toBe(2);
    expect(totals.elements).toBe(2);
    expect(totals.bytes).toBe(8);
    expect(totals.byDtype.F32).toEqual({ tensors: 2, elements: 2, bytes: 8 });
  });

  it('counts every row when names are unique', () => {
    const header = parsedHeader(
      parseBytes(rawFile(`{"a":${entry('F32', [2], 0, 8)},"b":${entry('U8', [3], 8, 11)}}`, 11)),
    );
    expect(header.shadowedRows).toBeUndefined();
    expect(computeTotals(header.tensors, header.unknownDtypes, header.shadowedRows)).toMatchObject({
      tensors: 2,
      elements: 5,
      bytes: 11,
    });
  });

  it('takes the same table once, and still leaves out shadowed rows when asked later', () => {
    const header = parsedHeader(
      parseBytes(rawFile(`{"a":${entry('F32', [2], 0, 8)},"b":${entry('U8', [3], 8, 11)}}`, 11)),
    );
    const sums = dtypeSums(header.tensors);
    expect(dtypeSums(header.tensors)).toBe(sums);
    expect(computeTotals(header.tensors).bytes).toBe(11);
    const withoutFirst = computeTotals(header.tensors, undefined, [0]);
    expect(withoutFirst).toMatchObject({ tensors: 1, elements: 3, bytes: 3 });
    expect(withoutFirst.byDtype).toEqual({ U8: { tensors: 1, elements: 3, bytes: 3 } });
  });

  it('groups rows of a dtype the app does not know by the name the header gave', () => {
    const text = `{"a":${entry('F32', [2], 0, 8)},"b":${entry('Q9_X', [4], 8, 12)},"c":${entry('Q9_X', [1], 12, 13)}}`;
    const header = parsedHeader(parseBytes(rawFile(text, 13)));
    const totals = computeTotals(header.tensors, header.unknownDtypes, header.shadowedRows);
    expect(totals).toMatchObject({ tensors: 3, bytes: 13 });
    expect(totals.byDtype.Q9_X).toEqual({ tensors: 2, elements: 5, bytes: 5 });
  });
});

describe('joinDtypeSums', () => {
  const columnsOf = (text: string, dataBytes: number) => parsedHeader(parseBytes(rawFile(text, dataBytes))).tensors;
  const first = `{"a":${entry('F32', [2], 0, 8)},"b":${entry('Q9_X', [4], 8, 12)}}`;
  const second = `{"c":${entry('U8', [3], 0, 3)},"d":${entry('Q9_X', [1], 3, 4)},"e":${entry('BF16', [2, 2], 4, 12)}}`;
  const whole = `{"a":${entry('F32', [2], 0, 8)},"b":${entry('Q9_X', [4], 8, 12)},"c":${entry('U8', [3], 12, 15)},"d":${entry('Q9_X', [1], 15, 16)},"e":${entry('BF16', [2, 2], 16, 24)}}`;

  it("adds up the parts' sums into the joined table's, unknown rows moved to where their part starts", () => {
    const joined = columnsOf(whole, 24);
    const sums = joinDtypeSums(joined, [columnsOf(first, 12), columnsOf(second, 12)]);
    // The same as one pass over the same rows (a table parsed again, so not the kept sums).
    expect(sums).toEqual(dtypeSums(columnsOf(whole, 24)));
    expect(sums.unknownRows).toEqual([1, 3]);
    expect(sums).toMatchObject({ tensors: 5, elements: 14, bytes: 24 });
    expect(dtypeSums(joined)).toBe(sums);
  });

  it('sums the joined table itself when the parts do not make it up', () => {
    const joined = columnsOf(whole, 24);
    const sums = joinDtypeSums(joined, [columnsOf(first, 12)]);
    expect(sums).toEqual(dtypeSums(columnsOf(whole, 24)));
  });
});

describe('a repeated name in the parameter count', () => {
  it('is counted once by the quantization analysis too (the summary shows its logical count)', async () => {
    const { analyzeQuantization } = await import('./analysis/quantization');
    const { allTensorNames } = await import('./model');
    const text = `{"a":${entry('F32', [1], 0, 4)},"b":${entry('F32', [1], 4, 8)},"a":${entry('F32', [1], 0, 4)}}`;
    const header = parsedHeader(parseBytes(rawFile(text, 8)));
    const input = {
      header,
      names: allTensorNames(header.tensors),
      fileName: 'x',
      sidecars: {},
      tensorBytes: new Map(),
    };
    expect(analyzeQuantization(input as never).section?.logicalParams).toBe(2);
  });
});
