/** Hostile text on screen: bounded in length, invisible characters shown; exports always carry the full text. */
import { revealInvisible } from '../core/invisible-chars';

function cutAt(text: string, max: number): string {
  let cut = Math.max(0, max - 1);
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) {
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
