import { describe, expect, it } from 'vitest';
import { stackedExperts } from './expert-stack-scan';
import { TensorScanAccumulator } from './value-scan';

/** F32 bytes of `values`. */
const f32 = (values: number[]) => new Uint8Array(Float32Array.from(values).buffer);

/** BF16 bytes of `values` (truncated: exact for the values below, which are BF16 already). */
const bf16 = (values: number[]) => {
  const words = new Uint16Array(Float32Array.from(values).buffer);
  return new Uint8Array(Uint16Array.from({ length: values.length }, (_, i) => words[2 * i + 1]).buffer);
};

const NAME = 'blk.0.ffn_up_exps.weight';
const SHAPE = [4, 64, 64];
const PER = 4096;

/** Four experts: 0 and 3 the same, 1 all zeros, 2 its own; values BF16 can hold exactly. */
function stackValues(): number[] {
  const values = Array.from({ length: 4 * PER }, (_, i) => Math.round(Math.sin(i * 0.7) * 256) / 8192);
  for (let i = 0; i < PER; i++) {
    values[3 * PER + i] = values[i];
  }
  return values.fill(0, PER, 2 * PER);
}

function scanInPieces(dtype: 'F32' | 'BF16', values: number[], order: 'file' | 'reversed', name = NAME) {
  const scan = new TensorScanAccumulator(dtype, values.length, SHAPE, name);
  const piece = 3000;
  const starts = Array.from({ length: Math.ceil(values.length / piece) }, (_, i) => i * piece);
  for (const start of order === 'file' ? starts : [...starts].reverse()) {
    const chunk = values.slice(start, start + piece);
    scan.add(dtype === 'F32' ? f32(chunk) : bf16(chunk), start);
  }
  return scan.result().experts;
}

describe('a stack of experts in the scan', () => {
  it('is read expert by expert: the same figures in any order, from values or from codes', () => {
    const values = stackValues();
    const found = scanInPieces('F32', values, 'file');
    expect(found).toMatchObject({ zeroExperts: [1], nonFiniteExperts: [], copies: [[0, 3]], rmsOutliers: [] });
    expect(scanInPieces('F32', values, 'reversed')).toEqual(found);
    expect(scanInPieces('BF16', values, 'reversed')).toEqual(found);
  });

  it('leaves a tensor that stacks no experts, and says nothing of experts all different at one scale', () => {
    expect(scanInPieces('F32', stackValues(), 'file', 'blk.0.ffn_up.weight')).toBeNull();
    const plain = Array.from({ length: 4 * PER }, (_, i) => Math.cos(i * 1.3) * 0.02);
    expect(scanInPieces('F32', plain, 'file')).toMatchObject({
      zeroExperts: [],
      nonFiniteExperts: [],
      copies: [],
      rmsOutliers: [],
    });
  });

  it('takes stacks by name and rank, two experts or more', () => {
    expect(stackedExperts(NAME, SHAPE)).toBe(4);
    expect(stackedExperts(NAME, [1, 64, 64])).toBeNull();
    expect(stackedExperts('model.layers.0.mlp.experts.3.w1.weight', [4, 64, 64])).toBeNull();
  });
});

describe('a hostile stack', () => {
  it('past MAX_STACKED_EXPERTS is not split, so its per-expert sums cost no memory', () => {
    expect(stackedExperts(NAME, [2 ** 31, 1, 1])).toBeNull();
    expect(stackedExperts(NAME, [4096, 1, 1])).toBe(4096);
    const scan = new TensorScanAccumulator('F32', 2 ** 31, [2 ** 31, 1, 1], NAME);
    scan.add(f32([1, 2, 3]), 0);
    expect(scan.result().experts).toBeNull();
  });

  it('ignores pieces past the stack’s end, and NaN everywhere leaves no RMS median to judge by', () => {
    const scan = new TensorScanAccumulator('F32', 4 * PER, SHAPE, NAME);
    scan.add(f32(Array.from({ length: 4 * PER }, () => NaN)), 0);
    scan.add(f32([1, 2, 3]), 4 * PER);
    expect(scan.result().experts).toMatchObject({
      nonFiniteExperts: [0, 1, 2, 3],
      rmsOutliers: [],
      copies: [],
      medianRms: null,
    });
  });
});
