import { describe, expect, it } from 'vitest';
import { splitCode } from './CodeText';

describe('backticked names in messages', () => {
  it('splits text and code parts', () => {
    expect(splitCode('tensor `a.weight` overlaps `b.weight`.')).toEqual([
      { code: false, text: 'tensor ' },
      { code: true, text: 'a.weight' },
      { code: false, text: ' overlaps ' },
      { code: true, text: 'b.weight' },
      { code: false, text: '.' },
    ]);
  });
  it('leaves text without backticks, and an unpaired backtick, as it is', () => {
    expect(splitCode('plain')).toEqual([{ code: false, text: 'plain' }]);
    expect(splitCode('a ` b')).toEqual([{ code: false, text: 'a ` b' }]);
    expect(splitCode('')).toEqual([]);
  });
});
