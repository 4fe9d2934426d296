/**
 * A name that fits any cell: the head shrinks with an ellipsis while the tail (what tells siblings apart) stays, and
 * the whole name is the tooltip. Hostile-length names are shortened first (core/limits MAX_NAME_DISPLAY_CHARS).
 */
import { MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import { shortenForDisplay } from '../../lib/display-text';
import { splitForMiddleElision } from './name-elision';

export function ElidedName({ name, title }: { name: string; title?: string }) {
  const shown = shortenForDisplay(name, MAX_NAME_DISPLAY_CHARS);
  const { head, tail } = splitForMiddleElision(shown);
  return (
    <span className="elided" title={title ?? shown}>
      <bdi className="elided-head">{head}</bdi>
      {tail && <bdi className="elided-tail">{tail}</bdi>}
    </span>
  );
}
