/** The Tokenizer tab's section of the report (tokenizer-summary.ts builds it). */
import type { EndOfTurn } from './end-of-turn';
import type { VocabularySummary } from './vocabulary';

export type SpecialTokenRole = 'bos' | 'eos' | 'pad' | 'unk';

/**
 * Every token of a tokenizer by id, as the token-by-token comparison reads it (core/compare/vocabulary-diff.ts): a
 * GGUF header's `tokenizer.ggml.tokens` and `.merges`, or a tokenizer.json's vocabulary, added tokens and merges.
 * Built in the worker on that comparison's click, never part of the report.
 */
export interface TokenList {
  origin: 'gguf' | 'tokenizer.json';
  /** The model as the file names it: GGUF's `tokenizer.ggml.model` (`gpt2`, `llama`, `bert`), tokenizer.json's type. */
  model: string | null;
  /** The ids that hold a token, ascending, and each one's token. */
  ids: ArrayLike<number>;
  texts: readonly string[];
  /** BPE merges as `left right` (a space inside a part written U+0120, as gguf-py writes it); null without merges. */
  merges: readonly string[] | null;
  /** A GGUF's `tokenizer.ggml.pre`, the pre-tokenizer llama.cpp splits text with before BPE (null: none named). */
  pre?: string | null;
  /** What encoding a text with the list needs beyond it (a GGUF's, for llama.cpp's tokenizer); absent for others. */
  encoding?: TokenListEncoding;
}

/** A token's kind, numbered as llama.cpp numbers `tokenizer.ggml.token_type` (0: undefined). */
export const TOKEN_KIND = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

export interface TokenListEncoding {
  /** Each id's kind (TOKEN_KIND); null when the file lists none. */
  kinds: Uint8Array | null;
  /** Each id's score (a SentencePiece vocabulary's log probability); null when the file lists none. */
  scores: Float32Array | null;
  /** Special ids the file names (null: not named). */
  bos: number | null;
  eos: number | null;
  unk: number | null;
  sep: number | null;
  /** Whether BOS is put before and EOS after every text, and a space before it (null: the file does not say). */
  addBos: boolean | null;
  addEos: boolean | null;
  addSpacePrefix: boolean | null;
  /** Whether runs of spaces become one and spaces around the text go (null: the file does not say). */
  removeExtraWhitespaces: boolean | null;
  /** Whether the file carries a SentencePiece normalizer (a precompiled character map, as T5's). */
  charsmap: boolean;
}

export interface SpecialToken {
  role: SpecialTokenRole;
  text: string;
  /** From added_tokens_decoder; null when the tokenizer config does not list the token there. */
  id: number | null;
}

export interface ChatTemplateEntry {
  /** `default` for the one apply_chat_template uses unless told otherwise; else its name (`tool_use`, `rag`). */
  name: string;
  source: string;
  /** The file it was read from. */
  file: string;
}

/** One token of added_tokens_decoder. */
export interface AddedToken {
  id: number;
  text: string;
  special: boolean;
}

export interface GenerationDefaults {
  file: string;
  /** What generate() stops at: eos_token_id, one id or several. */
  eosIds: number[];
  bosId: number | null;
  padId: number | null;
  /** Sampling and length defaults as written (temperature, top_p, top_k, max_new_tokens, …), in file order. */
  settings: { key: string; value: string }[];
}

export interface TokenizerSection {
  /**
   * `gguf`: a GGUF's own tokenizer in these terms (gguf-tokenizer.ts), for the comparison only; it has no class,
   * maximum length or generate() stop list. Absent for a transformers model's files.
   */
  source?: 'gguf';
  /** A GGUF's byte-level BPE's `tokenizer.ggml.pre` (null: none named); absent for any other tokenizer. */
  ggufPre?: string | null;
  /** The files read, in the order they were applied. */
  files: string[];
  tokenizerClass: string | null;
  /** null when absent or transformers' "no limit" sentinel (a number of 1e30 or more). */
  modelMaxLength: number | null;
  addBosToken: boolean | null;
  addEosToken: boolean | null;
  special: SpecialToken[];
  /** added_tokens_decoder (or added_tokens.json) in id order, at most MAX_ADDED_TOKENS_KEPT of them. */
  addedTokens: AddedToken[];
  /** How many added_tokens_decoder lists (addedTokens may hold fewer). */
  addedTokenCount: number;
  /** The highest id added_tokens_decoder gives, null when it gives none. */
  highestAddedId: number | null;
  /** Where the added tokens came from: tokenizer_config.json, or an older save's added_tokens.json; null: none. */
  addedTokensFile: string | null;
  /** Where the special tokens came from: tokenizer_config.json, or an older save's special_tokens_map.json. */
  specialTokensFile: string | null;
  /** The chat templates, the one apply_chat_template uses first. */
  templates: ChatTemplateEntry[];
  /**
   * A template tokenizer_config.json also carries but chat_template.jinja replaces (transformers 4.47 and later read
   * the file; older versions the inline one): null when there is no such pair, or they are the same.
   */
  shadowedTemplate: ChatTemplateEntry | null;
  generation: GenerationDefaults | null;
  /**
   * Where the default template ends the assistant's turn and whether generation stops there (end-of-turn.ts); null
   * when there is no template, it could not be rendered, or no known token follows the sample reply.
   */
  turnEnd: EndOfTurn | null;
  /** tokenizer.json summarized, once read (on a click); its every id stays in the worker. */
  vocabulary?: VocabularyFacts;
  /** Why tokenizer.json, asked for, was not summarized (missing, too large, not JSON, not a tokenizer.json). */
  vocabularyProblem?: string;
}

/** A tokenizer.json summary as the section and the report carry it. */
export type VocabularyFacts = Omit<
  VocabularySummary,
  'ids' | 'texts' | 'decoded' | 'source' | 'mergeEntries' | 'added' | 'moved'
>;
