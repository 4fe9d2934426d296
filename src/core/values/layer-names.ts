/**
 * Where a tensor sits in the layer stack, from its name: the first number after `layers.`, `layer.`, `h.`,
 * `blocks.`, `block.`, `resblocks.`, llama.cpp's `blk.`, or a named stack of blocks or layers (Flux's
 * `double_blocks.`/`single_blocks.`, diffusers' `transformer_blocks.`/`single_transformer_blocks.`, SD3's
 * `joint_blocks.`, a UNet's `input_blocks.`), with what comes before and after it; kohya's LoRA paths spell the
 * same stacks with underscores (`lora_unet_double_blocks_0_img_attn_qkv`, `lora_te1_text_model_encoder_layers_11_…`).
 * One reading for the per-layer charts, the LoRA summaries and the copies a merge stacked.
 */
const LAYERED = /^((?:.*?\.)?(?:(?:[A-Za-z0-9]+_)*(?:layers|blocks)|layer|h|block|resblocks|blk)\.)(\d+)\.(.+)$/;
const KOHYA_LAYERED = /^(lora_[a-z0-9]+_(?:[a-z0-9]+_)*?(?:layers|blocks)_)(\d+)_(.+)$/;

export interface LayerParts {
  /** Up to and with the container and the separator after it: `model.layers.`, `lora_unet_double_blocks_`. */
  prefix: string;
  layer: number;
  /** What separates the layer number from the rest: `.`, or `_` in kohya's paths. */
  separator: '.' | '_';
  /** After the layer number and its separator: `mlp.up_proj.weight`. */
  rest: string;
}

export function layerParts(name: string): LayerParts | null {
  const dotted = LAYERED.exec(name);
  if (dotted) {
    return { prefix: dotted[1], layer: Number(dotted[2]), separator: '.', rest: dotted[3] };
  }
  const kohya = KOHYA_LAYERED.exec(name);
  return kohya ? { prefix: kohya[1], layer: Number(kohya[2]), separator: '_', rest: kohya[3] } : null;
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

/** A layer of one stack: `stack` is the name up to and with the container (`model.layers.`, `double_blocks.`). */
export interface StackLayer {
  stack: string;
  layer: number;
}

/**
 * One slot per layer of each stack, made on first use: stacks in the order names first reach them, and within a
 * stack, layers in number order. Names outside numbered layers get no slot.
 */
export class StackLayers<T> {
  private readonly stacks = new Map<string, Map<number, T>>();

  constructor(private readonly make: () => T) {}

  /** The slot of `name`'s layer; null when the name sits in no numbered layer. */
  at(name: string): T | null {
    const parts = layerParts(name);
    if (parts === null) {
      return null;
    }
    let layers = this.stacks.get(parts.prefix);
    if (!layers) {
      layers = new Map();
      this.stacks.set(parts.prefix, layers);
    }
    let slot = layers.get(parts.layer);
    if (slot === undefined) {
      slot = this.make();
      layers.set(parts.layer, slot);
    }
    return slot;
  }

  inOrder(): Array<StackLayer & { slot: T }> {
    return [...this.stacks].flatMap(([stack, layers]) =>
      [...layers].sort((a, b) => a[0] - b[0]).map(([layer, slot]) => ({ stack, layer, slot })),
    );
  }
}

/** "double_blocks.0–18, then single_blocks.0–37": the stacks a chart's bars run through, when there are several. */
export function stacksText(entries: readonly StackLayer[]): string | null {
  const spans: Array<{ stack: string; first: number; last: number }> = [];
  for (const { stack, layer } of entries) {
    const span = spans[spans.length - 1];
    if (span?.stack === stack) {
      span.last = layer;
    } else {
      spans.push({ stack, first: layer, last: layer });
    }
  }
  if (spans.length < 2) {
    return null;
  }
  return spans.map(({ stack, first, last }) => `${stack}${first}${last > first ? `–${last}` : ''}`).join(', then ');
}
