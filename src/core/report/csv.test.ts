import { describe, expect, it } from 'vitest';
import { parseFileHead } from '../parse/parse-header';
import { buildSafetensors } from '../../testing/build-safetensors';
import { csvCell, tableCsv } from './csv';

function header(names: string[]) {
  const outcome = parseFileHead(buildSafetensors(names.map((name) => ({ name, dtype: 'F32', shape: [2, 3] }))), null);
  if (outcome.kind !== 'parsed') {
    throw new Error('fixture did not parse');
  }
  return outcome.header;
}

describe('tableCsv', () => {
  it('writes the rows in the order given', () => {
    const csv = tableCsv(header(['a', 'b']), [1, 0])
      .trim()
      .split('\n');
    expect(csv).toEqual([
      'name,dtype,shape,elements,bytes,begin,end',
      'b,F32,"[2, 3]",6,24,24,48',
      'a,F32,"[2, 3]",6,24,0,24',
    ]);
  });

  it('adds the shard column for sharded models', () => {
    const csv = tableCsv(header(['a', 'b']), [0, 1], (row) => `model-0000${row + 1}-of-00002.safetensors`);
    expect(csv.split('\n')[0]).toBe('name,shard,dtype,shape,elements,bytes,begin,end');
    expect(csv.split('\n')[2]).toBe('b,model-00002-of-00002.safetensors,F32,"[2, 3]",6,24,24,48');
  });

  it('quotes commas and quotes, and defuses spreadsheet formulas', () => {
    const csv = tableCsv(header(['x,"y"', '=HYPERLINK("http://evil")']), [0, 1]).split('\n');
    expect(csv[1].startsWith('"x,""y"""')).toBe(true);
    expect(csv[2].startsWith(`"'=HYPERLINK(""http://evil"")"`)).toBe(true);
  });

  it.each([
    ['=1+1'],
    ['+1'],
    ['-1'],
    ['@SUM(A1)'],
    ['\t=1'],
    ['\r=1'],
    [' =1+1'],
    ['\u00A0=1+1'],
    ['\u3000=1+1'],
    ['\n=1+1'],
    ['  \n =1'],
    ['\uFF1D1+1'],
    ['\uFF0B1'],
    ['\uFF0D1'],
    ['\uFF20SUM(A1)'],
    ['\u3000\uFF1D1'],
  ])('neutralises a would-be formula: %j', (value) => {
    const cell = csvCell(value);
    const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
    expect(unquoted.startsWith("'")).toBe(true);
  });

  it.each([['model.weight'], ['a=b'], ['x-1'], ['日本'], ['1e-3']])('leaves ordinary text alone: %j', (value) => {
    expect(csvCell(value)).toBe(value);
  });

  it('writes bidi controls and zero-width characters as visible escapes', () => {
    const csv = tableCsv(header(['model.\u202Egnp.exe', 'a\u200Db']), [0, 1]).split('\n');
    expect(csv[1].startsWith('model.\\u202Egnp.exe,')).toBe(true);
    expect(csv[2].startsWith('a\\u200Db,')).toBe(true);
    expect(csv.join('\n')).not.toMatch(/[\u202E\u200D]/);
  });
});
