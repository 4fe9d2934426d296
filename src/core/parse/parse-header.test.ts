import { describe, expect, it } from 'vitest';
import { DTYPES, UNKNOWN_DTYPE_CODE, dtypeCode } from '../dtypes';
import { MAX_HEADER_LENGTH, MAX_TENSORS_PER_FINDING } from '../limits';
import { allTensorNames, metadataEntries, tensorShape } from '../model';
import { buildRaw, buildSafetensors, lengthPrefix } from '../../testing/build-safetensors';
import { parseFileHead, parseSafetensorsHeader, readLengthPrefix } from './parse-header';
import {
  codesOf,
  entry,
  finding,
  parseBytes,
  parsedHeader,
  problemCodes,
  rawFile,
  verdictOf,
} from '../../testing/parse-helpers';

const utf8 = new TextEncoder();

describe('readLengthPrefix', () => {
  it('reads a little-endian u64', () => {
    expect(readLengthPrefix(lengthPrefix(0x1234))).toEqual({ length: 0x1234, exact: true });
    expect(readLengthPrefix(lengthPrefix(2 ** 53 - 1))).toEqual({ length: 2 ** 53 - 1, exact: true });
  });

  it('keeps the fact that a length beyond 2^53 is huge', () => {
    const huge = readLengthPrefix(lengthPrefix(2n ** 64n - 1n));
    expect(huge.exact).toBe(false);
    expect(huge.length).toBeGreaterThan(MAX_HEADER_LENGTH);
    expect(readLengthPrefix(lengthPrefix(2n ** 53n + 1n)).exact).toBe(false);
  });

  it('refuses fewer than 8 bytes', () => {
    expect(() => readLengthPrefix(new Uint8Array(7))).toThrow(RangeError);
  });
});

describe('a valid file', () => {
  it('parses into columns with no findings', () => {
    const file = buildSafetensors(
      [
        { name: 'embed.weight', dtype: 'BF16', shape: [4, 3] },
        { name: 'scale', dtype: 'F32', shape: [] },
        { name: 'empty', dtype: 'I64', shape: [0, 4] },
      ],
      { metadata: { format: 'pt' } },
    );
    const header = parsedHeader(parseBytes(file));
    expect(header.findings).toEqual([]);
    expect(allTensorNames(header.tensors)).toEqual(['embed.weight', 'scale', 'empty']);
    expect(Array.from(header.tensors.dtype)).toEqual([dtypeCode('BF16'), dtypeCode('F32'), dtypeCode('I64')]);
    expect(tensorShape(header.tensors, 0)).toEqual([4, 3]);
    expect(tensorShape(header.tensors, 1)).toEqual([]);
    expect(Array.from(header.tensors.elements)).toEqual([12, 1, 0]);
    expect(Array.from(header.tensors.begin)).toEqual([0, 24, 28]);
    expect(Array.from(header.tensors.end)).toEqual([24, 28, 28]);
    expect(header.dataBytes).toBe(28);
    expect(header.metadataState).toBe('object');
    expect(metadataEntries(header.metadata)).toEqual([{ key: 'format', value: 'pt', kind: 'string' }]);
    expect(header.namesDistinct).toBe(true);
  });

  it('says its names are distinct only when no name repeats', () => {
    const text = `{"a":${entry('F32', [1], 0, 4)},"b":${entry('F32', [1], 4, 8)},"a":${entry('F32', [1], 0, 4)}}`;
    const header = parsedHeader(parseBytes(rawFile(text, 8)));
    expect(header.shadowedRows).toBeDefined();
    expect(header.namesDistinct).toBeUndefined();
  });

  it('keeps a U+FEFF that starts a name or a value: it is a character there, not a byte-order mark', () => {
    const text = `{"__metadata__":{"k":"\ufeffv"},"\ufeffw":${entry('F32', [1], 0, 4)}}`;
    const header = parsedHeader(parseBytes(rawFile(text, 4)));
    expect(allTensorNames(header.tensors)).toEqual(['\ufeffw']);
    expect(metadataEntries(header.metadata)).toEqual([{ key: 'k', value: '\ufeffv', kind: 'string' }]);
  });

  it('decodes escaped names, keys and metadata exactly', () => {
    const text = `{"__meta\\u0064ata__":{"k\\"ey":"v\\u00e9\\n","\\ud83d\\ude00":"x"},"na\\u00efve\\t\\/":{"\\u0064type":"F\\u0033\\u0032","shape":[1],"data_offsets":[0,4]},"日本":${entry('U8', [2], 4, 6)}}`;
    const header = parsedHeader(parseBytes(rawFile(text, 6)));
    // The tab in the name is a control character: named by a finding, the name itself stays exact.
    expect(problemCodes({ kind: 'parsed', header })).toEqual(['invisible-characters']);
    expect(allTensorNames(header.tensors)).toEqual(['naïve\t/', '日本']);
    expect(header.tensors.dtype[0]).toBe(dtypeCode('F32'));
    expect(metadataEntries(header.metadata)).toEqual([
      { key: 'k"ey', value: 'vé\n', kind: 'string' },
      { key: '😀', value: 'x', kind: 'string' },
    ]);
  });

  it('keeps __proto__ and constructor metadata keys as plain data', () => {
    const text = `{"__metadata__":{"__proto__":"a","constructor":"b","toString":"c"}}`;
    const header = parsedHeader(parseBytes(rawFile(text)));
    expect(metadataEntries(header.metadata).map((item) => item.key)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts whitespace inside the JSON and unknown entry fields', () => {
    const text = `{ "a" : { "x" : {"nested": [1, {"deep": null}]}, "data_offsets" : [ 0 , 4 ] , "shape" : [ 2 ] , "dtype" : "F16" } }`;
    const outcome = parseBytes(rawFile(text, 4));
    expect(problemCodes(outcome)).toEqual([]);
    expect(tensorShape(parsedHeader(outcome).tensors, 0)).toEqual([2]);
  });

  it('accepts null metadata', () => {
    const header = parsedHeader(parseBytes(rawFile(`{"__metadata__":null,"a":${entry('U8', [1], 0, 1)}}`, 1)));
    expect(header.metadataState).toBe('null');
    expect(problemCodes({ kind: 'parsed', header })).toEqual([]);
  });

  it('reports metadataState absent without __metadata__', () => {
    expect(parsedHeader(parseBytes(rawFile(`{"a":${entry('U8', [1], 0, 1)}}`, 1))).metadataState).toBe('absent');
  });
});

describe('file-level findings', () => {
  it('empty-file', () => {
    const outcome = parseFileHead(new Uint8Array(0), 0);
    expect(outcome.kind).toBe('rejected');
    expect(codesOf(outcome)).toEqual(['empty-file']);
  });

  it('too-short, including a 2-byte CRLF file', () => {
    const outcome = parseFileHead(new Uint8Array([0x0d, 0x0a]), 2);
    expect(codesOf(outcome)).toEqual(['too-short']);
    expect(finding(outcome, 'too-short').message).toContain('0d 0a');
  });

  it('header-too-large, refused unless the user asks to parse anyway', () => {
    const length = MAX_HEADER_LENGTH + 8;
    const head = new Uint8Array(8 + 16);
    head.set(lengthPrefix(length));
    head.set(utf8.encode('{}'), 8);
    const refused = parseFileHead(head, 8 + length);
    expect(refused.kind).toBe('rejected');
    expect(codesOf(refused)).toEqual(['header-too-large']);

    const text = `{"a":${entry('U8', [1], 0, 1)}}`;
    const body = new Uint8Array(length).fill(0x20);
    body.set(utf8.encode(text));
    const whole = new Uint8Array(8 + length + 1);
    whole.set(lengthPrefix(length));
    whole.set(body, 8);
    const anyway = parseFileHead(whole, whole.length, { allowOversizedHeader: true });
    expect(anyway.kind).toBe('parsed');
    expect(codesOf(anyway)).toEqual(['header-too-large']);
    expect(verdictOf(anyway)).toBe('refuses');
  });

  it('header-too-large for a length beyond 2^53 even with parse anyway', () => {
    const head = new Uint8Array(16);
    head.set(lengthPrefix(2n ** 60n));
    const outcome = parseFileHead(head, 1_000, { allowOversizedHeader: true });
    expect(outcome.kind).toBe('rejected');
    expect(codesOf(outcome)).toContain('header-too-large');
  });

  it('header-length-exceeds-file', () => {
    const file = buildRaw('{}', { declaredLength: 100 });
    const outcome = parseBytes(file);
    expect(outcome.kind).toBe('rejected');
    expect(codesOf(outcome)).toEqual(['header-length-exceeds-file']);
    expect(finding(outcome, 'header-length-exceeds-file').message).toContain('100 bytes');
  });

  it('quotes a length prefix past 2^53 digit for digit', () => {
    const head = new Uint8Array(16);
    head.set(lengthPrefix(2n ** 62n + 3n));
    const outcome = parseFileHead(head, 1_000);
    expect(finding(outcome, 'header-too-large').message).toContain('4,611,686,018,427,387,907 bytes (4.61 EB)');
    expect(finding(outcome, 'header-length-exceeds-file').message).toContain(
      '4.61 EB (4,611,686,018,427,387,907 bytes)',
    );
  });

  it('header-length-exceeds-file when fewer bytes arrived than the prefix promises', () => {
    const file = buildRaw('{}', { declaredLength: 100 });
    expect(codesOf(parseFileHead(file, null))).toEqual(['header-length-exceeds-file']);
  });

  it('N = 0 is invalid JSON, as the reference says "EOF while parsing"', () => {
    const outcome = parseBytes(buildRaw(''));
    expect(outcome.kind).toBe('rejected');
    expect(codesOf(outcome)).toEqual(['invalid-json']);
  });
});

describe('header text findings', () => {
  it('invalid-utf8 with its offset', () => {
    const body = utf8.encode(`{"a\xff":${entry('U8', [1], 0, 1)}}`);
    const bytes = new Uint8Array(body);
    bytes[3] = 0xff;
    const outcome = parseBytes(rawFile(bytes, 1));
    expect(outcome.kind).toBe('rejected');
    expect(codesOf(outcome)).toEqual(['invalid-utf8']);
    expect(finding(outcome, 'invalid-utf8').message).toContain('byte 3 of the header (file offset 11)');
  });

  it('invalid-utf8 rejects overlongs and encoded surrogates', () => {
    for (const sequence of [
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
    ]) {
      const bytes = new Uint8Array([...utf8.encode('{"'), ...sequence, ...utf8.encode('":null}')]);
      expect(codesOf(parseBytes(rawFile(bytes)))).toEqual(['invalid-utf8']);
    }
  });

  it('invalid-utf8 outranks an earlier JSON error, as the reference checks UTF-8 first', () => {
    const bytes = new Uint8Array([...utf8.encode('{"a" 1, "b":"'), 0xff, ...utf8.encode('"}')]);
    expect(codesOf(parseBytes(rawFile(bytes)))).toEqual(['invalid-utf8']);
  });

  it('invalid-json with offset, excerpt and advice', () => {
    const outcome = parseBytes(rawFile(`{"a":${entry('U8', [1], 0, 1)} "b":1}`, 1));
    expect(outcome.kind).toBe('rejected');
    const message = finding(outcome, 'invalid-json').message;
    expect(message).toContain('expected , or }');
    expect(message).toMatch(/byte \d+ of the header/);
    expect(message).toContain('»');
    expect(message).toMatch(/download it again|re-export/);
  });

  it.each([
    ['trailing comma', `{"a":${entry('U8', [1], 0, 1)},}`],
    ['single quotes', `{'a':1}`],
    ['leading zero', `{"a":{"dtype":"U8","shape":[01],"data_offsets":[0,1]}}`],
    ['bare word', `{"a":nul}`],
    ['lone surrogate escape', `{"\\ud800":null}`],
    ['control character in a string', `{"a\tb":null}`],
    ['number out of double range', `{"a":${entry('U8', [1], 0, 1).slice(0, -1)},"x":1e400}}`],
    ['unterminated', `{"a":`],
    ['trailing garbage', `{} x`],
  ])('invalid-json: %s', (_label, text) => {
    const outcome = parseBytes(rawFile(text, 1));
    expect(outcome.kind).toBe('rejected');
    expect(codesOf(outcome)).toEqual(['invalid-json']);
  });

  it('not-an-object', () => {
    for (const text of ['[1,2]', '"text"', '42', 'null']) {
      const outcome = parseBytes(rawFile(text));
      expect(outcome.kind).toBe('rejected');
      expect(codesOf(outcome)).toEqual(['not-an-object']);
    }
  });

  it('too-deep', () => {
    // 126 arrays inside an entry: 128 levels with the object and the entry, one past serde_json's limit.
    const outcome = parseBytes(rawFile(`{"a":{"x":${'['.repeat(126)}${']'.repeat(126)}}}`));
    expect(outcome.kind).toBe('rejected');
    expect(codesOf(outcome)).toEqual(['too-deep']);
  });

  it('leading-whitespace is informational: the reference accepts it', () => {
    const outcome = parseBytes(rawFile(` \n\t{"a":${entry('U8', [1], 0, 1)}}`, 1));
    expect(problemCodes(outcome)).toEqual(['leading-whitespace']);
    expect(finding(outcome, 'leading-whitespace').severity).toBe('info');
    expect(verdictOf(outcome)).toBe('accepts');
  });

  it('trailing spaces are fine', () => {
    expect(problemCodes(parseBytes(rawFile(`{"a":${entry('U8', [1], 0, 1)}}   `, 1)))).toEqual([]);
  });

  it('nul-padding is refused but the table is kept', () => {
    const outcome = parseBytes(rawFile(`{"a":${entry('U8', [1], 0, 1)}}\0\0\0`, 1));
    expect(problemCodes(outcome)).toEqual(['nul-padding']);
    expect(finding(outcome, 'nul-padding').message).toContain('3 NUL bytes');
    expect(parsedHeader(outcome).tensors.count).toBe(1);
    expect(verdictOf(outcome)).toBe('refuses');
  });

  it('bom is refused but the table is kept', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8.encode(`{"a":${entry('U8', [1], 0, 1)}}`)]);
    const outcome = parseBytes(rawFile(bytes, 1));
    expect(problemCodes(outcome)).toEqual(['bom']);
    expect(parsedHeader(outcome).tensors.count).toBe(1);
    expect(verdictOf(outcome)).toBe('refuses');
  });

  it('header-not-padded when N is not a multiple of 8', () => {
    const unpadded = buildSafetensors([{ name: 'a', dtype: 'U8', shape: [1] }], { headerAlignment: 1 });
    const outcome = parseBytes(unpadded);
    expect(codesOf(outcome)).toEqual(['header-not-padded']);
    expect(verdictOf(outcome)).toBe('accepts');
    expect(codesOf(parseBytes(buildSafetensors([{ name: 'a', dtype: 'U8', shape: [1] }])))).toEqual([]);
  });
});

describe('duplicate-key', () => {
  it('identical duplicate tensors: both rows listed, accepted like the reference', () => {
    const text = `{"a":${entry('F32', [1], 0, 4)},"a":${entry('F32', [1], 0, 4)}}`;
    const outcome = parseBytes(rawFile(text, 4));
    const duplicate = finding(outcome, 'duplicate-key');
    expect(duplicate.tensors).toEqual([0, 1]);
    expect(duplicate.refusedByReference).toBe(false);
    expect(duplicate.message).toContain('identical');
    expect(duplicate.message).toContain('JSON.parse');
    expect(problemCodes(outcome)).toEqual(['duplicate-key']);
    expect(verdictOf(outcome)).toBe('accepts');
  });

  it('different duplicate tensors: the last wins, leaving a hole the reference refuses', () => {
    const text = `{"a":${entry('F32', [1], 0, 4)},"b":${entry('F32', [1], 4, 8)},"a":${entry('F32', [1], 8, 12)}}`;
    const outcome = parseBytes(rawFile(text, 12));
    const duplicate = finding(outcome, 'duplicate-key');
    expect(duplicate.tensors).toEqual([0, 2]);
    expect(duplicate.message).toContain('different');
    expect(problemCodes(outcome)).toEqual(['duplicate-key', 'first-offset-not-zero']);
    expect(verdictOf(outcome)).toBe('refuses');
  });

  it('duplicate names are compared after decoding escapes', () => {
    const text = `{"ab":${entry('U8', [1], 0, 1)},"\\u0061b":${entry('U8', [1], 0, 1)}}`;
    expect(finding(parseBytes(rawFile(text, 1)), 'duplicate-key').tensors).toEqual([0, 1]);
  });

  it('a repeated field inside an entry is refused', () => {
    const text = `{"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}}`;
    const outcome = parseBytes(rawFile(text, 1));
    const duplicate = finding(outcome, 'duplicate-key');
    expect(duplicate.refusedByReference).toBe(true);
    expect(duplicate.message).toContain('`dtype` twice');
    expect(verdictOf(outcome)).toBe('refuses');
  });

  it('a second __metadata__ is refused', () => {
    const text = `{"__metadata__":{"a":"1"},"__metadata__":{"b":"2"}}`;
    const outcome = parseBytes(rawFile(text));
    expect(finding(outcome, 'duplicate-key').refusedByReference).toBe(true);
    expect(metadataEntries(parsedHeader(outcome).metadata)).toEqual([{ key: 'b', value: '2', kind: 'string' }]);
  });

  it('repeated keys inside __metadata__ are flagged but not refused', () => {
    const outcome = parseBytes(rawFile(`{"__metadata__":{"a":"1","a":"2"}}`));
    expect(finding(outcome, 'duplicate-key').refusedByReference).toBe(false);
    expect(verdictOf(outcome)).toBe('accepts');
  });
});

describe('entry findings', () => {
  it('invalid-entry: not an object, missing fields, wrong types', () => {
    const text = `{"a":5,"b":{"shape":[1],"data_offsets":[0,1]},"c":{"dtype":7,"shape":[1],"data_offsets":[1,2]},"d":null}`;
    const outcome = parseBytes(rawFile(text, 2));
    const invalid = finding(outcome, 'invalid-entry');
    expect(invalid.tensors).toEqual([0, 1, 2, 3]);
    expect(invalid.tensorCount).toBe(4);
    expect(invalid.message).toContain('`a` is a number, not an object');
    expect(invalid.message).toContain('`b` has no `dtype`');
    expect(parsedHeader(outcome).tensors.count).toBe(4);
  });

  it('unknown-dtype names what it might mean', () => {
    const text = `{"a":${entry('u8', [1], 0, 1)},"b":${entry('FP4', [2], 1, 2)},"c":${entry('UE8', [1], 2, 3)},"d":${entry('Q4_K', [1], 3, 4)}}`;
    const outcome = parseBytes(rawFile(text, 4));
    const unknown = finding(outcome, 'unknown-dtype');
    expect(unknown.tensors).toEqual([0, 1, 2, 3]);
    expect(unknown.message).toContain('write U8');
    expect(unknown.message).toContain('meant F4');
    expect(unknown.message).toContain('meant F8_E8M0');
    const header = parsedHeader(outcome);
    expect(header.tensors.dtype[0]).toBe(UNKNOWN_DTYPE_CODE);
    expect(header.unknownDtypes.get(0)).toBe('u8');
    expect(header.unknownDtypes.get(3)).toBe('Q4_K');
  });

  it('invalid-shape: 2.0, negative, non-array, string dims, exponent', () => {
    const text = `{"a":{"dtype":"U8","shape":[2.0],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[-1],"data_offsets":[2,3]},"c":{"dtype":"U8","shape":4,"data_offsets":[3,7]},"d":{"dtype":"U8","shape":["4"],"data_offsets":[7,11]},"e":{"dtype":"U8","shape":[1e1],"data_offsets":[11,21]}}`;
    const outcome = parseBytes(rawFile(text, 21));
    const invalid = finding(outcome, 'invalid-shape');
    expect(invalid.tensors).toEqual([0, 1, 2, 3, 4]);
    expect(invalid.message).toContain('2.0');
    const header = parsedHeader(outcome);
    expect(tensorShape(header.tensors, 0)).toEqual([2]);
    expect(Number.isNaN(header.tensors.elements[0])).toBe(true);
  });

  it('invalid-shape for rank over the limit does not claim the reference refuses', () => {
    const dims = new Array(65).fill(1);
    const outcome = parseBytes(rawFile(`{"a":${entry('U8', dims, 0, 1)}}`, 1));
    const invalid = finding(outcome, 'invalid-shape');
    expect(invalid.refusedByReference).toBe(false);
    expect(verdictOf(outcome)).toBe('accepts');
  });

  it('invalid-offsets: wrong count, negative, end before begin, not an array', () => {
    const text = `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]},"b":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]},"c":{"dtype":"U8","shape":[0],"data_offsets":[5,4]},"d":{"dtype":"U8","shape":[1],"data_offsets":"0-1"}}`;
    const outcome = parseBytes(rawFile(text, 5));
    const invalid = finding(outcome, 'invalid-offsets');
    expect(invalid.tensors).toEqual([0, 1, 2, 3]);
    expect(invalid.tensorCount).toBe(4);
    const endBeforeBegin = parseBytes(rawFile(`{"c":${entry('U8', [0], 5, 4)}}`, 5));
    expect(finding(endBeforeBegin, 'invalid-offsets').message).toContain('`c` ends at 4 before it begins at 5');
    expect(Number.isNaN(parsedHeader(outcome).tensors.begin[0])).toBe(true);
  });

  it('size-mismatch with concrete numbers', () => {
    const outcome = parseBytes(rawFile(`{"a":${entry('F32', [2, 3], 0, 20)}}`, 20));
    const mismatch = finding(outcome, 'size-mismatch');
    expect(mismatch.tensors).toEqual([0]);
    expect(mismatch.message).toContain('needs 24 bytes for 6 elements');
    expect(mismatch.message).toContain('span 20 bytes');
    expect(mismatch.message).toMatch(/^1 tensor's shape and dtype disagree with its byte span/);
    const two = parseBytes(rawFile(`{"a":${entry('F32', [2, 3], 0, 20)},"b":${entry('F32', [1], 20, 21)}}`, 21));
    expect(finding(two, 'size-mismatch').message).toMatch(
      /^2 tensors' shapes and dtypes disagree with their byte spans/,
    );
  });

  it('misaligned-subbyte for odd F4 counts; even F4 and F6 multiples of 4 are fine', () => {
    const odd = parseBytes(rawFile(`{"a":${entry('F4', [3], 0, 2)}}`, 2));
    expect(finding(odd, 'misaligned-subbyte').message).toContain('12 bits');
    expect(problemCodes(parseBytes(rawFile(`{"a":${entry('F4', [4], 0, 2)}}`, 2)))).toEqual([]);
    expect(problemCodes(parseBytes(rawFile(`{"a":${entry('F6_E2M3', [4], 0, 3)}}`, 3)))).toEqual([]);
  });

  it('element-count overflow is reported as invalid-shape, in dim order like checked_mul', () => {
    const overflow = parseBytes(rawFile(`{"a":${entry('U8', [2 ** 40, 2 ** 40, 0], 0, 0)}}`));
    expect(finding(overflow, 'invalid-shape').message).toContain('does not fit in 64 bits');
    const zeroFirst = parseBytes(rawFile(`{"a":${entry('U8', [0, 2 ** 40, 2 ** 40], 0, 0)}}`));
    expect(problemCodes(zeroFirst)).toEqual([]);
    expect(parsedHeader(zeroFirst).tensors.elements[0]).toBe(0);
  });

  it('unsafe-integer: values beyond 2^53 are kept exact for the checks', () => {
    const big = 2n ** 53n + 1n;
    const text = `{"a":{"dtype":"U8","shape":[${big}],"data_offsets":[0,${big}]}}`;
    const outcome = parseFileHead(rawFile(text), null);
    expect(problemCodes(outcome)).toEqual(['unsafe-integer']);
    expect(finding(outcome, 'unsafe-integer').severity).toBe('warning');
    // One byte off: doubles would round both to 2^53 and see a match; exact arithmetic does not.
    const offByOne = `{"a":{"dtype":"U8","shape":[${big}],"data_offsets":[0,${big + 1n}]}}`;
    expect(problemCodes(parseFileHead(rawFile(offByOne), null))).toEqual(['unsafe-integer', 'size-mismatch']);
  });

  it('layout beyond 2^53 is checked exactly: an overlap of one byte that doubles would round away', () => {
    const big = 2n ** 53n;
    // a ends at 2^53 + 1 and b begins at 2^53: as doubles both are 2^53, which would look seamless.
    const text = `{"a":{"dtype":"U8","shape":[${big + 1n}],"data_offsets":[0,${big + 1n}]},"b":{"dtype":"U8","shape":[1],"data_offsets":[${big},${big + 1n}]}}`;
    const outcome = parseFileHead(rawFile(text), null);
    expect(problemCodes(outcome)).toEqual(['unsafe-integer', 'overlap']);
  });

  it('numbers beyond u64 are invalid', () => {
    const text = `{"a":{"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,1]}}`;
    expect(problemCodes(parseBytes(rawFile(text, 1)))).toContain('invalid-shape');
  });

  it('empty-header for zero tensors', () => {
    const outcome = parseBytes(rawFile('{}'));
    expect(problemCodes(outcome)).toEqual(['empty-header']);
    expect(verdictOf(outcome)).toBe('accepts');
    expect(finding(parseBytes(rawFile('{"__metadata__":{}}')), 'empty-header').message).toContain('only __metadata__');
  });
});

describe('layout findings', () => {
  it('first-offset-not-zero', () => {
    const outcome = parseBytes(rawFile(`{"a":${entry('U8', [4], 16, 20)}}`, 20));
    expect(problemCodes(outcome)).toEqual(['first-offset-not-zero']);
    expect(finding(outcome, 'first-offset-not-zero').message).toContain('begins at byte 16');
  });

  it('gap: every gap, with totals and the first one spelled out', () => {
    const text = `{"a":${entry('U8', [1024], 0, 1024)},"b":${entry('U8', [16], 2048, 2064)},"c":${entry('U8', [16], 2100, 2116)}}`;
    const outcome = parseBytes(rawFile(text, 2116));
    const gap = finding(outcome, 'gap');
    expect(gap.message).toMatch(
      /^2 gaps, 1.06 KB in total; first: between `a` \(ends at 1,024\) and `b` \(begins at 2,048\)/,
    );
    expect(gap.tensors).toEqual([0, 1, 2]);
  });

  it('overlap', () => {
    const text = `{"a":${entry('U8', [16], 0, 16)},"b":${entry('U8', [16], 10, 26)}}`;
    const outcome = parseBytes(rawFile(text, 26));
    expect(problemCodes(outcome)).toEqual(['overlap']);
    expect(finding(outcome, 'overlap').message).toContain('`b` begins at 10, inside `a` (0–16)');
  });

  it('duplicate-range', () => {
    const text = `{"a":${entry('U8', [16], 0, 16)},"b":${entry('U8', [16], 0, 16)}}`;
    const outcome = parseBytes(rawFile(text, 16));
    expect(problemCodes(outcome)).toEqual(['duplicate-range']);
    expect(finding(outcome, 'duplicate-range').tensors).toEqual([0, 1]);
    expect(verdictOf(outcome)).toBe('refuses');
  });

  it('zero-size tensors may share an offset', () => {
    const text = `{"a":${entry('U8', [0], 0, 0)},"b":${entry('U8', [0], 0, 0)},"c":${entry('U8', [4], 0, 4)}}`;
    expect(problemCodes(parseBytes(rawFile(text, 4)))).toEqual([]);
  });

  it('header order does not matter: tensors are sorted by offsets', () => {
    const text = `{"b":${entry('U8', [4], 4, 8)},"a":${entry('U8', [4], 0, 4)}}`;
    expect(problemCodes(parseBytes(rawFile(text, 8)))).toEqual([]);
  });

  it('truncated lists the tensors past the end', () => {
    const file = buildSafetensors(
      [
        { name: 'a', dtype: 'F32', shape: [4] },
        { name: 'b', dtype: 'F32', shape: [4] },
      ],
      { dataBytesDelta: -10 },
    );
    const outcome = parseBytes(file);
    const truncated = finding(outcome, 'truncated');
    expect(truncated.tensors).toEqual([1]);
    expect(truncated.message).toContain('10 bytes');
    expect(codesOf(outcome)).toEqual(['truncated']);
  });

  it('trailing-bytes', () => {
    const outcome = parseBytes(buildSafetensors([{ name: 'a', dtype: 'U8', shape: [4] }], { dataBytesDelta: 3 }));
    expect(codesOf(outcome)).toEqual(['trailing-bytes']);
    expect(finding(outcome, 'trailing-bytes').message).toContain('3 bytes');
  });

  it('no truncated or trailing checks without a file size', () => {
    const file = buildSafetensors([{ name: 'a', dtype: 'U8', shape: [4] }], { dataBytesDelta: 3 });
    expect(codesOf(parseFileHead(file, null))).toEqual([]);
  });

  it('reports every violation, grouped per code', () => {
    const parts: string[] = [];
    let cursor = 0;
    for (let i = 0; i < 1200; i++) {
      parts.push(`"t${i}":${entry('U8', [1], cursor, cursor + 1)}`);
      cursor += 2;
    }
    const outcome = parseBytes(rawFile(`{${parts.join(',')}}`, cursor - 1));
    const gap = finding(outcome, 'gap');
    expect(gap.message).toMatch(/^1,199 gaps/);
    expect(gap.tensorCount).toBe(1200);
    expect(gap.tensors.length).toBe(MAX_TENSORS_PER_FINDING);
    expect(codesOf(outcome).filter((code) => code === 'gap')).toHaveLength(1);
  });
});

describe('metadata findings', () => {
  it('metadata-not-string lists every non-string value', () => {
    const outcome = parseBytes(rawFile(`{"__metadata__":{"a":1,"b":"ok","c":{"x":[1]},"d":true}}`));
    const notString = finding(outcome, 'metadata-not-string');
    expect(notString.message).toContain('3 `__metadata__` values are not strings');
    expect(notString.message).toContain('`a` is a number');
    expect(metadataEntries(parsedHeader(outcome).metadata)).toEqual([
      { key: 'a', value: '1', kind: 'number' },
      { key: 'b', value: 'ok', kind: 'string' },
      { key: 'c', value: '{"x":[1]}', kind: 'object' },
      { key: 'd', value: 'true', kind: 'boolean' },
    ]);
  });

  it('metadata-not-object', () => {
    for (const value of ['[1]', '"text"', '3']) {
      const outcome = parseBytes(rawFile(`{"__metadata__":${value}}`));
      expect(problemCodes(outcome)).toEqual(['metadata-not-object', 'empty-header']);
      expect(parsedHeader(outcome).metadataState).toBe('invalid');
    }
  });
});

describe('parseSafetensorsHeader', () => {
  it('takes the header bytes alone', () => {
    const text = `{"a":${entry('U8', [2], 0, 2)}}`;
    const bytes = utf8.encode(text);
    const outcome = parseSafetensorsHeader(bytes, { headerLength: bytes.length, fileSize: 8 + bytes.length + 2 });
    expect(problemCodes(outcome)).toEqual([]);
  });

  it('works on a subarray of a larger buffer', () => {
    const file = buildSafetensors([{ name: 'a', dtype: 'U8', shape: [2] }]);
    const padded = new Uint8Array(file.length + 100);
    padded.set(file, 50);
    const outcome = parseFileHead(padded.subarray(50, 50 + file.length), file.length);
    expect(codesOf(outcome)).toEqual([]);
  });

  it('covers every dtype', () => {
    const tensors = DTYPES.map((dtype) => ({ name: dtype, dtype, shape: [8] }));
    const header = parsedHeader(parseBytes(buildSafetensors(tensors)));
    expect(header.findings).toEqual([]);
    expect(Array.from(header.tensors.dtype)).toEqual(DTYPES.map((_, code) => code));
  });
});
