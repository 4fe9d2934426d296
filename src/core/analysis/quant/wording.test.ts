/** Family names: one table for the report's sentences, with fuller names where the views name a family alone. */
import { describe, expect, it } from 'vitest';
import { FAMILY_LABEL, familyTitle, withFormat } from './wording';

describe('familyTitle', () => {
  it('uses the fuller name where there is one, else the report label', () => {
    expect(familyTitle('exl2')).toBe('ExLlamaV2 (EXL2)');
    expect(FAMILY_LABEL.exl2).toBe('EXL2');
    expect(familyTitle('gptq-marlin')).toBe(FAMILY_LABEL['gptq-marlin']);
  });

  it('shows a family it does not know as it is spelled', () => {
    expect(familyTitle('some-new-family')).toBe('some-new-family');
  });

  it('folds a format into a title that already ends in parentheses', () => {
    expect(withFormat(familyTitle('comfy-quant'), 'comfy-quant', 'int8_tensorwise')).toBe(
      'ComfyUI mixed precision (comfy_quant, int8_tensorwise)',
    );
  });
});
