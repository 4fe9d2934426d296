import { describe, expect, it } from 'vitest';
import { expertGrid, MAX_MAP_CELLS, MAX_MAP_LAYERS, numberedExpertParts } from './expert-grid';

const seen = (layer: number, expert: number) => ({
  tensor: `model.layers.${layer}.mlp.experts.${expert}.w1.weight`,
  expert,
  cell: 1,
});

describe('expertGrid', () => {
  it('lays out layers by experts, merging an expert’s observations in a layer', () => {
    const grid = expertGrid([seen(1, 0), seen(1, 2), seen(0, 1), seen(1, 2)], (a, b) => a + b);
    expect(grid).toEqual({
      layers: [
        { stack: 'model.layers.', layer: 0 },
        { stack: 'model.layers.', layer: 1 },
      ],
      experts: 3,
      cells: [null, 1, null, 1, null, 2],
      filled: 3,
    });
  });

  it('draws no map a page could not, whatever a hostile header numbers', () => {
    const tall = Array.from({ length: MAX_MAP_LAYERS + 1 }, (_, layer) => [seen(layer, 0), seen(layer, 1)]).flat();
    expect(expertGrid(tall, (a) => a)).toBeNull();
    // 1,024 layers of 1,024 experts fit; one more layer does not.
    const wide = (layers: number) => [...Array.from({ length: layers }, (_, layer) => seen(layer, 0)), seen(0, 1023)];
    expect(expertGrid(wide(MAX_MAP_CELLS / 1024), (a) => a)?.cells).toHaveLength(MAX_MAP_CELLS);
    expect(expertGrid(wide(MAX_MAP_CELLS / 1024 + 1), (a) => a)).toBeNull();
    // Past MAX_MAP_EXPERTS an index is no expert.
    expect(expertGrid([seen(0, 0), seen(0, 5000)], (a) => a)).toBeNull();
  });
});

describe('numberedExpertParts', () => {
  it('finds the expert and blanks only its number', () => {
    expect(numberedExpertParts('model.layers.3.block_sparse_moe.experts.7.w2.weight')).toEqual({
      expert: 7,
      blanked: 'model.layers.3.block_sparse_moe.experts.#.w2.weight',
    });
    expect(numberedExpertParts('experts.12.experts.12.w')).toEqual({ expert: 12, blanked: 'experts.#.experts.12.w' });
    expect(numberedExpertParts('model.layers.3.mlp.shared_experts.0.up_proj.weight')).toBeNull();
  });
});
