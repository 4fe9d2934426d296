/**
 * The scan's figures of one kind of tensor across the layer stack (`model.layers.#.mlp.down_proj.weight`, numbered
 * segments such as experts folded into their layer): the spread, the largest value, the share of zeros and the rows
 * and columns all zeros and the outlier columns per layer, so a layer that is dead (all zeros), pruned, blown up (an
 * abs-max far above its neighbours), copied or hard to quantize (input channels far above the rest) shows as a bar
 * that stands out. Pure.
 */
import { layerParts, numbersAsPlaceholders, type StackLayer } from './layer-names';
import type { ScanTensor } from './value-scan';

/** A role needs this many layers for a chart across them to say anything. */
export const MIN_CHARTED_LAYERS = 3;

export interface LayerFigures extends StackLayer {
  /** Tensors of the role in this layer (experts: one per expert). */
  tensors: number;
  /** Mean of their standard deviations, the largest abs-max, and zeros over all their values. */
  std: number;
  absMax: number;
  zeroShare: number;
  /** Rows and columns all zeros over their tensors (zero-lines.ts): pruned or dead neurons, parts never written. */
  zeroLines: number;
  /** Columns over 10× their tensor's median column abs-max (value-scan.ts's outlierColumns): outlier features. */
  outlierColumns: number;
}

export interface RoleAcrossLayers {
  /** The tensor name with its layer (and expert) numbers as `#`. */
  role: string;
  layers: LayerFigures[];
}

/** Every role found in at least MIN_CHARTED_LAYERS layers: most layers first, then most values (weights before norms). */
export function rolesAcrossLayers(perTensor: readonly ScanTensor[]): RoleAcrossLayers[] {
  const roles = new Map<string, { stack: string; layers: Map<number, ScanTensor[]> }>();
  for (const entry of perTensor) {
    const parts = layerParts(entry.tensor);
    if (!parts || entry.count === 0 || entry.std === null || entry.absMax === null) {
      continue;
    }
    const role = `${parts.prefix}#${parts.separator}${numbersAsPlaceholders(parts.rest)}`;
    const found = roles.get(role) ?? { stack: parts.prefix, layers: new Map<number, ScanTensor[]>() };
    found.layers.set(parts.layer, [...(found.layers.get(parts.layer) ?? []), entry]);
    roles.set(role, found);
  }
  return [...roles.entries()]
    .filter(([, { layers }]) => layers.size >= MIN_CHARTED_LAYERS)
    .map(([role, { stack, layers }]) => ({
      role,
      values: [...layers.values()].flat().reduce((sum, entry) => sum + entry.count, 0),
      layers: [...layers.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([layer, entries]) => ({
          stack,
          layer,
          tensors: entries.length,
          std: entries.reduce((sum, entry) => sum + (entry.std as number), 0) / entries.length,
          absMax: Math.max(...entries.map((entry) => entry.absMax as number)),
          zeroShare:
            entries.reduce((sum, entry) => sum + entry.zeros, 0) / entries.reduce((sum, entry) => sum + entry.count, 0),
          zeroLines: entries.reduce(
            (sum, entry) => sum + (entry.zeroLines?.rows?.count ?? 0) + (entry.zeroLines?.columns?.count ?? 0),
            0,
          ),
          outlierColumns: entries.reduce((sum, entry) => sum + (entry.outlierColumns?.columns.outlierCount ?? 0), 0),
        })),
    }))
    .sort((a, b) => b.layers.length - a.layers.length || b.values - a.values || (a.role < b.role ? -1 : 1))
    .map(({ role, layers }) => ({ role, layers }));
}
