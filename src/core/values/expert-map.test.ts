import { describe, expect, it } from 'vitest';
import { expertCellTensors, expertChangeMap, numberedExpertObservation, type ExpertObservation } from './expert-map';

const seen = (
  tensor: string,
  expert: number,
  relL2: number | null,
  changed: boolean,
  sampled = false,
): ExpertObservation => ({ tensor, expert, relL2, changed, sampled });

describe('expertChangeMap', () => {
  it('folds an expert’s tensors into one cell per layer: the largest change, changed if any moved', () => {
    const map = expertChangeMap([
      seen('model.layers.1.mlp.experts.0.up_proj.weight', 0, 0, false),
      seen('model.layers.1.mlp.experts.0.down_proj.weight', 0, 0.02, true),
      seen('model.layers.1.mlp.experts.1.up_proj.weight', 1, 0, false),
      seen('model.layers.0.mlp.experts.2.up_proj.weight', 2, null, true),
      seen('model.layers.0.mlp.experts.2.down_proj.weight', 2, 0.5, true),
    ]);
    expect(map).toEqual({
      layers: [
        { stack: 'model.layers.', layer: 0 },
        { stack: 'model.layers.', layer: 1 },
      ],
      experts: 3,
      relL2: [null, null, 0.5, 0.02, 0, null],
      changed: [null, null, true, true, false, null],
      changedCells: 2,
      unchangedCells: 1,
      sampled: false,
    });
  });

  it('keeps each stack of layers apart, and is null with fewer than two experts in every layer', () => {
    const map = expertChangeMap([
      seen('vision.layers.0.experts.0.w', 0, 0, false),
      seen('vision.layers.0.experts.1.w', 1, 0, false),
      seen('text.layers.0.experts.0.w', 0, 0.1, true),
    ]);
    expect(map?.layers.map((row) => `${row.stack}${row.layer}`)).toEqual(['vision.layers.0', 'text.layers.0']);
    expect(map?.sampled).toBe(false);
    const sampled = expertChangeMap([seen('h.0.experts.0.w', 0, 0, false), seen('h.0.experts.1.w', 1, 0, false, true)]);
    expect(sampled?.sampled).toBe(true);
    expect(expertChangeMap([seen('model.layers.0.experts.0.w', 0, 0.1, true)])).toBeNull();
    expect(expertChangeMap([seen('experts.0.w', 0, 0, false), seen('experts.1.w', 1, 0, false)])).toBeNull();
  });
});

describe('expertCellTensors', () => {
  it("names a cell's per-expert tensors and the stacks of its layer, and nothing of other layers or experts", () => {
    const compared = [
      { tensor: 'model.layers.1.mlp.experts.0.up_proj.weight' },
      { tensor: 'model.layers.1.mlp.experts.0.down_proj.weight' },
      { tensor: 'model.layers.1.mlp.experts.1.up_proj.weight' },
      { tensor: 'model.layers.11.mlp.experts.0.up_proj.weight' },
      { tensor: 'model.layers.1.self_attn.q_proj.weight' },
      { tensor: 'model.layers.2.mlp.experts.gate_up_proj', experts: { experts: 4 } },
      { tensor: 'model.layers.2.mlp.experts.down_proj', experts: { experts: 4 } },
    ];
    const map = expertChangeMap([
      ...compared.slice(0, 4).map(({ tensor }) => seen(tensor, Number(/experts\.(\d+)/.exec(tensor)?.[1]), 0.1, true)),
      ...[0, 1, 2, 3].map((expert) => seen('model.layers.2.mlp.experts.down_proj', expert, 0.1, true)),
    ]);
    if (map === null) {
      throw new Error('no map');
    }
    const rowOf = (layer: number) => map.layers.findIndex((row) => row.layer === layer);
    expect(expertCellTensors(compared, map, rowOf(1), 0)).toEqual([
      'model.layers.1.mlp.experts.0.up_proj.weight',
      'model.layers.1.mlp.experts.0.down_proj.weight',
    ]);
    expect(expertCellTensors(compared, map, rowOf(1), 1)).toEqual(['model.layers.1.mlp.experts.1.up_proj.weight']);
    expect(expertCellTensors(compared, map, rowOf(1), 2)).toEqual([]);
    expect(expertCellTensors(compared, map, rowOf(2), 3)).toEqual([
      'model.layers.2.mlp.experts.gate_up_proj',
      'model.layers.2.mlp.experts.down_proj',
    ]);
  });
});

describe('numberedExpertObservation', () => {
  it('reads the expert of a per-expert tensor, and not of a shared expert', () => {
    const entry = (tensor: string) => ({ tensor, relL2: 0.1, identical: false, basis: 'all' as const });
    expect(numberedExpertObservation(entry('model.layers.3.block_sparse_moe.experts.7.w2.weight'))?.expert).toBe(7);
    expect(numberedExpertObservation(entry('model.layers.3.mlp.shared_experts.0.up_proj.weight'))).toBeNull();
    expect(numberedExpertObservation(entry('model.layers.3.mlp.experts.gate_up_proj'))).toBeNull();
  });
});
