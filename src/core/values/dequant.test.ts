import { describe, expect, it } from 'vitest';
import { base64Bytes, dequantFixtures, present } from '../../testing/values-fixtures';
import { decodeValues, E2M1_VALUES } from './decode';
import {
  compressedIntBits,
  dequantizeAwq,
  dequantizeCompressedInt,
  dequantizeFp4Groups,
  dequantizeBnb4,
  dequantizeGptq,
  dequantizeInt8Rows,
  dequantizeMarlin,
  dequantizeMlx,
  dequantizeScaled,
  NF4_CODE,
} from './dequant';

const fixtures = dequantFixtures();

function expectClose(actual: ArrayLike<number> | null, expected: ArrayLike<number>): void {
  const checked = present(actual);
  expect(checked.length).toBe(expected.length);
  const off: string[] = [];
  for (let i = 0; i < expected.length; i++) {
    if (!(Math.abs(checked[i] - expected[i]) <= 1e-6 * Math.max(1, Math.abs(expected[i])))) {
      off.push(`element ${i}: ${checked[i]} vs ${expected[i]}`);
    }
  }
  expect(off.slice(0, 5)).toEqual([]);
}

describe('dequantizers over codes packed as their producers pack them', () => {
  for (const [bits, what, gptq] of [
    [4, 'W[n, k] from qweight, qzeros (zero − 1) and scales', fixtures.gptq],
    [3, 'codes 10 and 21 of every 32 straddle two words, in qweight and in qzeros', fixtures.gptq3],
  ] as const) {
    it(`GPTQ v1 ${bits}-bit: ${what}`, () => {
      const values = dequantizeGptq({
        qweight: base64Bytes(gptq.qweight),
        qzeros: base64Bytes(gptq.qzeros),
        scales: present(decodeValues('F16', base64Bytes(gptq.scales))),
        bits,
        inFeatures: gptq.k,
        outFeatures: gptq.n,
        groupSize: gptq.group,
        zeroMinusOne: true,
      });
      expectClose(values, gptq.values);
    });
  }

  it('GPTQ in Marlin format: tiles, the 1024-code shuffle and the scale shuffle undone, per group and per channel', () => {
    for (const marlin of fixtures.marlin) {
      const scales = present(decodeValues('F16', base64Bytes(marlin.s)));
      expectClose(dequantizeMarlin(base64Bytes(marlin.B), scales, marlin.k, marlin.n, marlin.group), marlin.values);
    }
  });

  it('AWQ GEMM: Wᵀ[k, n] with the 0 2 4 6 1 3 5 7 nibble order', () => {
    const { awq } = fixtures;
    const scales = present(decodeValues('F16', base64Bytes(awq.scales)));
    expectClose(
      dequantizeAwq(base64Bytes(awq.qweight), base64Bytes(awq.qzeros), scales, awq.k, awq.n, awq.group),
      awq.values,
    );
  });

  it('bitsandbytes NF4: high nibble first, one absmax per block, a partial last block', () => {
    const { nf4 } = fixtures;
    const absmax = present(decodeValues('F32', base64Bytes(nf4.absmax)));
    expectClose(dequantizeBnb4(base64Bytes(nf4.packed), absmax, NF4_CODE, nf4.blocksize, nf4.count), nf4.values);
  });

  it('DeepSeek block FP8: E4M3 codes times the 128×128 block scale', () => {
    const block = fixtures.fp8_block;
    const codes = present(decodeValues('F8_E4M3', base64Bytes(block.codes)));
    const scale = present(decodeValues('F32', base64Bytes(block.scale)));
    const expected = present(decodeValues('F32', base64Bytes(block.values_f32)));
    expectClose(dequantizeScaled(codes, block.rows, block.cols, scale), expected);
  });

  it('compressed-tensors pack-quantized: rows padded to whole words, zero points packed along N or kept, g_idx', () => {
    for (const c of fixtures.compressed_int) {
      const packed = base64Bytes(c.packed);
      expect(compressedIntBits(packed.length / 4 / c.n, c.k)).toBe(c.bits);
      const values = dequantizeCompressedInt({
        packed,
        scales: present(decodeValues('F16', base64Bytes(c.scale))),
        zeroPoint: c.zero_packed
          ? { packed: base64Bytes(c.zero_packed) }
          : c.zero_values
            ? { values: present(decodeValues('I8', base64Bytes(c.zero_values))) }
            : null,
        gIdx: c.g_idx ? present(decodeValues('I32', base64Bytes(c.g_idx))) : undefined,
        bits: c.bits,
        outFeatures: c.n,
        inFeatures: c.k,
      });
      expectClose(values, c.values);
    }
  });

  it('FP4 in two-a-byte E2M1 with per-group scales: compressed-tensors NVFP4 and MXFP4, ModelOpt NVFP4', () => {
    for (const c of fixtures.fp4) {
      const stored = present(decodeValues(c.scheme === 'MXFP4' ? 'F8_E8M0' : 'F8_E4M3', base64Bytes(c.scale)));
      const second = c.second ? present(decodeValues('F32', base64Bytes(c.second)))[0] : 1;
      const scales = Float32Array.from(stored, (s) =>
        c.producer === 'ModelOpt' ? Math.fround(s * second) : Math.fround(s / second),
      );
      expectClose(dequantizeFp4Groups(base64Bytes(c.packed), scales, E2M1_VALUES, c.n, c.k, c.group), c.values);
    }
  });

  it('per-tensor and per-row scales, and a scale of the wrong size is refused', () => {
    expect([...present(dequantizeScaled([1, 2, 3, 4], 2, 2, [0.5]))]).toEqual([0.5, 1, 1.5, 2]);
    expect([...present(dequantizeScaled([1, 2, 3, 4], 2, 2, [1, 10]))]).toEqual([1, 2, 30, 40]);
    expect(dequantizeScaled([1, 2, 3, 4], 2, 2, [1, 2, 3])).toBeNull();
    expect([...present(dequantizeInt8Rows([127, -127, 64, 0], 2, 2, [1.27, 2.54], 127))]).toEqual([
      Math.fround(1.27),
      -Math.fround(1.27),
      Math.fround((64 * 2.54) / 127),
      0,
    ]);
  });
});

describe('MLX bit streams', () => {
  it('3-bit codes cross byte edges as MLX’s kernels read them: element j at bits 3j onward', () => {
    // Codes 0..7 in order: bits 000 100 010 110 001 101 011 111 read LSB first give the bytes 0x88, 0xc6, 0xfa.
    const packed = Uint8Array.of(0x88, 0xc6, 0xfa);
    const values = dequantizeMlx(packed, [0.5], [-1], null, { rows: 1, k: 8, bits: 3, group: 8 });
    expect(Array.from(present(values))).toEqual([-1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5]);
  });

  it('says null when the codes, scales or biases are fewer than the shape needs', () => {
    const shape = { rows: 2, k: 8, bits: 4, group: 4 };
    expect(dequantizeMlx(new Uint8Array(7), [1, 1, 1, 1], [0, 0, 0, 0], null, shape)).toBeNull();
    expect(dequantizeMlx(new Uint8Array(8), [1, 1, 1], [0, 0, 0, 0], null, shape)).toBeNull();
    expect(dequantizeMlx(new Uint8Array(8), [1, 1, 1, 1], [0], null, shape)).toBeNull();
    expect(dequantizeMlx(new Uint8Array(8), [1, 1, 1, 1], null, E2M1_VALUES, shape)).not.toBeNull();
  });
});
