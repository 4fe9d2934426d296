/**
 * Fitting tensor names into a narrow column without hiding what tells rows apart. Names of one model share most of
 * their text (`model.layers.`, `.mlp.experts.`) and differ in a few places: a layer or expert number, and the end
 * (`q_a_proj.weight` vs `q_a_proj.weight_scale_inv`). `fitName` cuts, in this order: text every visible row shares,
 * other module path text, the start of the tail, and only then a number; the last dot segment always stays. The
 * table's font is monospace, so a budget in characters is a budget in pixels.
 */
import { isLowSurrogate } from '../../lib/display-text';

/** The shortest tail worth keeping: one full projection name plus its parameter (`q_a_proj.weight_scale_inv`). */
export const MIN_TAIL_CHARS = 24;
/** A longer tail would crowd out the head (layer numbers) in a 200 px column. */
export const MAX_TAIL_CHARS = 40;
/** What stands for cut text: one character wide in a monospace font. */
export const ELLIPSIS = '…';

/** Characters after which a name may be cut: module paths use `.` and `/`, kohya names `_`, some `-` and `:`. */
const SEPARATORS = '._/-:';

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

/** A run of a name up to and including a separator; the last piece has none. */
interface NamePiece {
  text: string;
  /** A whole run of digits between separators (`12.`, `0_`): a layer, block or expert number. */
  number: boolean;
}

/** `model.layers.12.mlp` → `model.`, `layers.`, `12.`, `mlp`. */
export function namePieces(name: string): NamePiece[] {
  const pieces: NamePiece[] = [];
  let start = 0;
  for (let i = 0; i <= name.length; i++) {
    if (i === name.length || SEPARATORS.includes(name[i])) {
      const end = Math.min(i + 1, name.length);
      if (end > start) {
        const text = name.slice(start, end);
        pieces.push({ text, number: /^\d+[._/:-]?$/.test(text) });
      }
      start = end;
    }
  }
  return pieces;
}

/**
 * The non-number pieces every one of `names` has (a common prefix, a repeated module path): the first text to cut.
 * One name alone shares nothing with anything.
 */
export function sharedPieces(names: readonly string[]): ReadonlySet<string> {
  if (names.length < 2) {
    return new Set();
  }
  let shared = new Set(
    namePieces(names[0])
      .filter((piece) => !piece.number)
      .map((piece) => piece.text),
  );
  for (let i = 1; i < names.length && shared.size > 0; i++) {
    const own = new Set(namePieces(names[i]).map((piece) => piece.text));
    shared = new Set([...shared].filter((text) => own.has(text)));
  }
  return shared;
}

/** Cut order: lower first. The last dot segment is never cut (only a last-resort hard cut shortens it). */
const enum Rank {
  Shared = 0,
  Path = 1,
  Tail = 2,
  Number = 3,
  Kept = 4,
}

/** Index of the first piece of the last dot segment (`weight_scale_inv`), and of the segment before it. */
function segmentStarts(pieces: readonly NamePiece[]): { last: number; tail: number } {
  const dots: number[] = [];
  pieces.forEach((piece, i) => {
    if (piece.text.endsWith('.') && i < pieces.length - 1) {
      dots.push(i + 1);
    }
  });
  const last = dots.at(-1) ?? Math.max(0, pieces.length - 1);
  const tail = dots.at(-2) ?? (dots.length === 1 ? 0 : last);
  return { last, tail };
}

function rankOf(piece: NamePiece, i: number, starts: { last: number; tail: number }, shared: ReadonlySet<string>) {
  if (i >= starts.last) {
    return Rank.Kept;
  }
  if (piece.number) {
    return Rank.Number;
  }
  if (i >= starts.tail) {
    return Rank.Tail;
  }
  return shared.has(piece.text) ? Rank.Shared : Rank.Path;
}

/**
 * How much shorter the shown name gets when piece `i` is cut as well: its text goes, and the ellipsis runs around it
 * gain one (no neighbour cut), stay (one) or merge into one (both).
 */
function savedByCutting(pieces: readonly NamePiece[], cut: readonly boolean[], i: number): number {
  const before = i > 0 && cut[i - 1];
  const after = i < pieces.length - 1 && cut[i + 1];
  const runs = before && after ? -1 : before || after ? 0 : 1;
  return pieces[i].text.length - runs * ELLIPSIS.length;
}

/** The last `budget` characters behind an ellipsis, never half a surrogate pair. */
function hardCut(text: string, budget: number): string {
  let start = text.length - Math.max(0, budget - ELLIPSIS.length);
  if (isLowSurrogate(text.charCodeAt(start))) {
    start++;
  }
  return ELLIPSIS + text.slice(start);
}

/**
 * `name` in at most `budget` characters: whole when it fits, else with runs of pieces replaced by `…`, cut in rank
 * order (shared text, other module path text, the tail's start, numbers) and left to right within a rank.
 */
export function fitName(name: string, budget: number, shared: ReadonlySet<string> = new Set()): string {
  if (name.length <= budget) {
    return name;
  }
  const pieces = namePieces(name);
  const starts = segmentStarts(pieces);
  const ranks = pieces.map((piece, i) => rankOf(piece, i, starts, shared));
  const cut = pieces.map(() => false);
  let length = name.length;
  for (let rank = Rank.Shared; rank < Rank.Kept; rank++) {
    for (let i = 0; i < pieces.length; i++) {
      if (ranks[i] === rank) {
        length -= savedByCutting(pieces, cut, i);
        cut[i] = true;
        if (length <= budget) {
          return join(pieces, cut);
        }
      }
    }
  }
  return hardCut(join(pieces, cut), budget);
}

function join(pieces: readonly NamePiece[], cut: readonly boolean[]): string {
  let text = '';
  for (let i = 0; i < pieces.length; i++) {
    if (!cut[i]) {
      text += pieces[i].text;
    } else if (i === 0 || !cut[i - 1]) {
      text += ELLIPSIS;
    }
  }
  return text;
}

/**
 * `model-00007-of-00161.safetensors` → `00007/00161`: the one part of a shard file name that differs between
 * shards. Other names come back unchanged.
 */
export function shardLabel(file: string): string {
  const match = /(\d+)-of-(\d+)(?:\.[^./]*)?$/.exec(file);
  return match ? `${match[1]}/${match[2]}` : file;
}
