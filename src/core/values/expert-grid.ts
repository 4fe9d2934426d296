/**
 * The layout of a mixture of experts as layers × experts, shared by "Compare values"' map of changes
 * (expert-map.ts) and "Scan all values"' map of scales (expert-scale-map.ts): rows are the numbered layers that hold
 * experts, each stack of layers apart and in layer order, columns experts 0 to n − 1, and an expert's observations
 * in one layer (its gate, up and down tensors) merged into one cell. Pure.
 */
import { layerParts, StackLayers, type StackLayer } from './layer-names';

/** A numbered expert's tensor: `….experts.<n>.…`, not a shared expert (`shared_experts.0`). */
const RE_NUMBERED_EXPERT = /(?:^|\.)experts\.(\d+)\./;

/** Most experts a map spans: past this an index in a name is not an expert count worth a column each. */
export const MAX_MAP_EXPERTS = 1024;

/** Most layers a map spans: a config's layer count past 4,096 is taken as broken elsewhere too. */
export const MAX_MAP_LAYERS = 4096;

/**
 * Most cells a map holds (a 61-layer model of 256 experts has 15,616): past this a hostile header's numbered names
 * would make one array per figure of hundreds of millions of cells, and no page can draw them.
 */
export const MAX_MAP_CELLS = 2 ** 20;

/** The expert a per-expert tensor belongs to (`mlp.experts.7.down_proj.weight` → 7); null for other tensors. */
export function numberedExpert(tensor: string): number | null {
  const match = RE_NUMBERED_EXPERT.exec(tensor);
  return match ? Number(match[1]) : null;
}

/**
 * A per-expert tensor's expert, and its name with that number as `#` (`mlp.experts.#.down_proj.weight`): the same
 * tensor of every expert of its layer. Null for other tensors.
 */
export function numberedExpertParts(tensor: string): { expert: number; blanked: string } | null {
  const match = RE_NUMBERED_EXPERT.exec(tensor);
  if (!match) {
    return null;
  }
  // The match ends with the number and the dot after it.
  const end = match.index + match[0].length - 1;
  const start = end - match[1].length;
  return { expert: Number(match[1]), blanked: `${tensor.slice(0, start)}#${tensor.slice(end)}` };
}

/**
 * Whether `tensor` is behind a cell of one of `experts` in `layer`: a per-expert tensor of one of them there, or a
 * stack there (`stackExperts` experts in its first dimension) that holds one.
 */
export function inExpertCells(
  tensor: string,
  stackExperts: number | undefined,
  { stack, layer }: StackLayer,
  experts: readonly number[],
): boolean {
  const parts = layerParts(tensor);
  if (parts === null || parts.prefix !== stack || parts.layer !== layer) {
    return false;
  }
  if (stackExperts !== undefined) {
    return experts.some((expert) => expert < stackExperts);
  }
  const expert = numberedExpert(tensor);
  return expert !== null && experts.includes(expert);
}

export interface ExpertGrid<T> {
  layers: StackLayer[];
  experts: number;
  /** Row-major, layers × experts: the merged observations of that expert in that layer; null where there are none. */
  cells: Array<T | null>;
  /** Cells with an observation. */
  filled: number;
}

/**
 * The grid of `observations` (tensors outside numbered layers and experts past MAX_MAP_EXPERTS left out), `merge`
 * folding a second observation of a cell into the first; null when no layer has two experts, or past
 * MAX_MAP_LAYERS rows or MAX_MAP_CELLS cells.
 */
export function expertGrid<T>(
  observations: Iterable<{ tensor: string; expert: number; cell: T }>,
  merge: (held: T, next: T) => T,
): ExpertGrid<T> | null {
  const layered = new StackLayers(() => new Map<number, T>());
  let experts = 0;
  // A stack's experts come one after another under one name: its layer is found once.
  let lastTensor: string | null = null;
  let row: Map<number, T> | null = null;
  for (const { tensor, expert, cell } of observations) {
    if (tensor !== lastTensor) {
      row = layered.at(tensor);
      lastTensor = tensor;
    }
    if (row === null || expert >= MAX_MAP_EXPERTS) {
      continue;
    }
    const held = row.get(expert);
    row.set(expert, held === undefined ? cell : merge(held, cell));
    experts = Math.max(experts, expert + 1);
  }
  const layers = layered.inOrder();
  if (
    !layers.some(({ slot }) => slot.size >= 2) ||
    layers.length > MAX_MAP_LAYERS ||
    layers.length * experts > MAX_MAP_CELLS
  ) {
    return null;
  }
  const cells: Array<T | null> = [];
  for (const { slot } of layers) {
    for (let expert = 0; expert < experts; expert++) {
      cells.push(slot.get(expert) ?? null);
    }
  }
  return {
    layers: layers.map(({ stack, layer }) => ({ stack, layer })),
    experts,
    cells,
    filled: layers.reduce((sum, { slot }) => sum + slot.size, 0),
  };
}
