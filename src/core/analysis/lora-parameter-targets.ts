/**
 * PEFT's LoRA on parameters rather than modules (`target_parameters`, as gpt-oss fine-tunes adapt a MoE's packed
 * `mlp.experts.gate_up_proj` and `down_proj`): one A and one B per parameter for every expert at once, A
 * [r × experts, in] and B [out, r × experts] (peft/tuners/lora/layer.py, ParamWrapper). Its keys name the
 * parameter's owner (`mlp.experts`), one `.base_layer` deeper for each parameter of that owner wrapped after it: the
 * last one listed is the owner itself, the one before it `owner.base_layer`, and so on.
 */
import { asNumber } from './values';

export interface ParameterTargets {
  /** The config's r: the rank each expert's update has (A's rows are r × experts). */
  rank: number;
  /** Module path (as the adapter's keys name it) → the parameter it adapts, `experts.gate_up_proj`. */
  parameterOf(module: string): string | null;
}

/** A module path that is a MoE's packed experts as such a LoRA keys it (`mlp.experts`, `mlp.experts.base_layer`). */
export function isPackedExpertsOwner(module: string): boolean {
  return /(?:^|\.)experts(?:\.base_layer)*$/.test(module);
}

/** adapter_config.json's target_parameters with its r; null when it lists none. */
export function parameterTargets(adapterConfig: Record<string, unknown> | null): ParameterTargets | null {
  const listed = adapterConfig?.target_parameters;
  const rank = adapterConfig ? asNumber(adapterConfig.r) : null;
  if (!Array.isArray(listed) || listed.length === 0 || rank === null || rank <= 0) {
    return null;
  }
  // Owner path → its parameters in the order listed.
  const byOwner = new Map<string, string[]>();
  for (const entry of listed) {
    if (typeof entry !== 'string' || !entry.includes('.')) {
      continue;
    }
    const cut = entry.lastIndexOf('.');
    const owner = entry.slice(0, cut);
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), entry.slice(cut + 1)]);
  }
  return {
    rank,
    parameterOf(module) {
      let path = module;
      let depth = 0;
      while (path.endsWith('.base_layer')) {
        path = path.slice(0, -'.base_layer'.length);
        depth++;
      }
      for (const [owner, parameters] of byOwner) {
        if ((path === owner || path.endsWith(`.${owner}`)) && depth < parameters.length) {
          const ownerName = owner.slice(owner.lastIndexOf('.') + 1);
          return `${ownerName}.${parameters[parameters.length - 1 - depth]}`;
        }
      }
      return null;
    },
  };
}
