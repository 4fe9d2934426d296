/**
 * A name that fits its cell without hiding what tells rows apart. Inside a VirtualTable the name is cut to the
 * column's width in characters (name-elision.ts `fitName`: shared text first, numbers last), with the text the
 * visible rows share as context; elsewhere the head shrinks with an ellipsis while the tail stays. Either way the
 * whole name is the tooltip and what a screen reader reads. Hostile-length names are shortened first (core/limits
 * MAX_NAME_DISPLAY_CHARS).
 */
import { createContext, useContext } from 'react';
import { MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import { shortenForDisplay } from '../../lib/display-text';
import { fitName, splitForMiddleElision } from './name-elision';

export interface NameFit {
  /** Characters the name column holds; null: unknown, let CSS cut the head. */
  budget: number | null;
  /** Pieces every visible name has (name-elision.ts `sharedPieces`): cut first. */
  shared: ReadonlySet<string>;
}

export const NameFitContext = createContext<NameFit>({ budget: null, shared: new Set() });

export function ElidedName({ name, title }: { name: string; title?: string }) {
  const { budget, shared } = useContext(NameFitContext);
  const whole = shortenForDisplay(name, MAX_NAME_DISPLAY_CHARS);
  const shown = budget === null ? whole : fitName(whole, budget, shared);
  // Wide glyphs (CJK, emoji) can still overflow a character budget: the head then shrinks, the tail stays.
  const { head, tail } = splitForMiddleElision(shown);
  const cut = shown !== whole;
  return (
    <span className="elided" title={title ?? whole}>
      <bdi className="elided-head" aria-hidden={cut || undefined}>
        {head}
      </bdi>
      {tail && (
        <bdi className="elided-tail" aria-hidden={cut || undefined}>
          {tail}
        </bdi>
      )}
      {cut && <span className="visually-hidden">{whole}</span>}
    </span>
  );
}
