/**
 * "Scan all values" of a mixture of experts as one map, layers × experts (expert-grid.ts): each expert's scale, its
 * RMS over the median RMS of the same tensor of its layer's experts, and the experts all zeros, holding NaN or ±Inf,
 * or copies of another tensor. The experts of a trained layer sit within a small factor of one another; an expert
 * never trained, dropped or pruned to zeros, a layer upcycled from one FFN whose experts never diverged, or an expert
 * a merge scaled stands apart as a cell. The cells come from per-expert tensors (`experts.7.w2.weight`, the scan's
 * figures of each) and from stacks read expert by expert (expert-stack-scan.ts); a cell holds, of its expert's
 * tensors in that layer, the ratio farthest from 1. Pure.
 */
import { expertGrid, inExpertCells, numberedExpertParts } from './expert-grid';
import { EXPERT_RMS_FACTOR } from './expert-stack-scan';
import { layerParts, type StackLayer } from './layer-names';
import { median } from '../median';
import type { ScanTensor } from './value-scan';

/** A median over fewer experts than this says nothing, as for a stack's own median (expert-stack-scan.ts). */
const MIN_EXPERTS_FOR_MEDIAN = 3;

/** What a cell's `marks` hold, one bit each. */
export const EXPERT_MARK = { zeros: 1, nonFinite: 2, copy: 4 } as const;

export interface ExpertScaleMap {
  layers: StackLayer[];
  experts: number;
  /**
   * Row-major, layers × experts: of the expert's tensors in that layer, its RMS over the median of that tensor's
   * experts there, the one farthest from 1; null where none was scanned, none has a finite value other than zero, or
   * the tensor has fewer than three experts that do.
   */
  ratio: Array<number | null>;
  /** Row-major: the tensor (as `roles` index) whose ratio the cell holds; -1 where the ratio is null. */
  roleOf: number[];
  /** Each tensor of a layer's experts, its layer and expert cut out: `mlp.experts.#.down_proj.weight`. */
  roles: string[];
  /** Row-major bits of EXPERT_MARK over the expert's tensors in that layer; null where none was scanned. */
  marks: Array<number | null>;
  /** Cells with a ratio over EXPERT_RMS_FACTOR or under its reciprocal. */
  outlierCells: number;
  zeroCells: number;
  nonFiniteCells: number;
  copyCells: number;
  /** Cells scanned. */
  scannedCells: number;
  /** The ratio farthest from 1 over the map, or null. */
  farthest: number | null;
}

interface Observation {
  tensor: string;
  expert: number;
  /** Its group's index in `Observations.groups`. */
  group: number;
  rms: number | null;
  marks: number;
}

interface Cell {
  ratio: number | null;
  role: string | null;
  marks: number;
}

/** Its ratio's distance from 1, by log: 2× and ½ are as far. */
function distance(ratio: number | null): number {
  return ratio === null ? -1 : Math.abs(Math.log(ratio));
}

/** Whether an expert's ratio stands out: over EXPERT_RMS_FACTOR or under its reciprocal. */
export function outlyingScale(ratio: number | null): boolean {
  return ratio !== null && distance(ratio) > Math.log(EXPERT_RMS_FACTOR);
}

interface Observations {
  seen: Observation[];
  /** The same tensor of a layer's experts: a stack's name, or a per-expert name with `#` for the expert. */
  groups: string[];
}

function observations(perTensor: readonly ScanTensor[], copies: ReadonlySet<string>): Observations {
  const seen: Observation[] = [];
  const groups: string[] = [];
  const groupIndex = new Map<string, number>();
  const indexOf = (group: string): number => {
    let at = groupIndex.get(group);
    if (at === undefined) {
      at = groups.push(group) - 1;
      groupIndex.set(group, at);
    }
    return at;
  };
  for (const entry of perTensor) {
    const { tensor, experts: stack } = entry;
    if (stack) {
      const group = indexOf(tensor);
      const copied = new Set(stack.copies.flat());
      const zeros = new Set(stack.zeroExperts);
      const nonFinite = new Set(stack.nonFiniteExperts);
      stack.rms.forEach((rms, expert) => {
        const marks =
          (zeros.has(expert) ? EXPERT_MARK.zeros : 0) |
          (nonFinite.has(expert) ? EXPERT_MARK.nonFinite : 0) |
          (copied.has(expert) ? EXPERT_MARK.copy : 0);
        seen.push({ tensor, expert, group, rms, marks });
      });
      continue;
    }
    const numbered = numberedExpertParts(tensor);
    if (numbered === null || entry.count === 0) {
      continue;
    }
    const { mean, std } = entry;
    const marks =
      (entry.zeros === entry.count ? EXPERT_MARK.zeros : 0) |
      (entry.nan + entry.posInf + entry.negInf > 0 ? EXPERT_MARK.nonFinite : 0) |
      (copies.has(tensor) ? EXPERT_MARK.copy : 0);
    // The scan's std is over the finite values about their mean (ddof 0): mean² + std² is their mean square.
    const rms = mean === null || std === null ? null : Math.sqrt(mean * mean + std * std);
    seen.push({ tensor, expert: numbered.expert, group: indexOf(numbered.blanked), rms, marks });
  }
  return { seen, groups };
}

/**
 * Each group's median RMS over its experts with a finite value other than zero, by group index; NaN for a group
 * with fewer than three.
 */
function groupMedians({ seen, groups }: Observations): Float64Array {
  const live: number[][] = groups.map(() => []);
  for (const { group, rms } of seen) {
    if (rms !== null && rms > 0) {
      live[group].push(rms);
    }
  }
  return Float64Array.from(live, (list) => (list.length >= MIN_EXPERTS_FOR_MEDIAN ? (median(list) as number) : NaN));
}

/**
 * The map of the scan's experts; null when no layer has two experts scanned. `copies`: the scanned tensors holding
 * the same values as another (duplicate-tensors.ts duplicateGroups).
 */
export function expertScaleMap(perTensor: readonly ScanTensor[], copies: ReadonlySet<string>): ExpertScaleMap | null {
  const observed = observations(perTensor, copies);
  if (observed.seen.length < 2) {
    return null;
  }
  const medians = groupMedians(observed);
  // Each group's name within its layer, found for the groups a cell's ratio names.
  const groupRoles: Array<string | undefined> = [];
  const roleOfGroup = (group: number): string => {
    const name = observed.groups[group];
    return (groupRoles[group] ??= layerParts(name)?.rest ?? name);
  };
  const grid = expertGrid<Cell>(
    observed.seen.map(({ tensor, expert, group, rms, marks }) => {
      const mid = medians[group];
      const ratio = rms !== null && rms > 0 && mid > 0 ? rms / mid : null;
      return { tensor, expert, cell: { ratio, role: ratio === null ? null : roleOfGroup(group), marks } };
    }),
    (held, next) => ({
      ...(distance(next.ratio) > distance(held.ratio) ? next : held),
      marks: held.marks | next.marks,
    }),
  );
  if (grid === null) {
    return null;
  }
  const roles: string[] = [];
  const roleIndex = new Map<string, number>();
  const indexOf = (role: string | null): number => {
    if (role === null) {
      return -1;
    }
    let at = roleIndex.get(role);
    if (at === undefined) {
      at = roles.push(role) - 1;
      roleIndex.set(role, at);
    }
    return at;
  };
  const count = (test: (cell: Cell) => boolean) => grid.cells.filter((cell) => cell !== null && test(cell)).length;
  let farthest: number | null = null;
  for (const cell of grid.cells) {
    if (cell && distance(cell.ratio) > distance(farthest)) {
      farthest = cell.ratio;
    }
  }
  return {
    layers: grid.layers,
    experts: grid.experts,
    ratio: grid.cells.map((cell) => cell?.ratio ?? null),
    roleOf: grid.cells.map((cell) => indexOf(cell?.role ?? null)),
    roles,
    marks: grid.cells.map((cell) => cell?.marks ?? null),
    outlierCells: count(({ ratio }) => outlyingScale(ratio)),
    zeroCells: count(({ marks }) => (marks & EXPERT_MARK.zeros) !== 0),
    nonFiniteCells: count(({ marks }) => (marks & EXPERT_MARK.nonFinite) !== 0),
    copyCells: count(({ marks }) => (marks & EXPERT_MARK.copy) !== 0),
    scannedCells: grid.filled,
    farthest,
  };
}

/**
 * The table rows of the scanned tensors behind cells of one layer: each expert's per-expert tensors there, and the
 * stacks there that hold it.
 */
export function expertCellRows(
  perTensor: readonly ScanTensor[],
  layer: StackLayer,
  experts: readonly number[],
): number[] {
  return perTensor
    .filter((entry) => inExpertCells(entry.tensor, entry.experts?.experts, layer, experts))
    .map((entry) => entry.row);
}
