/**
 * A text encoded as transformers' `tokenizer(text)` encodes it (add_special_tokens=True): tokenizer.json and
 * tokenizer_config.json through Hugging Face's tokenizers.js, the JavaScript port of the library that wrote them.
 * Its patterns (a Split pre-tokenizer's regex) come from the file and run as JavaScript regular expressions, so a
 * hostile one can backtrack for ever: callers run this in a worker they can terminate (worker/text-encoder.ts).
 */
import { withLibraryAddedIds } from './vocabulary';
import { llamaTokenizerJson } from './llama-tokenizer-json';
import { llamaPreTokenizersAlike, type PreTokenizerAlike } from './pre-tokenizer-match';
import type { TokenList } from './tokenizer-types';
import { Tokenizer } from '@huggingface/tokenizers';

/** Characters one encode takes: a long prompt; past it the text is cut, and the answer says so. */
export const MAX_ENCODE_TEXT_CHARS = 100_000;

export interface EncodedText {
  ids: number[];
  /** Each token as the vocabulary stores it, and the text it stands for on its own (decoded alone). */
  tokens: string[];
  pieces: string[];
  /** Tokens the post-processor put around the text (BOS, [CLS] … [SEP]). */
  addedBySpecial: number;
  /** Characters (code points, as Python's len counts them) encoded: the text, or its first MAX_ENCODE_TEXT_CHARS units. */
  chars: number;
  cut: boolean;
  /**
   * Characters the tokens do not spell back, dropped because no token holds their bytes (a byte-level BPE whose
   * vocabulary lacks some bytes: llama.cpp drops them without a word); counted only where that can happen.
   */
  dropped?: number;
  /** For a tokenizer.json's byte-level BPE: llama.cpp's pre-tokenizers that cut the probe texts as it does. */
  llamaPre?: PreTokenizerAlike[] | null;
}

/** What "Encode a text" answers: the encoding, or why there is none (a bad file, a pattern stopped past its time). */
export type EncodeAnswer = { result: EncodedText; error: null } | { result: null; error: string };

/** tokenizer.json and tokenizer_config.json made ready to encode; throws what the library throws on a bad file. */
export function loadTokenizer(tokenizerJson: unknown, tokenizerConfig: unknown): Tokenizer {
  // tokenizers.js takes each added token's declared id; the Rust library (transformers' fast tokenizer) does not.
  return new Tokenizer(withLibraryAddedIds(tokenizerJson) as object, (tokenizerConfig ?? {}) as object);
}

/**
 * What "Encode a text" builds from: a tokenizer.json's text, or a file's own token list (a GGUF's), made the
 * tokenizer.json its runtime amounts to (llama-tokenizer-json.ts) where it is built, in the encoder's worker.
 */
export type TokenizerSource = { json: string } | { list: TokenList };

/** A tokenizer ready to encode, with what every encoding of it carries. */
export interface TextTokenizer {
  tokenizer: Tokenizer;
  /** Whether a text can lose characters to it: a GGUF's byte-level BPE (llama.cpp drops unheld bytes). */
  countDropped: boolean;
  /** A tokenizer.json's byte-level BPE: llama.cpp's pre-tokenizers that cut text alike (null: not such a BPE). */
  llamaPre?: PreTokenizerAlike[] | null;
}

export function tokenizerFrom(source: TokenizerSource, tokenizerConfig: unknown): TextTokenizer {
  if ('json' in source) {
    const json: unknown = JSON.parse(source.json);
    const tokenizer = loadTokenizer(json, tokenizerConfig);
    return { tokenizer, countDropped: false, llamaPre: llamaPreTokenizersAlike(tokenizer, json) };
  }
  const built = llamaTokenizerJson(source.list);
  if (built.error !== null) {
    throw new Error(built.error);
  }
  return { tokenizer: loadTokenizer(built.json, tokenizerConfig), countDropped: source.list.model === 'gpt2' };
}

/** encodeWith, with what the tokenizer's every encoding carries. */
export function encodeWithTokenizer(textTokenizer: TextTokenizer, text: string): EncodedText {
  const encoded = encodeWith(textTokenizer.tokenizer, text, textTokenizer.countDropped);
  return textTokenizer.llamaPre === undefined ? encoded : { ...encoded, llamaPre: textTokenizer.llamaPre };
}

/** Tokens the post-processor puts around any text: those of the empty text, counted once per tokenizer. */
const around = new WeakMap<Tokenizer, number>();

function tokensAround(tokenizer: Tokenizer): number {
  let count = around.get(tokenizer);
  if (count === undefined) {
    // A template's special tokens do not depend on the text, so the empty text carries exactly them: one encode of
    // nothing per tokenizer instead of a second encode of every text without them.
    count = tokenizer.encode('').ids.length;
    around.set(tokenizer, count);
  }
  return count;
}

export function encodeWith(tokenizer: Tokenizer, text: string, countDropped = false): EncodedText {
  const cut = text.length > MAX_ENCODE_TEXT_CHARS;
  const input = cut ? text.slice(0, MAX_ENCODE_TEXT_CHARS) : text;
  const encoded = tokenizer.encode(input);
  const missing = encoded.ids.findIndex((id) => !Number.isInteger(id));
  if (missing >= 0) {
    // tokenizers.js gives no id for a token its vocabulary lacks (an unknown token the file names but never lists).
    throw new Error(`the token ${JSON.stringify(encoded.tokens[missing])} has no id in the vocabulary`);
  }
  const chars = [...input].length;
  const result: EncodedText = {
    ids: encoded.ids,
    tokens: encoded.tokens,
    pieces: encoded.ids.map((id) => tokenizer.decode([id], { skip_special_tokens: false })),
    addedBySpecial: tokensAround(tokenizer),
    chars,
    cut,
  };
  if (countDropped) {
    // A byte-level BPE decodes back to exactly its text, but for the bytes no token held.
    const plain = tokenizer.encode(input, { add_special_tokens: false }).ids;
    const spelled = plain.length === 0 ? '' : tokenizer.decode(plain, { skip_special_tokens: false });
    result.dropped = Math.max(0, chars - [...spelled].length);
  }
  return result;
}
