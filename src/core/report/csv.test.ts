import { describe, expect, it } from 'vitest';
import { parseFileHead } from '../parse/parse-header';
import { buildSafetensors } from '../testing/build-safetensors';
import { tableCsv } from './csv';

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
});
