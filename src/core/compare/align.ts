/**
 * Key alignment for comparing two checkpoints: the wrapper prefixes training tools add in front of every tensor
 * name (DDP `module.`, PEFT `base_model.model.`, torch.compile `_orig_mod.`, and the `model.` of HF task heads)
 * are stripped on both sides, so `module.model.layers.0.mlp.up_proj.weight` and `model.layers.0.mlp.up_proj.weight`
 * meet under one key. Each rule can be turned off; every name records which rules stripped it, so the UI can say
 * how many names each rule touched on each side.
 *
 * Stripping never merges two tensors of the same file: when two names of one side would end up under the same key
 * (`model.norm.weight` and `norm.weight`), the stripped ones keep their full name instead (a "collision").
 */
import { GGUF_NAMES_RULE } from './gguf-keys';

/** Most specific first: `base_model.model.` must win over `model.`. */
export const ALIGN_RULES = ['base_model.model.', 'module.', '_orig_mod.', 'model.'] as const;
export type AlignRule = (typeof ALIGN_RULES)[number];

export const DEFAULT_ALIGN_RULES: readonly AlignRule[] = ALIGN_RULES;

/** Every rule a compare can switch: the prefix rules and the GGUF ↔ Hugging Face name mapping (gguf-keys.ts). */
export const COMPARE_RULES = [...ALIGN_RULES, GGUF_NAMES_RULE] as const;
export type CompareRule = (typeof COMPARE_RULES)[number];
export const DEFAULT_COMPARE_RULES: readonly CompareRule[] = COMPARE_RULES;

export function isCompareRule(value: string): value is CompareRule {
  return (COMPARE_RULES as readonly string[]).includes(value);
}

export interface RuleCount {
  rule: AlignRule;
  enabled: boolean;
  /** Names of side A this rule stripped (a name stripped twice by one rule counts once). */
  a: number;
  b: number;
}

export interface AlignmentSummary {
  rules: RuleCount[];
  /** Names left unstripped because stripping would have merged them with another tensor of the same side. */
  collisions: { a: number; b: number };
}

export interface AlignedSide {
  /** Characters stripped from the front of each name; the aligned key is `names[i].slice(strip[i])`. */
  strip: Uint32Array;
  keys: string[];
  /** Per rule (ALIGN_RULES order): names this rule stripped. */
  ruleCounts: number[];
  collisions: number;
}

export function isAlignRule(value: string): value is AlignRule {
  return (ALIGN_RULES as readonly string[]).includes(value);
}

/**
 * How many leading characters the enabled rules strip from `name`, repeatedly (`module._orig_mod.model.x` → `x`),
 * and a bit mask (bit i = ALIGN_RULES[i]) of the rules that applied. A rule never strips a name down to nothing.
 */
export function stripPrefixes(name: string, enabled: readonly AlignRule[]): { length: number; mask: number } {
  let position = 0;
  let mask = 0;
  let changed = true;
  while (changed) {
    changed = false;
    for (let r = 0; r < ALIGN_RULES.length; r++) {
      const rule = ALIGN_RULES[r];
      if (!enabled.includes(rule)) {
        continue;
      }
      if (name.startsWith(rule, position) && position + rule.length < name.length) {
        position += rule.length;
        mask |= 1 << r;
        changed = true;
        break;
      }
    }
  }
  return { length: position, mask };
}

/** The aligned key of a single name (no collision handling: use alignSide for a whole file). */
export function alignKey(name: string, enabled: readonly AlignRule[] = DEFAULT_ALIGN_RULES): string {
  return name.slice(stripPrefixes(name, enabled).length);
}

export function alignSide(names: readonly string[], enabled: readonly AlignRule[]): AlignedSide {
  const count = names.length;
  const strip = new Uint32Array(count);
  const masks = new Uint8Array(count);
  const keys = new Array<string>(count);
  if (enabled.length > 0) {
    for (let i = 0; i < count; i++) {
      const { length, mask } = stripPrefixes(names[i], enabled);
      strip[i] = length;
      masks[i] = mask;
      keys[i] = length === 0 ? names[i] : names[i].slice(length);
    }
  } else {
    for (let i = 0; i < count; i++) {
      keys[i] = names[i];
    }
  }

  // A stripped key never starts with an enabled prefix, while a reverted name always does, so one revert pass
  // settles every collision (what remains are duplicate names in the header itself).
  let collisions = 0;
  if (enabled.length > 0) {
    const firstRow = new Map<string, number>();
    const colliding = new Uint8Array(count);
    let any = false;
    for (let i = 0; i < count; i++) {
      const previous = firstRow.get(keys[i]);
      if (previous === undefined) {
        firstRow.set(keys[i], i);
      } else {
        colliding[previous] = 1;
        colliding[i] = 1;
        any = true;
      }
    }
    if (any) {
      for (let i = 0; i < count; i++) {
        if (colliding[i] && strip[i] > 0) {
          strip[i] = 0;
          masks[i] = 0;
          keys[i] = names[i];
          collisions++;
        }
      }
    }
  }

  const ruleCounts = ALIGN_RULES.map(() => 0);
  for (let i = 0; i < count; i++) {
    const mask = masks[i];
    if (mask !== 0) {
      for (let r = 0; r < ALIGN_RULES.length; r++) {
        if (mask & (1 << r)) {
          ruleCounts[r]++;
        }
      }
    }
  }
  return { strip, keys, ruleCounts, collisions };
}

export function alignmentSummary(a: AlignedSide, b: AlignedSide, enabled: readonly AlignRule[]): AlignmentSummary {
  return {
    rules: ALIGN_RULES.map((rule, r) => ({
      rule,
      enabled: enabled.includes(rule),
      a: a.ruleCounts[r],
      b: b.ruleCounts[r],
    })),
    collisions: { a: a.collisions, b: b.collisions },
  };
}
