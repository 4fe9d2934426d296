/**
 * Which layers of a transformer's stack an adapter covers: mlx-lm trains the last `num_layers` layers (16 by
 * default), PEFT the ones `layers_to_transform` lists, and an adapter on a subset behaves differently from one on
 * every layer. Read from the adapted modules' names: the index after a layer stack's segment (`layers.N`, `h.N`,
 * `layer.N`, `blocks.N`; kohya's `_layers_N_`), in the stack that holds most modules, when that is at least half of
 * them (a diffusion LoRA's UNet blocks are no such stack; its text encoder's layers are not the adapter's span).
 */

export interface LayerSpan {
  /** The stack's path before the index, as the names write it (`base_model.model.model.layers`). */
  stack: string;
  /** Distinct layer indices adapted. */
  count: number;
  first: number;
  last: number;
  /** Whether every index from first to last is adapted. */
  contiguous: boolean;
}

/** Dotted names: `<prefix>.layers.12.<rest>`; kohya's underscore paths: `<prefix>_layers_12_<rest>`. */
const DOTTED_STACK = /^(.*?(?:^|\.)(?:layers|h|layer|blocks))\.(\d+)\./;
const UNDERSCORE_STACK = /^(.*?_layers)_(\d+)_/;

/** The span of the most adapted stack, or null when no module sits in a numbered layer stack. */
export function adaptedLayerSpan(modules: Iterable<string>): LayerSpan | null {
  const stacks = new Map<string, { modules: number; indices: Set<number> }>();
  let total = 0;
  for (const module of modules) {
    total++;
    const match = DOTTED_STACK.exec(`${module}.`) ?? UNDERSCORE_STACK.exec(`${module}_`);
    if (!match) {
      continue;
    }
    let stack = stacks.get(match[1]);
    if (!stack) {
      stack = { modules: 0, indices: new Set() };
      stacks.set(match[1], stack);
    }
    stack.modules++;
    stack.indices.add(Number(match[2]));
  }
  let best: [string, { modules: number; indices: Set<number> }] | null = null;
  for (const entry of stacks) {
    if (best === null || entry[1].modules > best[1].modules) {
      best = entry;
    }
  }
  if (best === null || best[1].modules * 2 < total) {
    return null;
  }
  let first = Infinity;
  let last = -Infinity;
  for (const index of best[1].indices) {
    first = Math.min(first, index);
    last = Math.max(last, index);
  }
  const count = best[1].indices.size;
  return { stack: best[0], count, first, last, contiguous: last - first + 1 === count };
}

/** "16–31 (16 layers)", "0, 2 … 30 (16 layers)" or "layer 5". */
export function layerSpanLabel(span: LayerSpan): string {
  if (span.count === 1) {
    return `layer ${span.first}`;
  }
  const range = span.contiguous ? `${span.first}–${span.last}` : `${span.count} of ${span.first}–${span.last}`;
  return `${range} (${span.count} layers)`;
}
