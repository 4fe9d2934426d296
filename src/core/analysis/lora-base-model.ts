/**
 * The base model a LoRA is for, where the file says it wrongly or not at all: kohya's ss_base_model_version against
 * the blocks its modules are, and a Stable Diffusion UNet's cross-attention width. Pure.
 */
import { factorPair } from './lora-markers';
import type { TensorIndex } from './tensor-index';

/**
 * A Stable Diffusion UNet's cross-attention reads the text encoder's output: the width its key and value projections
 * take (attn2 to_k / to_v, each LoRA down factor's input) names the base when no file or config says it.
 */
const CROSS_ATTENTION_BASES: ReadonlyMap<number, string> = new Map([
  [768, 'Stable Diffusion 1.x'],
  [1024, 'Stable Diffusion 2.x'],
  [2048, 'SDXL'],
]);
/** attn2's key or value projection under diffusers', the attention processors' and kohya's names. */
const RE_CROSS_ATTENTION_KV = /attn2[._](?:processor[._])?to_[kv](?:_lora)?$/;

export function baseFromCrossAttention(
  index: TensorIndex,
  evidence: string[],
  modules: ReadonlyMap<string, { rows: ReadonlyMap<string, number> }>,
): string | undefined {
  for (const [module, entry] of modules) {
    const pair = RE_CROSS_ATTENTION_KV.test(module) ? factorPair(entry.rows) : null;
    if (pair === null || pair.pair.downDim !== 0 || index.rank(pair.down) !== 2) {
      continue;
    }
    const width = index.dim(pair.down, 1);
    const base = CROSS_ATTENTION_BASES.get(width);
    if (base !== undefined) {
      evidence.push(
        `base from the UNet's cross-attention: ${module} takes ${width}-wide text features (${base}'s text encoder)`,
      );
      return base;
    }
  }
  return undefined;
}

/** Flux's transformer blocks under diffusers', BFL's and kohya's names. */
const RE_FLUX_BLOCKS = /(?:^|[._])(?:single_transformer_blocks|double_blocks|single_blocks)[._]\d/;

/**
 * kohya's ss_base_model_version, unless the module names contradict it: ai-toolkit writes its default `sd_1.5` into
 * the Flux LoRAs it trains, whose modules are Flux's transformer blocks.
 */
export function claimedBaseModel(
  index: TensorIndex,
  evidence: string[],
  modules: readonly string[],
): string | undefined {
  const claimed = index.metadata.get('ss_base_model_version');
  if (claimed === undefined || !/^sd/i.test(claimed) || !modules.some((module) => RE_FLUX_BLOCKS.test(module))) {
    return claimed;
  }
  evidence.push(
    `__metadata__ ss_base_model_version says ${claimed}, but the modules are Flux's transformer blocks (single / double blocks): base taken as Flux`,
  );
  return 'flux';
}
