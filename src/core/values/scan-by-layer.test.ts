import { describe, expect, it } from 'vitest';
import { rolesAcrossLayers } from './scan-by-layer';
import { scannedTensor } from '../../testing/scan-tensors';
import type { ScanTensor } from './value-scan';

function entry(tensor: string, std: number, absMax: number, zeros = 0): ScanTensor {
  return scannedTensor(tensor, { count: 100, zeros, absMax, std });
}

describe('rolesAcrossLayers', () => {
  it('one series per role over its layers, experts folded into their layer, roles in fewer than 3 layers left out', () => {
    const roles = rolesAcrossLayers([
      ...[0, 1, 2, 3].map((layer) => entry(`model.layers.${layer}.mlp.down_proj.weight`, 0.02, layer === 2 ? 40 : 0.1)),
      ...[0, 1, 2].flatMap((layer) => [
        entry(`model.layers.${layer}.mlp.experts.0.w1.weight`, 0.01, 0.2, 10),
        entry(`model.layers.${layer}.mlp.experts.1.w1.weight`, 0.03, 0.5, 30),
      ]),
      entry('model.layers.0.self_attn.q_norm.weight', 0.1, 1),
      entry('model.layers.1.self_attn.q_norm.weight', 0.1, 1),
      entry('model.embed_tokens.weight', 0.02, 0.3),
    ]);
    expect(roles.map((role) => role.role)).toEqual([
      'model.layers.#.mlp.down_proj.weight',
      'model.layers.#.mlp.experts.#.w1.weight',
    ]);
    expect(roles[0].layers.map((layer) => layer.absMax)).toEqual([0.1, 0.1, 40, 0.1]);
    expect(roles[1].layers[0]).toEqual({
      stack: 'model.layers.',
      layer: 0,
      tensors: 2,
      std: 0.02,
      absMax: 0.5,
      zeroShare: 0.2,
      zeroLines: 0,
      outlierColumns: 0,
    });
  });

  it('outlier columns add up per layer: the layer hard to quantize stands out', () => {
    const outliers = (count: number): ScanTensor['outlierColumns'] => ({
      rowsRead: 256,
      rowStride: 16,
      rows: 4096,
      columns: {
        lines: 4096,
        of: 4096,
        median: 0.05,
        max: 2,
        maxAt: 7,
        outliers: [{ index: 7, absMax: 2 }],
        outlierCount: count,
        rowsPeakingInOutliers: 200,
      },
    });
    const roles = rolesAcrossLayers(
      [0, 1, 2, 3].map((layer) =>
        scannedTensor(`model.layers.${layer}.mlp.down_proj.weight`, {
          outlierColumns: layer === 1 ? outliers(3) : layer === 3 ? outliers(1) : undefined,
        }),
      ),
    );
    expect(roles[0].layers.map((layer) => layer.outlierColumns)).toEqual([0, 3, 0, 1]);
  });

  it('rows and columns all zeros add up per layer: a pruned layer stands out', () => {
    const lines = (rows: number, columns: number): ScanTensor['zeroLines'] => ({
      rowDims: [64],
      rows: rows ? { count: rows, of: 64, runs: [[0, rows - 1]] } : null,
      columns: columns ? { count: columns, of: 64, runs: [[0, columns - 1]] } : null,
    });
    const roles = rolesAcrossLayers(
      [0, 1, 2].flatMap((layer) => [
        scannedTensor(`model.layers.${layer}.mlp.experts.0.up_proj.weight`, {
          zeroLines: layer === 1 ? lines(5, 0) : undefined,
        }),
        scannedTensor(`model.layers.${layer}.mlp.experts.1.up_proj.weight`, {
          zeroLines: layer === 1 ? lines(2, 3) : undefined,
        }),
      ]),
    );
    expect(roles[0].layers.map((layer) => layer.zeroLines)).toEqual([0, 10, 0]);
  });

  it('among roles in as many layers, the one with more values comes first: weights before their norms', () => {
    const roles = rolesAcrossLayers(
      [0, 1, 2].flatMap((layer) => [
        { ...entry(`model.layers.${layer}.input_layernorm.weight`, 0, 1), count: 64 },
        { ...entry(`model.layers.${layer}.self_attn.q_proj.weight`, 0.02, 0.1), count: 4096 },
      ]),
    );
    expect(roles.map((role) => role.role)).toEqual([
      'model.layers.#.self_attn.q_proj.weight',
      'model.layers.#.input_layernorm.weight',
    ]);
  });
});
