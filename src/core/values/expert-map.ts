/**
 * "Compare values" of a mixture of experts as one map, layers by experts: which experts of which layers a
 * fine-tune moved and which it left bit for bit as they were. Expert-specialized fine-tuning (ESFT) trains the few
 * experts each layer routes a task to; a merge may take some experts from another model. The cells come from the
 * tensors compared: per-expert tensors (`mlp.experts.7.down_proj.weight`, one cell each) and stacks compared expert
 * by expert (expert-changes.ts). A cell is the largest relative change of its expert's tensors in that layer, and
 * changed when any of their values differs. Pure.
 */
import type { ExpertChanges } from './expert-changes';
import { expertGrid, inExpertCells, numberedExpert } from './expert-grid';
import type { StackLayer } from './layer-names';

/** One expert's figures in one tensor. */
export interface ExpertObservation {
  tensor: string;
  expert: number;
  relL2: number | null;
  changed: boolean;
  /** Over a row sample of the tensor (a remote one past the whole-read limit), not all of it. */
  sampled: boolean;
}

export interface ExpertChangeMap {
  /** Rows: the layers holding experts compared, each stack apart, in layer order. */
  layers: StackLayer[];
  /** Columns: experts 0 to experts − 1. */
  experts: number;
  /**
   * Row-major, layers × experts: the largest relative L2 of the expert's tensors compared in that layer (0 when
   * unchanged), null where none was compared or none has a relative figure (A all zeros).
   */
  relL2: Array<number | null>;
  /** Row-major as `relL2`: whether any value of the expert's tensors differs; null where none was compared. */
  changed: Array<boolean | null>;
  changedCells: number;
  unchangedCells: number;
  /** Some cell's figures come from a row sample: "bit for bit the same" then holds over the rows read. */
  sampled: boolean;
}

/** A per-expert tensor's comparison as one observation; null for other tensors. */
export function numberedExpertObservation(entry: {
  tensor: string;
  relL2: number | null;
  identical: boolean;
  basis: 'all' | 'sampled';
}): ExpertObservation | null {
  const expert = numberedExpert(entry.tensor);
  if (expert === null) {
    return null;
  }
  const { tensor, relL2, identical, basis } = entry;
  return { tensor, expert, relL2, changed: !identical, sampled: basis === 'sampled' };
}

/** A stack's experts, each as one observation. */
export function stackObservations(tensor: string, stack: ExpertChanges, sampled: boolean): ExpertObservation[] {
  return stack.read.map((expert) => ({
    tensor,
    expert: expert.expert,
    relL2: expert.relL2,
    changed: expert.changedShare > 0,
    sampled,
  }));
}

/**
 * The names of the compared tensors behind one cell: the expert's per-expert tensors in that layer, and the stacks
 * there compared expert by expert.
 */
export function expertCellTensors(
  compared: ReadonlyArray<{ tensor: string; experts?: { experts: number } }>,
  map: ExpertChangeMap,
  row: number,
  expert: number,
): string[] {
  return compared
    .filter((entry) => inExpertCells(entry.tensor, entry.experts?.experts, map.layers[row], [expert]))
    .map((entry) => entry.tensor);
}

/** The map of every observation within a numbered layer; null without two experts in some layer. */
export function expertChangeMap(observations: readonly ExpertObservation[]): ExpertChangeMap | null {
  const grid = expertGrid(
    observations.map((seen) => ({ tensor: seen.tensor, expert: seen.expert, cell: seen })),
    (held, next) => ({
      ...held,
      relL2: held.relL2 === null ? next.relL2 : next.relL2 === null ? held.relL2 : Math.max(held.relL2, next.relL2),
      changed: held.changed || next.changed,
    }),
  );
  if (grid === null) {
    return null;
  }
  const changedCells = grid.cells.filter((cell) => cell?.changed).length;
  return {
    layers: grid.layers,
    experts: grid.experts,
    relL2: grid.cells.map((cell) => cell?.relL2 ?? null),
    changed: grid.cells.map((cell) => cell?.changed ?? null),
    changedCells,
    unchangedCells: grid.filled - changedCells,
    sampled: observations.some((seen) => seen.sampled),
  };
}
