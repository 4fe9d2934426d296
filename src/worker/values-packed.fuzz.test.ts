/**
 * Packed layouts whose tensors lie (compressed-tensors ints, their FP4, ModelOpt's NVFP4): layouts that fit, then
 * some of their tensors given another dtype or shape, a weight_shape with other numbers, g_idx entries out of range,
 * and every byte of codes and scales random (NaN and zero scales included). "Read values" must answer (dequantized,
 * or the stored codes with the reason) and "Scan all values" must end, never throwing, for every one; and the
 * layouts left whole must come out dequantized, so the dequantizers run, not only the refusals.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSafetensors, tensorByteLength, type TensorSpec } from '../testing/build-safetensors';
import { keptFile } from '../testing/kept-load';
import { seededRandom } from '../core/values/read-plan';
import { ValuesUnavailable } from '../core/values/tensor-values';
import { readTensorValues, scanValues, type ValuesJob } from './values-handler';

const M = 'model.layers.0.mlp.down_proj';
const job = (): ValuesJob => ({ signal: new AbortController().signal, progress: () => undefined });

interface Part extends TensorSpec {
  bytes?: Uint8Array;
}

function ints(values: number[], bytes: 4 | 8): Uint8Array {
  return bytes === 8
    ? new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer)
    : new Uint8Array(Int32Array.from(values).buffer);
}

/** A layout that fits: the weight first, its companions after. */
function layout(kind: number, n: number, groups: number, wide: boolean, zero: boolean, gIdx: boolean): Part[] {
  if (kind === 0) {
    const bits = wide ? 8 : 4;
    const perWord = 32 / bits;
    const k = groups * 8;
    const parts: Part[] = [
      { name: `${M}.weight_packed`, dtype: 'I32', shape: [n, Math.ceil(k / perWord)] },
      { name: `${M}.weight_scale`, dtype: 'F16', shape: [n, groups] },
      { name: `${M}.weight_shape`, dtype: 'I64', shape: [2], bytes: ints([n, k], 8) },
    ];
    if (zero) {
      parts.push({ name: `${M}.weight_zero_point`, dtype: 'I32', shape: [Math.ceil(n / perWord), groups] });
    }
    if (gIdx) {
      const g = Array.from({ length: k }, (_, i) => i % groups);
      parts.push({ name: `${M}.weight_g_idx`, dtype: 'I32', shape: [k], bytes: ints(g, 4) });
    }
    return parts;
  }
  const group = kind === 2 ? 32 : 16;
  const k = groups * group;
  const modelOpt = kind === 3;
  return [
    { name: modelOpt ? `${M}.weight` : `${M}.weight_packed`, dtype: 'U8', shape: [n, k / 2] },
    { name: `${M}.weight_scale`, dtype: kind === 2 ? 'U8' : 'F8_E4M3', shape: [n, groups] },
    ...(kind === 2
      ? []
      : [
          {
            name: modelOpt ? `${M}.weight_scale_2` : `${M}.weight_global_scale`,
            dtype: 'F32',
            shape: modelOpt ? [] : [1],
            // A second-level scale of zero or NaN is refused; a layout that fits has a usable one.
            bytes: new Uint8Array(Float32Array.of(modelOpt ? 0.002 : 448).buffer),
          },
        ]),
  ];
}

const lie = fc.record({
  part: fc.nat(),
  dtype: fc.constantFrom('F16', 'BF16', 'F32', 'I8', 'I32', 'U8', 'F8_E4M3', 'I64'),
  shape: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 3 }),
  values: fc.option(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 2, maxLength: 2 }), {
    nil: null,
  }),
});

function noise(length: number, seed: number): Uint8Array {
  const next = seededRandom(seed);
  return Uint8Array.from({ length }, () => Math.floor(next() * 256));
}

describe('packed layouts with lying tensors', () => {
  it('Read values answers and Scan all values ends for every one; whole layouts come out dequantized', async () => {
    let whole = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          kind: fc.integer({ min: 0, max: 3 }),
          n: fc.integer({ min: 1, max: 6 }),
          groups: fc.integer({ min: 1, max: 3 }),
          wide: fc.boolean(),
          zero: fc.boolean(),
          gIdx: fc.boolean(),
          lies: fc.array(lie, { maxLength: 2 }),
          seed: fc.integer(),
        }),
        async ({ kind, n, groups, wide, zero, gIdx, lies, seed }) => {
          const parts = layout(kind, n, groups, wide, zero, gIdx);
          for (const { part, dtype, shape, values } of lies) {
            const at = part % parts.length;
            parts[at] = values
              ? { ...parts[at], dtype: 'I64', shape: [2], bytes: ints(values, 8) }
              : { name: parts[at].name, dtype, shape };
          }
          const data = Object.fromEntries(
            parts.map((part, i) => [
              part.name,
              part.bytes ?? noise(tensorByteLength(part.dtype, part.shape), seed + i),
            ]),
          );
          const load = await keptFile(buildSafetensors(parts, { tensorData: data }), 'lying.safetensors');
          // An answer, or a refusal in words (a scale that fits no layout of the weight, say), never another error.
          const values = await readTensorValues(load, 0, false, job()).catch((error: unknown) => {
            expect(error).toBeInstanceOf(ValuesUnavailable);
            return null;
          });
          expect(values === null || ['stored', 'dequantized'].includes(values.decoded)).toBe(true);
          if (lies.length === 0) {
            whole++;
            expect(values?.decoded, JSON.stringify(parts.map(({ name, dtype, shape }) => [name, dtype, shape]))).toBe(
              'dequantized',
            );
          }
          expect((await scanValues(load, job())).done).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
    expect(whole).toBeGreaterThan(0);
  });
});
