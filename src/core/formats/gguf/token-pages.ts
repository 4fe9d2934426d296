/**
 * The token list of a GGUF header, read from the header bytes the worker keeps: a page at a time for the view, and
 * single ids for the summary. The list can hold hundreds of thousands of strings, so it is never decoded whole.
 */
import { stringDecoder } from '../../bytes/string-decoder';
import { TOKEN_KIND, type TokenList, type TokenListEncoding } from '../../analysis/tokenizer/tokenizer-types';
import type { GgufRawHeader } from './header-parser';
import type { GgufTokenizerSummary } from './gguf-types';
import { MAX_TOKEN_PAGE } from './gguf-limits';

/**
 * Walks `count` strings from `start`, calling `visit` with each index, a decoder for its text (strings only the
 * caller wants are decoded) and where its bytes lie in `head`. The parser already checked every length, so the walk
 * stays inside `head`.
 */
export function readStrings(
  head: Uint8Array,
  layout: Pick<GgufRawHeader, 'littleEndian' | 'version'>,
  start: number,
  count: number,
  visit: (index: number, text: () => string, from: number, to: number) => boolean | void,
): void {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const lengthBytes = layout.version === 1 ? 4 : 8;
  let at = start;
  for (let index = 0; index < count; index++) {
    if (at + lengthBytes > head.length) {
      return;
    }
    // A u64 read as two u32 halves: getBigUint64 allocates a BigInt per string, a third of the walk's time.
    const length = lengthBytes === 4 ? view.getUint32(at, layout.littleEndian) : u64At(view, at, layout.littleEndian);
    const from = at + lengthBytes;
    at = from + length;
    if (at > head.length) {
      return;
    }
    if (visit(index, () => stringDecoder.decode(head.subarray(from, from + length)), from, at) === false) {
      return;
    }
  }
}

function u64At(view: DataView, at: number, littleEndian: boolean): number {
  const low = view.getUint32(littleEndian ? at : at + 4, littleEndian);
  const high = view.getUint32(littleEndian ? at + 4 : at, littleEndian);
  return high * 2 ** 32 + low;
}

/** Tokens `from` to `from + count` (capped at MAX_TOKEN_PAGE) of the list at `list.start`. */
export function tokenPage(
  head: Uint8Array,
  layout: Pick<GgufRawHeader, 'littleEndian' | 'version'>,
  list: { start: number; count: number },
  from: number,
  count: number,
): string[] {
  const last = Math.min(list.count, from + Math.min(count, MAX_TOKEN_PAGE));
  const page: string[] = [];
  readStrings(head, layout, list.start, last, (index, text) => {
    if (index >= from) {
      page.push(text());
    }
  });
  return page;
}

/** The whole token list and merges, for the token-by-token comparison (a click, so decoding them all is fine). */
export function ggufTokenList(
  head: Uint8Array,
  layout: Pick<GgufRawHeader, 'littleEndian' | 'version'>,
  tokenizer: GgufTokenizerSummary,
): TokenList {
  const all = (list: { start: number; count: number }) => {
    const texts: string[] = [];
    readStrings(head, layout, list.start, list.count, (_index, text) => {
      texts.push(text());
    });
    return texts;
  };
  const texts = all(tokenizer.tokens);
  const ids = new Float64Array(texts.length);
  for (let id = 0; id < ids.length; id++) {
    ids[id] = id;
  }
  return {
    origin: 'gguf',
    model: tokenizer.model,
    ids,
    texts,
    merges: tokenizer.mergeList && all(tokenizer.mergeList),
    pre: tokenizer.pre,
    encoding: encodingOf(head, layout, tokenizer),
  };
}

/** The token types, scores, special ids and flags llama.cpp's tokenizer reads beside the list. */
function encodingOf(
  head: Uint8Array,
  layout: Pick<GgufRawHeader, 'littleEndian'>,
  tokenizer: GgufTokenizerSummary,
): TokenListEncoding {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  let kinds: Uint8Array | null = null;
  if (tokenizer.typeList) {
    kinds = new Uint8Array(tokenizer.typeList.count);
    for (let id = 0; id < kinds.length; id++) {
      const type = view.getInt32(tokenizer.typeList.start + 4 * id, layout.littleEndian);
      // A type past the known ones reads as undefined (0), as llama.cpp gives it no attribute.
      kinds[id] = type > 0 && type <= TOKEN_KIND.byte ? type : 0;
    }
  }
  let scores: Float32Array | null = null;
  if (tokenizer.scoreList) {
    scores = new Float32Array(tokenizer.scoreList.count);
    for (let id = 0; id < scores.length; id++) {
      scores[id] = view.getFloat32(tokenizer.scoreList.start + 4 * id, layout.littleEndian);
    }
  }
  const idOf = (role: string) => tokenizer.special.find((token) => token.role === role)?.id ?? null;
  return {
    kinds,
    scores,
    bos: idOf('bos'),
    eos: idOf('eos'),
    unk: idOf('unknown'),
    sep: idOf('sep'),
    addBos: tokenizer.addBos,
    addEos: tokenizer.addEos,
    addSpacePrefix: tokenizer.addSpacePrefix,
    removeExtraWhitespaces: tokenizer.removeExtraWhitespaces,
    charsmap: tokenizer.charsmap,
  };
}
