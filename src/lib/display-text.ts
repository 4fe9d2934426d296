/** Hostile text on screen: bounded in length, invisible characters shown; exports always carry the full text. */
import { revealInvisible } from '../core/invisible-chars';

function cutAt(text: string, max: number): string {
  let cut = Math.max(0, max - 1);
  if (isHighSurrogate(text.charCodeAt(cut - 1))) {
    cut--;
  }
  return `${text.slice(0, cut)}…`;
}

/**
 * `text` with bidi controls, zero-width and other invisible characters shown as `\uXXXX` escapes, and at most `max`
 * UTF-16 units: longer text keeps its first `max - 1` units and "…", never splitting a surrogate pair. Only the
 * first `max` units are examined, so a 100 MB string costs no more than a short one.
 */
export function shortenForDisplay(text: string, max: number): string {
  const head = text.length > max ? text.slice(0, max) : text;
  const shown = revealInvisible(head);
  if (shown.length <= max && head.length === text.length) {
    return shown;
  }
  return cutAt(shown, max);
}

/**
 * `text` with invisible characters shown (as in `shortenForDisplay`), at most `max` units; when it is longer the
 * middle gives way and both ends stay (`lora_unet_bl…_23_attn_to_q`), since the end is what tells similar names
 * apart. Only `max` units at each end are examined, so a 100 MB name costs no more than a short one.
 */
export function elideMiddle(text: string, max: number): string {
  const shown =
    text.length <= 2 * max
      ? revealInvisible(text)
      : revealInvisible(text.slice(0, max)) + revealInvisible(text.slice(-max));
  if (shown.length <= max) {
    return shown;
  }
  if (max < 3) {
    return cutAt(shown, max);
  }
  const tailLength = Math.ceil((max - 1) * 0.6);
  let headEnd = max - 1 - tailLength;
  let tailStart = shown.length - tailLength;
  // Never split a surrogate pair at either cut.
  if (isHighSurrogate(shown.charCodeAt(headEnd - 1))) {
    headEnd--;
  }
  if (isLowSurrogate(shown.charCodeAt(tailStart))) {
    tailStart++;
  }
  return `${shown.slice(0, headEnd)}…${shown.slice(tailStart)}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
