/** Shortening hostile-length text for the screen; exports always carry the full text. */

/**
 * `text` itself when it has at most `max` UTF-16 units, else its first `max - 1` units and "…", never splitting a
 * surrogate pair.
 */
export function shortenForDisplay(text: string, max: number): string {
  if (text.length <= max) {
    return text;
  }
  let cut = Math.max(0, max - 1);
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) {
    cut--;
  }
  return `${text.slice(0, cut)}…`;
}
