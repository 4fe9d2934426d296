/**
 * Module paths written with underscores for dots: kohya sd-scripts' LoRA modules
 * (`lora_unet_down_blocks_0_attentions_1_proj_in.lora_down.weight`) and LyCORIS's own networks (`lycoris_…`). The
 * module tree splits names at dots, so each such module would be a top-level node of its own (350 of them in an SD
 * 1.5 LoRA). For the tree only, a module part is cut after its prefix and on both sides of each all-digit token
 * (`lora_unet.down_blocks.0.attentions.1.proj_in`). The cut writes `.` in place of `_` and moves no character, so the
 * tree can write its node patterns with the file's own separators (`lora_unet_down_blocks_{0-2}_`) and the table's
 * filter matches the names as stored. Words between digits stay one segment (`attn1_to_k`): the underscores inside
 * them are ambiguous (`to_k` is one module, `mlp_fc1` two).
 */
import { MAX_UNDERSCORE_PATH_ROWS } from './analysis-limits';
import { RE_KOHYA_PREFIX, RE_LYCORIS_PREFIX } from './lora-markers';
import type { NameShapes } from './tensor-index';
import { isIndexDigits } from './tensor-name-shapes';

/** Whether a name (or a module-tree pattern) is a module path written with underscores. */
export function isUnderscorePath(name: string): boolean {
  return RE_KOHYA_PREFIX.test(name) || RE_LYCORIS_PREFIX.test(name);
}

/** The tree path of one underscore-path name: its module part cut as the file comment says, the rest as it is. */
export function underscorePathName(name: string): string {
  const prefix = (RE_KOHYA_PREFIX.exec(name) ?? RE_LYCORIS_PREFIX.exec(name))?.[0];
  if (prefix === undefined) {
    return name;
  }
  const dot = name.indexOf('.');
  const end = dot < 0 ? name.length : dot;
  const chars = name.split('');
  chars[prefix.length - 1] = '.';
  // Each underscore of the module part after the prefix, with the token before it (from tokenStart).
  let tokenStart = prefix.length;
  let previousIsDigits = false;
  for (let i = prefix.length; i <= end; i++) {
    if (i < end && name.charCodeAt(i) !== 95) {
      continue;
    }
    const digits = isIndexDigits(name, tokenStart, i);
    if (digits || previousIsDigits) {
      // The underscore before this token (none before the first: that one is the prefix's).
      if (tokenStart > prefix.length) {
        chars[tokenStart - 1] = '.';
      }
    }
    previousIsDigits = digits;
    tokenStart = i + 1;
  }
  return chars.join('');
}

/**
 * The tree paths of a header's names when any is an underscore path, else null. Null too when two names would share
 * a path (a file mixing both spellings of one module) and past MAX_UNDERSCORE_PATH_ROWS: the tree then splits at
 * dots only, as for any other file.
 */
export function underscorePathNames(names: readonly string[], shapes: NameShapes): string[] | null {
  if (names.length > MAX_UNDERSCORE_PATH_ROWS || !shapes.text.some(isUnderscorePath)) {
    return null;
  }
  const paths = names.map(underscorePathName);
  return new Set(paths).size === paths.length ? paths : null;
}
