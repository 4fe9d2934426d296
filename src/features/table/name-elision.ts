/**
 * Middle elision for tensor names. Names differ at their end (`q_a_proj.weight` vs `q_a_proj.weight_scale_inv`) and
 * at their layer number near the start, so a narrow cell keeps both ends and drops the middle: the head shrinks
 * with an ellipsis, the tail (a whole trailing segment or two) stays. CSS cannot cut in the middle by itself.
 */
import { isLowSurrogate } from '../../lib/display-text';

/** The shortest tail worth keeping: one full projection name plus its parameter (`q_a_proj.weight_scale_inv`). */
export const MIN_TAIL_CHARS = 24;
/** A longer tail would crowd out the head (layer numbers) in a 200 px column. */
export const MAX_TAIL_CHARS = 40;

/** The shortest tail that starts right after one of `separators`, is at least MIN and at most MAX long. */
function tailAfter(name: string, separators: string): number | null {
  for (let start = name.length - MIN_TAIL_CHARS; start > 0 && name.length - start <= MAX_TAIL_CHARS; start--) {
    if (separators.includes(name[start - 1])) {
      return start;
    }
  }
  return null;
}

/**
 * Splits `name` into the head (elided when space is short) and the tail (kept). Prefers a cut after a `.`, then after
 * `_`, `/`, `-` or `:` (kohya names join everything with `_`), else the last MIN_TAIL_CHARS characters.
 * Short names come back whole as the head.
 */
export function splitForMiddleElision(name: string): { head: string; tail: string } {
  if (name.length <= MIN_TAIL_CHARS + 4) {
    return { head: name, tail: '' };
  }
  let start = tailAfter(name, '.') ?? tailAfter(name, '_/-:') ?? name.length - MIN_TAIL_CHARS;
  if (isLowSurrogate(name.charCodeAt(start))) {
    start--;
  }
  return { head: name.slice(0, start), tail: name.slice(start) };
}

/**
 * `model-00007-of-00161.safetensors` → `00007/00161`: the one part of a shard file name that differs between
 * shards. Other names come back unchanged.
 */
export function shardLabel(file: string): string {
  const match = /(\d+)-of-(\d+)(?:\.[^./]*)?$/.exec(file);
  return match ? `${match[1]}/${match[2]}` : file;
}
