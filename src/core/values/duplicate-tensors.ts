/**
 * Tensors that hold the same values, from the scan's figures: a merge that stacks copies of layers (mergekit's
 * passthrough "frankenmerges", depth up-scaling), an LM head saved as a copy of the embedding, experts that were
 * never made to differ. Two tensors count as the same, whatever their dtypes (a BF16 tensor and its F32 copy decode
 * to the same numbers), when their count, zeros, NaN, ±Inf and abs-max are equal and their mean and std agree to 1e-12 (the scan sums chunks in an order that depends on where each tensor
 * starts, so the last bits of a moment may differ between two copies). Real weights that differ do not agree on
 * all of that; a reordering of the same values does, and is named alike. Constant tensors (norms at 1, zeros) and
 * small ones are left out: equal by construction, they say nothing about a merge. Pure.
 */
import { layerParts } from './layer-names';
import type { ScanTensor } from './value-scan';

/** Tensors smaller than this are not compared (biases, norms, scalars). */
export const MIN_COMPARED_ELEMENTS = 4096;

/** Relative agreement of mean and std for two tensors to count as the same values. */
const MOMENT_TOLERANCE = 1e-12;

/** Groups listed; the counts stay exact. */
export const MAX_DUPLICATE_GROUPS = 100;

export interface DuplicateTensors {
  /** Groups of two or more tensors with the same values, each in scan order, at most MAX_DUPLICATE_GROUPS. */
  groups: string[][];
  /** How many groups, and how many tensors are in one. */
  groupCount: number;
  tensorCount: number;
  /**
   * Layers every compared tensor of which repeats the same tensor of an earlier layer, as runs: `copies` of
   * `prefix` layers `first`…`last` hold `source`…`source + (last − first)`.
   */
  repeatedLayers: Array<{ prefix: string; first: number; last: number; source: number }>;
}

function close(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= MOMENT_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

/** Whether two scanned tensors hold the same values by the rule above; null when either has no figures. */
export function sameScannedValues(a: ScanTensor, b: ScanTensor): boolean | null {
  if (a.mean === null || b.mean === null || a.std === null || b.std === null || a.absMax === null) {
    return null;
  }
  return (
    a.count === b.count &&
    a.zeros === b.zeros &&
    a.nan === b.nan &&
    a.posInf === b.posInf &&
    a.negInf === b.negInf &&
    a.absMax === b.absMax &&
    close(a.mean, b.mean) &&
    close(a.std, b.std)
  );
}

function comparable(entry: ScanTensor): boolean {
  return (
    entry.count >= MIN_COMPARED_ELEMENTS &&
    entry.std !== null &&
    entry.std > 0 &&
    entry.mean !== null &&
    entry.absMax !== null
  );
}

/** Every group of two or more scanned tensors holding the same values, each in scan order. */
export function duplicateGroups(perTensor: readonly ScanTensor[]): string[][] {
  const buckets = new Map<string, ScanTensor[][]>();
  for (const entry of perTensor) {
    if (!comparable(entry)) {
      continue;
    }
    // Bucketed by the exact figures so each tensor is held against few others; not by dtype (a BF16 embedding and
    // its F32 copy decode to the same numbers).
    const key = [entry.count, entry.zeros, entry.nan, entry.posInf, entry.negInf, entry.absMax].join('|');
    const clusters = buckets.get(key) ?? [];
    const home = clusters.find(([first]) => sameScannedValues(first, entry));
    if (home) {
      home.push(entry);
    } else {
      clusters.push([entry]);
    }
    buckets.set(key, clusters);
  }
  return [...buckets.values()]
    .flat()
    .filter((cluster) => cluster.length > 1)
    .map((cluster) => cluster.map((entry) => entry.tensor));
}

/** The tensors of the scan that hold the same values as another, and the layers that repeat earlier ones. */
export function duplicateTensors(
  perTensor: readonly ScanTensor[],
  groups: readonly string[][] = duplicateGroups(perTensor),
): DuplicateTensors | null {
  if (groups.length === 0) {
    return null;
  }
  return {
    groups: groups.slice(0, MAX_DUPLICATE_GROUPS),
    groupCount: groups.length,
    tensorCount: groups.reduce((sum, group) => sum + group.length, 0),
    repeatedLayers: repeatedLayers(perTensor, groups),
  };
}

/**
 * Layer L repeats layer S when every compared tensor of L has a copy at the same place in S, the earliest such S;
 * consecutive layers repeating consecutive ones are one run.
 */
function repeatedLayers(
  perTensor: readonly ScanTensor[],
  groups: readonly string[][],
): DuplicateTensors['repeatedLayers'] {
  const compared = new Map<string, number>();
  for (const entry of perTensor) {
    const parts = comparable(entry) ? layerParts(entry.tensor) : null;
    if (parts) {
      const layer = `${parts.prefix}${parts.layer}`;
      compared.set(layer, (compared.get(layer) ?? 0) + 1);
    }
  }
  // For each layer, how many of its tensors have a copy at the same place in each earlier layer.
  const copiesFrom = new Map<string, Map<number, number>>();
  for (const group of groups) {
    // Copies at the same place (prefix and the rest of the name) in other layers: one list per place.
    const byPlace = new Map<string, number[]>();
    for (const name of group) {
      const parts = layerParts(name);
      if (parts) {
        const place = `${parts.prefix}#.${parts.rest}`;
        byPlace.set(place, [...(byPlace.get(place) ?? []), parts.layer]);
      }
    }
    for (const [place, layers] of byPlace) {
      const prefix = place.slice(0, place.indexOf('#'));
      for (const later of layers) {
        const sources = copiesFrom.get(`${prefix}${later}`) ?? new Map<number, number>();
        for (const earlier of new Set(layers)) {
          if (earlier < later) {
            sources.set(earlier, (sources.get(earlier) ?? 0) + 1);
          }
        }
        copiesFrom.set(`${prefix}${later}`, sources);
      }
    }
  }
  const repeats: Array<{ prefix: string; layer: number; source: number }> = [];
  for (const [layer, sources] of copiesFrom) {
    const [, prefix, number] = /^(.*?)(\d+)$/.exec(layer) as RegExpExecArray;
    const whole = [...sources].filter(([, count]) => count === compared.get(layer)).map(([source]) => source);
    if (whole.length > 0) {
      repeats.push({ prefix, layer: Number(number), source: Math.min(...whole) });
    }
  }
  repeats.sort((a, b) => (a.prefix === b.prefix ? a.layer - b.layer : a.prefix < b.prefix ? -1 : 1));
  const runs: DuplicateTensors['repeatedLayers'] = [];
  for (const { prefix, layer, source } of repeats) {
    const last = runs[runs.length - 1];
    if (last && last.prefix === prefix && last.last === layer - 1 && last.source + (layer - last.first) === source) {
      last.last = layer;
    } else {
      runs.push({ prefix, first: layer, last: layer, source });
    }
  }
  return runs;
}
