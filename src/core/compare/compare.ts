/**
 * Compare two loaded sources: the key-set diff, plus the LoRA-against-base check when exactly one side is an
 * adapter. The worker calls this over its two kept loads; tests call it over headers built from specs.
 */
import { isAdapterFile } from '../analysis/lora-markers';
import { isAlignRule, type CompareRule } from './align';
import { diffSides, type CompareSide, type DiffResult } from './diff';
import { checkLoraFit, type LoraFitSection } from './lora-fit';

export interface CompareOutput extends DiffResult {
  /** Present when one side is a LoRA/LyCORIS adapter and the other is not. */
  lora: LoraFitSection | null;
}

export function compareSides(a: CompareSide, b: CompareSide, rules: readonly CompareRule[]): CompareOutput {
  const diff = diffSides(a, b, rules);
  const prefixRules = rules.filter(isAlignRule);
  const adapterA = isAdapterFile(a.names);
  const adapterB = isAdapterFile(b.names);
  let lora: LoraFitSection | null = null;
  if (adapterA && !adapterB) {
    lora = checkLoraFit(a, b, prefixRules, 'a');
  } else if (adapterB && !adapterA) {
    lora = checkLoraFit(b, a, prefixRules, 'b');
  }
  return { ...diff, lora };
}
