import { describe, expect, it } from 'vitest';
import { hasInvisible, revealInvisible } from '../invisible-chars';
import { buildSafetensors } from '../../testing/build-safetensors';
import { finding, parseBytes, problemCodes, verdictOf } from '../../testing/parse-helpers';

function fileWith(names: string[], metadata?: Record<string, string>): Uint8Array {
  return buildSafetensors(
    names.map((name) => ({ name, dtype: 'F32', shape: [1] })),
    metadata ? { metadata } : {},
  );
}

describe('invisible characters in names', () => {
  it('names a right-to-left override and a zero-width joiner, and lists the tensors', () => {
    const outcome = parseBytes(fileWith(['model.\u202Egnp.exe', 'a\u200Db', 'plain.weight']));
    const found = finding(outcome, 'invisible-characters');
    expect(found.severity).toBe('warning');
    expect(found.refusedByReference).toBe(false);
    expect(verdictOf(outcome)).toBe('accepts');
    expect(found.tensors).toEqual([0, 1]);
    expect(found.message).toContain('\\u202E (bidi control)');
    expect(found.message).toContain('\\u200D (zero-width)');
    expect(found.message).toContain('`model.\\u202Egnp.exe`');
    expect(found.message).not.toMatch(/[\u202E\u200D]/);
  });

  it('also checks metadata keys', () => {
    const outcome = parseBytes(fileWith(['w'], { 'license\u2066': 'mit' }));
    expect(finding(outcome, 'invisible-characters').message).toContain('1 metadata key');
  });

  it.each(['\u200B', '\u2060', '\uFEFF', '\u00AD', '\u2067', '\u0007', '\u00A0', '\u3000', '\u{E0041}', '\u3164'])(
    'treats %j as invisible',
    (character) => {
      const outcome = parseBytes(fileWith([`x${character}y`]));
      expect(problemCodes(outcome)).toContain('invisible-characters');
    },
  );

  it('leaves ordinary names alone, including non-Latin scripts and emoji', () => {
    const outcome = parseBytes(fileWith(['model.layers.0.weight', '日本語.重み', 'émoji😀', 'a b']));
    expect(problemCodes(outcome)).not.toContain('invisible-characters');
  });

  it('reveals each character as an escape, beyond the BMP too', () => {
    expect(revealInvisible('model.\u202Egnp.exe')).toBe('model.\\u202Egnp.exe');
    expect(revealInvisible('tag\u{E0041}')).toBe('tag\\u{E0041}');
    expect(revealInvisible('tab\there')).toBe('tab\\u0009here');
    expect(hasInvisible('plain')).toBe(false);
  });
});
