/**
 * kohya-named LoRA modules whose names kept diffusers' component prefix: `lora_unet_unet_down_blocks_0_…` where
 * kohya's own scripts write `lora_unet_down_blocks_0_…`, and `lora_te_text_encoder_text_model_…` for
 * `lora_te_text_model_…`. A converter that turned a diffusers state dict's `unet.down_blocks.0…` into kohya names
 * without dropping `unet.` writes them. The loaders that take kohya names (ComfyUI's lora key map, A1111's, diffusers'
 * kohya conversion) map `lora_unet_` + the diffusers name with dots as underscores: a doubled prefix matches no layer,
 * and the LoRA loads as if it were not there (ComfyUI logs "lora key not loaded").
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding } from '../model';
import { plural, quoteName } from '../parse/message-format';

/** The doubled prefixes, each with the one kohya writes. */
const DOUBLED_PREFIXES: ReadonlyArray<[doubled: string, kohya: string]> = [
  ['lora_unet_unet_', 'lora_unet_'],
  ['lora_te_text_encoder_', 'lora_te_'],
  ['lora_te1_text_encoder_', 'lora_te1_'],
  ['lora_te2_text_encoder_2_', 'lora_te2_'],
];

/** A warning naming the modules whose kohya names carry a diffusers prefix twice; null when none do. */
export function doubledPrefixFinding(
  modules: ReadonlyMap<string, { rows: ReadonlyMap<string, number> }>,
): Finding | null {
  const rows: number[] = [];
  let count = 0;
  let example: [string, string, string] | null = null;
  for (const [module, parts] of modules) {
    const prefix = DOUBLED_PREFIXES.find(([doubled]) => module.startsWith(doubled));
    if (!prefix) {
      continue;
    }
    count++;
    rows.push(...parts.rows.values());
    example ??= [module, prefix[0], prefix[1]];
  }
  if (example === null) {
    return null;
  }
  const [module, doubled, kohya] = example;
  return makeFinding(
    'lora-doubled-prefix',
    `${plural(count, 'module')} ${count === 1 ? 'is' : 'are'} named ${doubled}… (${quoteName(module)}): a converter kept diffusers' component name inside the kohya prefix. kohya-name loaders (ComfyUI, AUTOMATIC1111, diffusers' kohya conversion) match ${kohya} + the layer's diffusers name, so ${count === 1 ? 'it matches' : 'these match'} no layer and the LoRA changes nothing there. Rename ${doubled}… to ${kohya}….`,
    rows,
  );
}
