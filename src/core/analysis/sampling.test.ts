import { describe, expect, it } from 'vitest';
import { dataSample, isPartial, sampleWords } from './sampling';

describe('sampleWords', () => {
  it('says how many of how many were sampled, the unit agreeing with the total', () => {
    expect(sampleWords(dataSample(8, 266, 'config', true))).toBe('sampled 8 of 266 configs');
    expect(sampleWords(dataSample(1, 2, 'alpha', true))).toBe('sampled 1 of 2 alphas');
    expect(sampleWords(dataSample(32, 1234, 'config', true))).toMatch(/^sampled 32 of 1.234 configs$/);
  });

  it('tells a complete read, a failed read and nothing read apart', () => {
    expect(sampleWords(dataSample(40, 40, 'alpha', false))).toBe('read all 40 alphas');
    expect(sampleWords(dataSample(1, 1, 'config', true))).toBe('read the 1 config');
    expect(sampleWords(dataSample(3, 5, 'config', false))).toBe('read 3 of 5 configs (2 failed to arrive)');
    expect(sampleWords(dataSample(0, 5, 'config', true))).toBe('none of the 5 configs read (over the read budget)');
    expect(sampleWords(dataSample(0, 1, 'config', false))).toBe('none of the 1 config read (the reads failed)');
  });

  it('isPartial is true only when fewer were read than the file holds', () => {
    expect(isPartial(dataSample(8, 266, 'config', true))).toBe(true);
    expect(isPartial(dataSample(8, 8, 'config', true))).toBe(false);
  });
});
