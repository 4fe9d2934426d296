/**
 * "Compare values" of a mixture of experts as one map, layers by experts: which experts of which layers a
 * fine-tune moved and which it left bit for bit as they were. Expert-specialized fine-tuning (ESFT) trains the few
 * experts each layer routes a task to; a merge may take some experts from another model. The cells come from the
 * tensors compared: per-expert tensors (`mlp.experts.7.down_proj.weight`, one cell each) and stacks compared expert
 * by expert (expert-changes.ts). A cell is the largest relative change of its expert's tensors in that layer, and
 * changed when any of their values differs. Pure.
 */
import type { ExpertChanges } from './expert-changes';
import { layerParts, type StackLayer } from './layer-names';

/** A numbered expert's tensor: `….experts.<n>.…`, not a shared expert (`shared_experts.0`). */
const RE_NUMBERED_EXPERT = /(?:^|\.)experts\.(\d+)\./;

/** Most experts a map spans: past this an index in a name is not an expert count worth a column each. */
export const MAX_MAP_EXPERTS = 1024;

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
  const match = RE_NUMBERED_EXPERT.exec(entry.tensor);
  if (!match) {
    return null;
  }
  const { tensor, relL2, identical, basis } = entry;
  return { tensor, expert: Number(match[1]), relL2, changed: !identical, sampled: basis === 'sampled' };
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

/** The map of every observation within a numbered layer; null without two experts in some layer. */
export function expertChangeMap(observations: readonly ExpertObservation[]): ExpertChangeMap | null {
  const rows = new Map<string, StackLayer & { cells: Map<number, { relL2: number | null; changed: boolean }> }>();
  let experts = 0;
  for (const seen of observations) {
    const parts = layerParts(seen.tensor);
    if (parts === null || seen.expert >= MAX_MAP_EXPERTS) {
      continue;
    }
    const key = `${parts.prefix}\u0000${parts.layer}`;
    let row = rows.get(key);
    if (!row) {
      row = { stack: parts.prefix, layer: parts.layer, cells: new Map() };
      rows.set(key, row);
    }
    const cell = row.cells.get(seen.expert);
    const before = cell?.relL2 ?? null;
    row.cells.set(seen.expert, {
      relL2: before === null ? seen.relL2 : seen.relL2 === null ? before : Math.max(before, seen.relL2),
      changed: (cell?.changed ?? false) || seen.changed,
    });
    experts = Math.max(experts, seen.expert + 1);
  }
  const layers = [...rows.values()];
  if (!layers.some((row) => row.cells.size >= 2)) {
    return null;
  }
  const stacks = [...new Set(layers.map((row) => row.stack))];
  layers.sort((x, y) => stacks.indexOf(x.stack) - stacks.indexOf(y.stack) || x.layer - y.layer);
  const relL2: Array<number | null> = [];
  const changed: Array<boolean | null> = [];
  let changedCells = 0;
  for (const row of layers) {
    for (let expert = 0; expert < experts; expert++) {
      const cell = row.cells.get(expert);
      relL2.push(cell ? cell.relL2 : null);
      changed.push(cell ? cell.changed : null);
      changedCells += cell?.changed ? 1 : 0;
    }
  }
  const cells = layers.reduce((sum, row) => sum + row.cells.size, 0);
  const sampled = observations.some((seen) => seen.sampled);
  return {
    layers: layers.map(({ stack, layer }) => ({ stack, layer })),
    experts,
    relL2,
    changed,
    changedCells,
    unchangedCells: cells - changedCells,
    sampled,
  };
}
