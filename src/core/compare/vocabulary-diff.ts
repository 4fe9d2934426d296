/**
 * Two tokenizers compared token by token: each id's text on both sides, and BPE's merges rank by rank. The question
 * it answers is whether a GGUF encodes as the tokenizer.json it was converted from (or a fine-tune's vocabulary as
 * its base's): a token that moved, one a conversion dropped, or merges in another order give other ids for the same
 * text, which no header count shows.
 *
 * llama.cpp's converter (convert_hf_to_gguf.py) writes some tokens another way on purpose, and those are counted
 * apart rather than as changes: an id the tokenizer leaves empty, or one past its last up to the embedding's rows,
 * becomes `[PAD<id>]`; a user-defined added token gets `▁` back as a space; and a WordPiece vocabulary is written
 * with a `▁` before each word-initial token and without the `##` of a continuation (its `bert` tokenizer's
 * spelling). Pure; the lists come from the worker (core/formats' tokenList, vocabulary.ts' tokenListOfVocabulary).
 */
import type { TokenList } from '../analysis/tokenizer/tokenizer-types';
import { MAX_TOKENS_LISTED_PER_SIDE } from '../limits';

export interface VocabularySide {
  origin: TokenList['origin'];
  model: string | null;
  /** Ids holding a token. */
  tokens: number;
  merges: number | null;
  /** A GGUF's tokenizer.ggml.pre (null when it names none); absent for a tokenizer.json. */
  pre?: string | null;
}

export interface TokenChange {
  id: number;
  a: string;
  b: string;
}

export interface LoneToken {
  id: number;
  text: string;
}

/** The first of a list, and how many there were before it was capped at MAX_TOKENS_LISTED_PER_SIDE. */
export interface Listed<T> {
  count: number;
  first: T[];
}

export interface MergesDiff {
  /** Ranks 0 to min(a, b) − 1 holding another merge on each side (BPE applies merges by rank). */
  reranked: number;
  /** Merges one side has and the other has at no rank. */
  onlyInA: number;
  onlyInB: number;
  /** The lowest rank that differs (a rank one side lacks counts), with each side's merge there; null: none differs. */
  first: { rank: number; a: string | null; b: string | null } | null;
}

export interface VocabularyDiff {
  a: VocabularySide;
  b: VocabularySide;
  /** Ids whose token is the same text on both sides. */
  same: number;
  /** Ids whose token llama.cpp's converter writes another way on purpose (the module comment). */
  respelled: number;
  /** Ids a GGUF fills with `[PAD<id>]` where the other side has no token. */
  padded: number;
  changed: Listed<TokenChange>;
  /** Ids only one side has a token for. */
  onlyInA: Listed<LoneToken>;
  onlyInB: Listed<LoneToken>;
  /** null when either side keeps no merges (a SentencePiece GGUF keeps scores instead). */
  merges: MergesDiff | null;
  /** Two GGUFs naming other pre-tokenizers: llama.cpp splits the same text otherwise before BPE. */
  preDiffers: boolean;
  /**
   * Every token the same or written as the converter writes it, the merges (when both keep them) in one order, and
   * (two GGUFs) the same pre-tokenizer.
   */
  identical: boolean;
}

export function diffVocabularies(a: TokenList, b: TokenList): VocabularyDiff {
  const spelling = converterSpelling(a, b);
  const changed: TokenChange[] = [];
  const onlyInA: LoneToken[] = [];
  const onlyInB: LoneToken[] = [];
  let changedCount = 0;
  let onlyACount = 0;
  let onlyBCount = 0;
  let same = 0;
  let respelled = 0;
  let padded = 0;
  let i = 0;
  let j = 0;
  while (i < a.ids.length || j < b.ids.length) {
    const idA = i < a.ids.length ? a.ids[i] : Number.POSITIVE_INFINITY;
    const idB = j < b.ids.length ? b.ids[j] : Number.POSITIVE_INFINITY;
    if (idA === idB) {
      const textA = a.texts[i++];
      const textB = b.texts[j++];
      if (textA === textB) {
        same++;
      } else if (spelling(textA, textB)) {
        respelled++;
      } else if (changedCount++ < MAX_TOKENS_LISTED_PER_SIDE) {
        changed.push({ id: idA, a: textA, b: textB });
      }
    } else if (idA < idB) {
      const text = a.texts[i++];
      if (a.origin === 'gguf' && isPadding(idA, text)) {
        padded++;
      } else if (onlyACount++ < MAX_TOKENS_LISTED_PER_SIDE) {
        onlyInA.push({ id: idA, text });
      }
    } else {
      const text = b.texts[j++];
      if (b.origin === 'gguf' && isPadding(idB, text)) {
        padded++;
      } else if (onlyBCount++ < MAX_TOKENS_LISTED_PER_SIDE) {
        onlyInB.push({ id: idB, text });
      }
    }
  }
  const merges = a.merges && b.merges ? diffMerges(a.merges, b.merges) : null;
  const preDiffers = a.origin === 'gguf' && b.origin === 'gguf' && (a.pre ?? null) !== (b.pre ?? null);
  return {
    a: sideOf(a),
    b: sideOf(b),
    same,
    respelled,
    padded,
    changed: { count: changedCount, first: changed },
    onlyInA: { count: onlyACount, first: onlyInA },
    onlyInB: { count: onlyBCount, first: onlyInB },
    merges,
    preDiffers,
    identical:
      changedCount + onlyACount + onlyBCount === 0 && (merges === null || merges.first === null) && !preDiffers,
  };
}

function sideOf(list: TokenList): VocabularySide {
  return {
    origin: list.origin,
    model: list.model,
    tokens: list.ids.length,
    merges: list.merges?.length ?? null,
    ...(list.origin === 'gguf' && { pre: list.pre ?? null }),
  };
}

/** What convert_hf_to_gguf.py writes for an id its tokenizer has no token at. */
function isPadding(id: number, text: string): boolean {
  return text === `[PAD${id}]`;
}

const SENTENCEPIECE_SPACE = '\u2581';

/**
 * Whether a GGUF's token is the other side's as llama.cpp's converter writes it, when one side is a GGUF and the
 * other a tokenizer.json; otherwise no spelling but the same text counts. The arguments are A's text, then B's.
 */
function converterSpelling(a: TokenList, b: TokenList): (textA: string, textB: string) => boolean {
  const ggufSide =
    a.origin === 'gguf' && b.origin !== 'gguf' ? 'a' : b.origin === 'gguf' && a.origin !== 'gguf' ? 'b' : null;
  if (ggufSide === null) {
    return () => false;
  }
  const wordPiece = (ggufSide === 'a' ? a : b).model === 'bert';
  return (textA, textB) => {
    const [gguf, json] = ggufSide === 'a' ? [textA, textB] : [textB, textA];
    if (json.includes(SENTENCEPIECE_SPACE) && gguf === json.replaceAll(SENTENCEPIECE_SPACE, ' ')) {
      return true;
    }
    return wordPiece && (json.startsWith('##') ? gguf === json.slice(2) : gguf === SENTENCEPIECE_SPACE + json);
  };
}

function diffMerges(a: readonly string[], b: readonly string[]): MergesDiff {
  let reranked = 0;
  let firstRank = -1;
  const shorter = Math.min(a.length, b.length);
  for (let rank = 0; rank < shorter; rank++) {
    if (a[rank] !== b[rank]) {
      reranked++;
      if (firstRank < 0) {
        firstRank = rank;
      }
    }
  }
  if (firstRank < 0 && a.length !== b.length) {
    firstRank = shorter;
  }
  let onlyInA = 0;
  let onlyInB = 0;
  if (firstRank >= 0) {
    const inA = new Set(a);
    const inB = new Set(b);
    onlyInA = a.reduce((count, merge) => count + (inB.has(merge) ? 0 : 1), 0);
    onlyInB = b.reduce((count, merge) => count + (inA.has(merge) ? 0 : 1), 0);
  }
  return {
    reranked,
    onlyInA,
    onlyInB,
    first: firstRank < 0 ? null : { rank: firstRank, a: a[firstRank] ?? null, b: b[firstRank] ?? null },
  };
}
