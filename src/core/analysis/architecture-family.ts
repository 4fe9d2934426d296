/**
 * What family a network belongs to, by name: extra towers (vision, audio, text encoders, VAE), diffusion UNets and
 * DiTs by their block containers, and the transformer family by its attention and MLP module names.
 */
import type { LayerModules } from './architecture-layer';
import type { DiffusionInfo } from './report-sections';
import type { TensorIndex } from './tensor-index';

/** Heads of vision and audio towers; transformers also nests these under `model.` (encoders it never does). */
export const VISION_HEADS = [
  'visual',
  'vision_tower',
  'vision_model',
  'vision_encoder',
  'image_encoder',
  'vision_embed_tokens',
  'multi_modal_projector',
  'mm_projector',
  'vision',
];
export const AUDIO_HEADS = ['audio_tower', 'audio_model', 'audio_encoder', 'audio'];

/** First name segments (or second, under `model.`) of non-text towers. */
const TOWER_HEADS: ReadonlyMap<string, string> = new Map([
  ...VISION_HEADS.map((head): [string, string] => [head, 'vision']),
  ...AUDIO_HEADS.map((head): [string, string] => [head, 'audio']),
  ...['cond_stage_model', 'conditioner', 'text_encoder', 'text_encoders', 'text_encoder_2', 'text_encoder_3'].map(
    (head): [string, string] => [head, 'text-encoder'],
  ),
  ...['first_stage_model', 'vae'].map((head): [string, string] => [head, 'vae']),
]);

/** Towers that transformers nests under `model.` (`model.visual`, `model.vision_tower`…). */
const MODEL_NESTED_TOWERS = new Set([...VISION_HEADS, ...AUDIO_HEADS]);

const DIT_CONTAINERS = [
  'double_blocks',
  'single_blocks',
  'joint_blocks',
  'transformer_blocks',
  'single_transformer_blocks',
];
const UNET_CONTAINERS = ['input_blocks', 'output_blocks', 'down_blocks', 'up_blocks'];

export interface Container {
  prefix: string;
  indices: Set<number>;
  tensors: number;
}

/** Tower kind of a name by its first segment (or second, under `model.`), without a regex per row. */
export function towerOf(name: string): { kind: string; prefix: string } | null {
  let dot = name.indexOf('.');
  if (dot < 0) {
    return null;
  }
  let head = name.slice(0, dot);
  let skipped = '';
  if (head === 'model') {
    const next = name.indexOf('.', dot + 1);
    if (next < 0) {
      return null;
    }
    skipped = 'model.';
    head = name.slice(dot + 1, next);
    dot = next;
  }
  const kind = TOWER_HEADS.get(head);
  if (kind === undefined || (skipped !== '' && !MODEL_NESTED_TOWERS.has(head))) {
    return null;
  }
  return { kind, prefix: `${skipped}${head}.` };
}

export function detectDiffusion(
  containers: ReadonlyMap<string, Container>,
  anyName: (pattern: RegExp) => boolean,
  evidence: string[],
): DiffusionInfo | null {
  const blocks: Record<string, number> = {};
  let kind: DiffusionInfo['kind'] | null = null;
  for (const container of containers.values()) {
    const match = /(?:^|\.)([a-z_]+)\.$/.exec(container.prefix);
    const segment = match ? match[1] : '';
    // VAE encoders/decoders also have down_blocks/up_blocks; only a UNet sits outside encoder./decoder.
    if (/(?:^|\.)(?:encoder|decoder|first_stage_model|vae)\./.test(container.prefix)) {
      continue;
    }
    if (UNET_CONTAINERS.includes(segment)) {
      blocks[segment] = container.indices.size;
      kind = 'UNet';
    } else if (DIT_CONTAINERS.includes(segment) && kind !== 'UNet') {
      blocks[segment] = container.indices.size;
      kind = 'DiT';
    }
  }
  if (kind === 'UNet' && anyName(/(?:^|\.)middle_block\./)) {
    blocks.middle_block = 1;
  }
  if (kind === 'UNet' && anyName(/(?:^|\.)mid_block\./)) {
    blocks.mid_block = 1;
  }
  if (
    kind === 'DiT' &&
    !anyName(
      /(?:^|\.)(?:time_in|time_text_embed|t_embedder|timestep_embedder|time_embed|img_in|x_embedder|adaLN|norm_out|final_layer)/,
    )
  ) {
    return null; // transformer_blocks alone may be an ordinary transformer.
  }
  if (kind === null) {
    return null;
  }
  evidence.push(
    `${kind}: ${Object.entries(blocks)
      .map(([name, count]) => `${count} ${name}`)
      .join(', ')}`,
  );
  return { kind, blocks };
}

export function diffusionFamily(diffusion: DiffusionInfo, names: readonly string[]): string {
  const blocks = diffusion.blocks;
  if (blocks.double_blocks !== undefined && blocks.single_blocks !== undefined) {
    return 'flux-like';
  }
  if (blocks.transformer_blocks !== undefined && blocks.single_transformer_blocks !== undefined) {
    return 'flux-like (diffusers)';
  }
  if (blocks.joint_blocks !== undefined) {
    return 'sd3-like (MMDiT)';
  }
  if (diffusion.kind === 'UNet') {
    if (names.some((name) => name.startsWith('conditioner.embedders.1.'))) {
      return 'sdxl-like';
    }
    if (names.some((name) => name.startsWith('cond_stage_model.'))) {
      return 'sd1/sd2-like';
    }
    return 'unet';
  }
  return 'dit';
}

export function guessFamily(
  anyName: (pattern: RegExp) => boolean,
  modules: LayerModules,
  traits: { mla: boolean; experts: number; expertsPacked: boolean; sinks: boolean },
): string[] {
  const has = (pattern: RegExp): boolean => modules.findModule(pattern) !== null;
  if (traits.mla) {
    return [traits.experts > 0 ? 'deepseek-v3-like (MLA + MoE)' : 'deepseek-like (MLA)'];
  }
  if (traits.sinks && traits.expertsPacked) {
    return ['gpt-oss-like'];
  }
  if (anyName(/\.block_sparse_moe\./)) {
    return ['mixtral-like'];
  }
  if (has(/\.c_attn$/)) {
    return ['gpt2-like'];
  }
  if (has(/\.query_key_value$/)) {
    return ['bloom/falcon/neox-like'];
  }
  if (has(/SelfAttention\.q$/)) {
    return ['t5-like'];
  }
  if (anyName(/\.q_norm\.weight$/) && has(/\.q_proj$/)) {
    return [traits.experts > 0 ? 'qwen3-moe-like' : 'qwen3-like'];
  }
  if (has(/\.q_proj$/) && has(/\.gate_proj$|\.experts\./)) {
    return [traits.experts > 0 ? 'llama-like MoE' : 'llama-like'];
  }
  return [];
}

/** Bias of a DiT's patch embedder (FLUX, SD3, PixArt/DiT; ComfyUI and diffusers names), or -1. */
export function ditEmbedderBias(index: TensorIndex): number {
  for (const suffix of ['img_in.bias', 'x_embedder.bias', 'pos_embed.proj.bias', 'x_embedder.proj.bias']) {
    const rows = index.rowsEndingWith(suffix);
    const row = rows.find((r) => {
      const name = index.names[r];
      return (name === suffix || name.endsWith(`.${suffix}`)) && index.rank(r) === 1;
    });
    if (row !== undefined) {
      return row;
    }
  }
  return -1;
}
