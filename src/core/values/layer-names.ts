/**
 * Where a tensor sits in the layer stack, from its name: the first number after `layers.`, `layer.`, `h.`,
 * `blocks.`, `block.`, `resblocks.` or llama.cpp's `blk.`, with what comes before and after it. One reading for the
 * per-layer charts, the LoRA summaries and the copies a merge stacked.
 */
const LAYERED = /^((?:.*?\.)?(?:layers|layer|h|blocks|block|resblocks|blk)\.)(\d+)\.(.+)$/;

export interface LayerParts {
  /** Up to and with the container: `model.layers.`. */
  prefix: string;
  layer: number;
  /** After the layer number: `mlp.up_proj.weight`. */
  rest: string;
}

export function layerParts(name: string): LayerParts | null {
  const match = LAYERED.exec(name);
  return match ? { prefix: match[1], layer: Number(match[2]), rest: match[3] } : null;
}

/** The layer a tensor belongs to; null outside numbered layers. */
export function layerOf(name: string): number | null {
  return layerParts(name)?.layer ?? null;
}

/**
 * A name with every number that stands as a part of its own (between `.`, `_` or `/`) as `#`:
 * `model.layers.3.block_sparse_moe.experts.7.w1.weight` → `model.layers.#.block_sparse_moe.experts.#.w1.weight`.
 * Digits inside a word stay: Mixtral's `w1`/`w2`/`w3`, GPT-2's `c_fc`, `fc1`/`fc2`, SDXL's `attn1`/`attn2` and
 * `te1`/`te2` are different tensors, whose values differ by design.
 */
export function numbersAsPlaceholders(name: string): string {
  return name.replace(/(^|[._/])\d+(?=[._/]|$)/g, '$1#');
}
