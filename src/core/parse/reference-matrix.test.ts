/**
 * The empirical matrix in docs/format-notes.md#safetensors-reference-behaviour-on-malformed-files: how `safe_open` of
 * the safetensors 0.8.0 Python package treats crafted files. The engine's verdict must match it case for case.
 */
import { describe, expect, it } from 'vitest';
import { MAX_HEADER_LENGTH } from '../limits';
import { buildRaw, buildSafetensors, lengthPrefix } from '../../testing/build-safetensors';
import { parseFileHead } from './parse-header';
import { codesOf, entry, rawFile, verdictOf } from '../../testing/parse-helpers';

interface MatrixCase {
  name: string;
  file: () => Uint8Array;
  verdict: 'accepts' | 'refuses';
}

const one = (dtype: string, shape: number[], begin: number, end: number): string =>
  `{"a":${entry(dtype, shape, begin, end)}}`;

const cases: MatrixCase[] = [
  {
    name: 'duplicate tensor key, identical entries',
    file: () => rawFile(`{"a":${entry('F32', [1], 0, 4)},"a":${entry('F32', [1], 0, 4)}}`, 4),
    verdict: 'accepts',
  },
  {
    name: 'duplicate key, different offsets',
    file: () => rawFile(`{"a":${entry('F32', [1], 0, 4)},"a":${entry('F32', [1], 4, 8)}}`, 8),
    verdict: 'refuses',
  },
  {
    name: 'duplicate __metadata__',
    file: () => rawFile(`{"__metadata__":{"a":"1"},"__metadata__":{"a":"1"},"t":${entry('U8', [1], 0, 1)}}`, 1),
    verdict: 'refuses',
  },
  { name: "leading ' \\n\\t' before {", file: () => rawFile(` \n\t${one('U8', [1], 0, 1)}`, 1), verdict: 'accepts' },
  { name: 'trailing spaces', file: () => rawFile(`${one('U8', [1], 0, 1)}     `, 1), verdict: 'accepts' },
  { name: 'trailing NUL padding', file: () => rawFile(`${one('U8', [1], 0, 1)}\0\0\0\0`, 1), verdict: 'refuses' },
  {
    name: 'UTF-8 BOM',
    file: () => rawFile(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(one('U8', [1], 0, 1))]), 1),
    verdict: 'refuses',
  },
  {
    name: 'gap',
    file: () => rawFile(`{"a":${entry('U8', [1], 0, 1)},"b":${entry('U8', [1], 2, 3)}}`, 3),
    verdict: 'refuses',
  },
  {
    name: 'overlap',
    file: () => rawFile(`{"a":${entry('U8', [2], 0, 2)},"b":${entry('U8', [2], 1, 3)}}`, 3),
    verdict: 'refuses',
  },
  { name: 'first offset ≠ 0', file: () => rawFile(one('U8', [1], 1, 2), 2), verdict: 'refuses' },
  {
    name: 'extra bytes after data',
    file: () => buildSafetensors([{ name: 'a', dtype: 'F32', shape: [2] }], { dataBytesDelta: 1 }),
    verdict: 'refuses',
  },
  {
    name: 'truncated data',
    file: () => buildSafetensors([{ name: 'a', dtype: 'F32', shape: [2] }], { dataBytesDelta: -1 }),
    verdict: 'refuses',
  },
  { name: 'shape×dtype ≠ span', file: () => rawFile(one('F32', [2], 0, 4), 4), verdict: 'refuses' },
  { name: 'F4 with odd element count', file: () => rawFile(one('F4', [3], 0, 2), 2), verdict: 'refuses' },
  { name: 'F4 even', file: () => rawFile(one('F4', [4], 0, 2), 2), verdict: 'accepts' },
  { name: 'F6', file: () => rawFile(one('F6_E3M2', [4], 0, 3), 3), verdict: 'accepts' },
  { name: 'C64', file: () => rawFile(one('C64', [2], 0, 16), 16), verdict: 'accepts' },
  { name: 'F8_E8M0', file: () => rawFile(one('F8_E8M0', [2], 0, 2), 2), verdict: 'accepts' },
  { name: 'F8_E4M3FNUZ', file: () => rawFile(one('F8_E4M3FNUZ', [2], 0, 2), 2), verdict: 'accepts' },
  { name: 'F8_E5M2FNUZ', file: () => rawFile(one('F8_E5M2FNUZ', [2], 0, 2), 2), verdict: 'accepts' },
  {
    name: 'metadata value number',
    file: () => rawFile(`{"__metadata__":{"n":1},"a":${entry('U8', [1], 0, 1)}}`, 1),
    verdict: 'refuses',
  },
  {
    name: 'metadata value object',
    file: () => rawFile(`{"__metadata__":{"o":{"x":"y"}},"a":${entry('U8', [1], 0, 1)}}`, 1),
    verdict: 'refuses',
  },
  {
    name: '__metadata__: null',
    file: () => rawFile(`{"__metadata__":null,"a":${entry('U8', [1], 0, 1)}}`, 1),
    verdict: 'accepts',
  },
  { name: 'unknown dtype Q4_K', file: () => rawFile(one('Q4_K', [1], 0, 1), 1), verdict: 'refuses' },
  { name: 'lowercase dtype u8', file: () => rawFile(one('u8', [1], 0, 1), 1), verdict: 'refuses' },
  {
    name: 'extra field in tensor entry',
    file: () => rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"quant":{"bits":4}}}`, 1),
    verdict: 'accepts',
  },
  {
    name: 'float dim 2.0',
    file: () => rawFile(`{"a":{"dtype":"U8","shape":[2.0],"data_offsets":[0,2]}}`, 2),
    verdict: 'refuses',
  },
  {
    name: 'negative offset',
    file: () => rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}}`, 1),
    verdict: 'refuses',
  },
  {
    name: '3 offsets',
    file: () => rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,1]}}`, 1),
    verdict: 'refuses',
  },
  { name: '{} with 0 data bytes', file: () => rawFile('{}'), verdict: 'accepts' },
  { name: '{} + 1 byte', file: () => rawFile('{}', 1), verdict: 'refuses' },
  { name: 'shape [0,4] with [0,0] offsets', file: () => rawFile(one('F32', [0, 4], 0, 0)), verdict: 'accepts' },
  { name: 'scalar [] with 4 bytes', file: () => rawFile(one('F32', [], 0, 4), 4), verdict: 'accepts' },
  { name: 'N past EOF', file: () => buildRaw('{}', { declaredLength: 50 }), verdict: 'refuses' },
  { name: 'N = 0', file: () => buildRaw(''), verdict: 'refuses' },
  {
    name: 'N > 100,000,000',
    file: () => {
      const file = new Uint8Array(64);
      file.set(lengthPrefix(MAX_HEADER_LENGTH + 1));
      file.set(new TextEncoder().encode('{}'), 8);
      return file;
    },
    verdict: 'refuses',
  },
  { name: '3-byte file', file: () => new Uint8Array([0x7b, 0x7d, 0x0a]), verdict: 'refuses' },
];

describe('reference loader matrix (safetensors 0.8.0 safe_open)', () => {
  it.each(cases)('$name → $verdict', ({ file, verdict }) => {
    const bytes = file();
    const outcome = parseFileHead(bytes, bytes.length);
    expect(verdictOf(outcome), `findings: ${codesOf(outcome).join(', ')}`).toBe(verdict);
  });
});
