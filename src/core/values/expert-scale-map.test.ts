import { describe, expect, it } from 'vitest';
import { scannedTensor } from '../../testing/scan-tensors';
import { EXPERT_MARK, expertCellRows, expertScaleMap } from './expert-scale-map';
import type { ExpertStackFigures } from './expert-stack-scan';

const w = (layer: number, expert: number, proj: string) =>
  `model.layers.${layer}.block_sparse_moe.experts.${expert}.${proj}.weight`;

const stack = (rms: Array<number | null>, found: Partial<ExpertStackFigures> = {}): ExpertStackFigures => ({
  experts: rms.length,
  zeroExperts: [],
  nonFiniteExperts: [],
  copies: [],
  rmsOutliers: [],
  medianRms: null,
  rms,
  ...found,
});

describe('expertScaleMap', () => {
  it('sets each per-expert tensor against the median of the same tensor in its layer, the farthest ratio per cell', () => {
    const perTensor = [0, 1, 2, 3].flatMap((expert) => [
      // w1: RMS 0.02, expert 3 at 0.5 (25×); w2: mean 0.03 and std 0.04 make RMS 0.05, expert 1 at a fifth.
      scannedTensor(w(0, expert, 'w1'), { std: expert === 3 ? 0.5 : 0.02 }),
      scannedTensor(w(0, expert, 'w2'), { mean: 0.03, std: 0.04 / (expert === 1 ? 5 : 1) }),
    ]);
    // Expert 1's w2: mean 0.03, std 0.008, RMS 0.031; the median of w2 is 0.05.
    const map = expertScaleMap(perTensor, new Set());
    expect(map?.layers).toEqual([{ stack: 'model.layers.', layer: 0 }]);
    expect(map?.experts).toBe(4);
    expect(map?.ratio[0]).toBeCloseTo(1, 12);
    expect(map?.ratio[1]).toBeCloseTo(Math.hypot(0.03, 0.008) / 0.05, 12);
    expect(map?.roles[map.roleOf[1]]).toBe('block_sparse_moe.experts.#.w2.weight');
    expect(map?.ratio[3]).toBeCloseTo(25, 12);
    expect(map?.roles[map.roleOf[3]]).toBe('block_sparse_moe.experts.#.w1.weight');
    expect(map?.outlierCells).toBe(1);
    expect(map?.farthest).toBeCloseTo(25, 12);
    expect(map?.marks).toEqual([0, 0, 0, 0]);
    expect(map?.scannedCells).toBe(4);
  });

  it('marks experts all zeros, with NaN or ±Inf, and copies; a zero expert has no ratio', () => {
    const perTensor = [0, 1, 2, 3, 4].map((expert) =>
      scannedTensor(w(2, expert, 'w1'), {
        ...(expert === 0 ? { zeros: 8192, mean: 0, std: 0 } : {}),
        ...(expert === 1 ? { nan: 1 } : {}),
      }),
    );
    const map = expertScaleMap(perTensor, new Set([w(2, 3, 'w1'), w(2, 4, 'w1')]));
    expect(map?.marks).toEqual([EXPERT_MARK.zeros, EXPERT_MARK.nonFinite, 0, EXPERT_MARK.copy, EXPERT_MARK.copy]);
    expect(map?.ratio[0]).toBeNull();
    expect(map?.roleOf[0]).toBe(-1);
    expect([map?.zeroCells, map?.nonFiniteCells, map?.copyCells]).toEqual([1, 1, 2]);
  });

  it('reads a stack expert by expert, and has no ratio with fewer than three live experts', () => {
    const map = expertScaleMap(
      [
        {
          ...scannedTensor('blk.0.ffn_up_exps.weight'),
          experts: stack([0.02, 0, 0.02, 0.02, 0.4], { zeroExperts: [1], copies: [[0, 2]] }),
        },
        { ...scannedTensor('blk.1.ffn_up_exps.weight'), experts: stack([0.02, 0.03, null]) },
      ],
      new Set(),
    );
    expect(map?.layers.map((row) => row.layer)).toEqual([0, 1]);
    expect(map?.experts).toBe(5);
    expect(map?.ratio.slice(0, 5)).toEqual([1, null, 1, 1, 20]);
    expect(map?.marks.slice(0, 5)).toEqual([EXPERT_MARK.copy, EXPERT_MARK.zeros, EXPERT_MARK.copy, 0, 0]);
    expect(map?.roles).toEqual(['ffn_up_exps.weight']);
    // Layer 1: two experts with an RMS are no median; the null RMS is scanned all the same (a cell, no ratio).
    expect(map?.ratio.slice(5)).toEqual([null, null, null, null, null]);
    expect(map?.marks.slice(5)).toEqual([0, 0, 0, null, null]);
    expect(map?.scannedCells).toBe(8);
  });

  it('is null without two experts in some numbered layer, and leaves shared experts and other tensors out', () => {
    expect(expertScaleMap([scannedTensor(w(0, 0, 'w1'))], new Set())).toBeNull();
    expect(
      expertScaleMap(
        [
          scannedTensor('model.layers.0.mlp.shared_experts.0.up_proj.weight'),
          scannedTensor('model.layers.0.mlp.shared_experts.1.up_proj.weight'),
          scannedTensor('model.layers.0.mlp.up_proj.weight'),
        ],
        new Set(),
      ),
    ).toBeNull();
    expect(expertScaleMap([scannedTensor('experts.0.w'), scannedTensor('experts.1.w')], new Set())).toBeNull();
  });
});

describe('expertCellRows', () => {
  it('finds the rows of the chosen experts’ tensors in one layer, and the stacks there that hold them', () => {
    const perTensor = [
      scannedTensor(w(0, 1, 'w1'), { row: 10 }),
      scannedTensor(w(0, 2, 'w1'), { row: 11 }),
      scannedTensor(w(1, 1, 'w1'), { row: 12 }),
      scannedTensor('model.layers.0.block_sparse_moe.gate.weight', { row: 13 }),
      { ...scannedTensor('model.layers.0.mlp.experts.down_proj', { row: 14 }), experts: stack([1, 1, 1]) },
      { ...scannedTensor('model.layers.0.mlp.experts.up_proj', { row: 15 }), experts: stack([1, 1]) },
    ];
    const layer0 = { stack: 'model.layers.', layer: 0 };
    expect(expertCellRows(perTensor, layer0, [1])).toEqual([10, 14, 15]);
    expect(expertCellRows(perTensor, layer0, [2])).toEqual([11, 14]);
    expect(expertCellRows(perTensor, { stack: 'model.layers.', layer: 1 }, [1, 2])).toEqual([12]);
  });
});
