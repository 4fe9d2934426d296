/** Whose key spelling an adapter uses, as the Model tab and the compare view name it (core's LORA_NAMINGS). */
import { LORA_NAMINGS } from '../../core/analysis/lora-markers';
import type { LoraNaming } from '../../core/analysis/report-sections';

/** `PEFT (base_model.model.…)`; the bare example for plain module paths. */
export function keyNamesLabel(naming: LoraNaming): string {
  const { tool, example } = LORA_NAMINGS[naming];
  return tool === null ? example : `${tool} (${example})`;
}

/** `PEFT names`, or null for plain module paths (no tool to name). */
export function keyNamesTool(naming: LoraNaming): string | null {
  const { tool } = LORA_NAMINGS[naming];
  return tool === null ? null : `${tool} names`;
}
