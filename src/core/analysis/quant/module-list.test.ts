import { describe, expect, it } from 'vitest';
import { ModuleList } from './module-list';

describe('ModuleList', () => {
  it('keeps modules given whole and modules named by a sidecar row, in order, past its first growth', () => {
    // Room for 4 modules at first: the 41 below grow every column.
    const names = Array.from({ length: 200 }, (_, row) =>
      row % 2 === 0 ? `layers.${row / 2}.proj.weight` : `layers.${(row - 1) / 2}.proj.weight_scale_inv`,
    );
    const list = new ModuleList(names, 4);
    list.add({ name: 'embed', weightRow: 199, rows: [199, 198, 197, 196], logicalParams: 7 });
    for (let layer = 0; layer < 40; layer++) {
      list.addSidecar(2 * layer, 2 * layer + 1, '.weight_scale_inv', layer % 3 === 0 ? 150 + layer : -1, layer * 10);
    }
    expect(list.length).toBe(41);
    expect([list.name(0), list.weightRow(0), list.logicalParams(0), Array.from(list.rows(0))]).toEqual([
      'embed',
      199,
      7,
      [199, 198, 197, 196],
    ]);
    for (let layer = 0; layer < 40; layer++) {
      const m = layer + 1;
      expect(list.name(m)).toBe(`layers.${layer}.proj`);
      expect(list.weightRow(m)).toBe(2 * layer);
      expect(list.logicalParams(m)).toBe(layer * 10);
      const rows = layer % 3 === 0 ? [2 * layer, 2 * layer + 1, 150 + layer] : [2 * layer, 2 * layer + 1];
      expect(Array.from(list.rows(m))).toEqual(rows);
      const { rowStart, rowList, weightRows, logical } = list.columns();
      expect(Array.from(rowList.subarray(rowStart[m], rowStart[m + 1]))).toEqual(rows);
      expect([weightRows[m], logical[m]]).toEqual([2 * layer, layer * 10]);
    }
  });

  it('wraps a detector’s own module objects', () => {
    const list = ModuleList.of([
      { name: 'a', weightRow: 3, rows: [3], logicalParams: 1.5e9 },
      { name: 'b', weightRow: 5, rows: [5, 6], logicalParams: 2 },
    ]);
    expect([list.length, list.name(1), Array.from(list.rows(1)), list.logicalParams(0)]).toEqual([
      2,
      'b',
      [5, 6],
      1.5e9,
    ]);
    expect(new ModuleList().length).toBe(0);
  });
});
