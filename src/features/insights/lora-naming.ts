/** Whose key spelling an adapter uses, as the Model tab and the compare view name it. */
import type { LoraNaming } from '../../core/analysis/report-sections';

const NAMINGS: Readonly<Record<LoraNaming, { tool: string | null; example: string }>> = {
  peft: { tool: 'PEFT', example: 'base_model.model.…' },
  kohya: { tool: 'kohya', example: 'lora_unet_… / lora_te_…' },
  lycoris: { tool: 'LyCORIS', example: 'lycoris_…' },
  diffusers: { tool: 'diffusers', example: 'unet. / transformer. / text_encoder.' },
  comfyui: { tool: 'ComfyUI', example: 'diffusion_model.…' },
  xlabs: { tool: 'XLabs', example: 'processor.qkv_lora1 …' },
  gguf: { tool: 'llama.cpp', example: 'blk.N.attn_q.weight.lora_a' },
  mlx: { tool: 'MLX', example: 'lora_a / lora_b' },
  plain: { tool: null, example: "the model's own module paths" },
};

/** `PEFT (base_model.model.…)`; the bare example for plain module paths. */
export function keyNamesLabel(naming: LoraNaming): string {
  const { tool, example } = NAMINGS[naming];
  return tool === null ? example : `${tool} (${example})`;
}

/** `PEFT names`, or null for plain module paths (no tool to name). */
export function keyNamesTool(naming: LoraNaming): string | null {
  const { tool } = NAMINGS[naming];
  return tool === null ? null : `${tool} names`;
}
