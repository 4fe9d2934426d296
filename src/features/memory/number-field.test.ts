import { describe, expect, it } from 'vitest';
import { BATCH_RULE, GPU_RULE, TOKENS_RULE } from './MemoryInputs';
import { parseNumber } from './number-field';

describe('parseNumber', () => {
  it('takes whole numbers in range as they are', () => {
    expect(parseNumber('1', TOKENS_RULE)).toEqual({ ok: true, value: 1 });
    expect(parseNumber(' 131072 ', TOKENS_RULE)).toEqual({ ok: true, value: 131072 });
    expect(parseNumber('4096', BATCH_RULE)).toEqual({ ok: true, value: 4096 });
    expect(parseNumber('31.5', GPU_RULE)).toEqual({ ok: true, value: 31.5 });
  });

  it('refuses zero, negatives, fractions, blanks and too much, saying why (never a clamp to 1)', () => {
    expect(parseNumber('0', TOKENS_RULE)).toEqual({ ok: false, message: 'The context must be at least 1 token.' });
    expect(parseNumber('-5', BATCH_RULE)).toEqual({ ok: false, message: 'The batch must be at least 1 sequence.' });
    expect(parseNumber('2.5', TOKENS_RULE)).toEqual({
      ok: false,
      message: 'The context must be a whole number of tokens.',
    });
    expect(parseNumber('', TOKENS_RULE)).toEqual({ ok: false, message: 'Enter the context.' });
    expect(parseNumber('4097', BATCH_RULE)).toEqual({
      ok: false,
      message: 'The batch can be at most 4\u2009096 sequences.',
    });
    expect(parseNumber('0', GPU_RULE)).toEqual({ ok: false, message: 'GPU memory must be at least 4 GiB.' });
    expect(parseNumber('abc', GPU_RULE)).toEqual({ ok: false, message: 'GPU memory must be a number of GiB.' });
  });

  it('reads a blank optional box as none', () => {
    expect(parseNumber('  ', GPU_RULE)).toEqual({ ok: true, value: null });
  });
});
