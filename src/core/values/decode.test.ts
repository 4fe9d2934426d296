import { describe, expect, it } from 'vitest';
import { caseBytes, jsonNumber, valuesFixture, present } from '../../testing/values-fixtures';
import { decodeUnit, decodeValues } from './decode';

function expectSameValues(actual: ArrayLike<number>, expected: number[], relative: number): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i];
    const got = actual[i];
    if (Number.isNaN(want)) {
      expect(got, `element ${i}`).toBeNaN();
    } else if (relative === 0 || !Number.isFinite(want)) {
      expect(Object.is(got, want) || got === want, `element ${i}: ${got} vs ${want}`).toBe(true);
    } else {
      expect(Math.abs(got - want), `element ${i}: ${got} vs ${want}`).toBeLessThanOrEqual(
        relative * Math.max(Math.abs(want), 1e-30),
      );
    }
  }
}

describe('decodeValues', () => {
  it.each(valuesFixture('decoders').map((entry) => [entry.dtype, entry] as const))(
    '%s: the values numpy (or the format spec, code by code) gives',
    (_, entry) => {
      const values = decodeValues(entry.dtype, caseBytes(entry));
      expectSameValues(present(values), present(entry.values).map(jsonNumber), 0);
    },
  );

  it.each(valuesFixture('gguf').map((entry) => [entry.dtype, entry] as const))(
    '%s: the values gguf-py dequantizes (numpy as ggml does, for the types gguf-py cannot)',
    (_, entry) => {
      const values = decodeValues(entry.dtype, caseBytes(entry));
      // gguf-py computes in float32 with numpy's order of operations; one rounding apart at most.
      expectSameValues(present(values), present(entry.values).map(jsonNumber), 2 ** -22);
    },
  );

  it('F32 at an unaligned offset decodes the same as aligned', () => {
    const aligned = new Float32Array([1.5, -2.25, 3e-39]);
    const shifted = new Uint8Array(13);
    shifted.set(new Uint8Array(aligned.buffer), 1);
    expect([...present(decodeValues('F32', shifted.subarray(1)))]).toEqual([...aligned]);
  });

  it('says "not decoded" (null) for types it has no decoder for', () => {
    expect(decodeUnit('Q8_K')).toBeNull();
    expect(decodeValues('C64', new Uint8Array(8))).toBeNull();
  });
});
