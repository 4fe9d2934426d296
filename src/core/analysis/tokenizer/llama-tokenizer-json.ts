/**
 * A GGUF's own tokenizer as a tokenizer.json, so "Encode a text" runs it in the same encoder as a tokenizer.json read
 * beside a model (encode.ts): the token list, merges, scores and token types llama.cpp reads
 * (`tokenizer.ggml.*`), set up the way llama.cpp's tokenizer uses them (src/llama-vocab.cpp):
 *
 * - `gpt2` (byte-level BPE): the text split by the pattern list of its `tokenizer.ggml.pre` (llama-pre-tokenizers.ts),
 *   each piece's UTF-8 bytes as GPT-2's byte alphabet, the merges by rank; some pre-tokenizers take a piece that is a
 *   whole token as it is (ignore_merges).
 * - `llama` (SentencePiece BPE): a space before the text unless `add_space_prefix` is false, spaces as U+2581, pieces
 *   merged by the score of what they make (the highest first), and a piece no token holds as its bytes' `<0xNN>`
 *   tokens. The score order becomes merge ranks: every token that two tokens make, ranked by its score.
 * - `t5` (SentencePiece Unigram): the most probable split by the pieces' scores (unigram() says how the text is
 *   prepared first).
 * - `bert` (WordPiece): what gguf-py respelled turned back (a word start's U+2581 dropped, a continuation's `##`
 *   put back), lower-cased, split at spaces and punctuation, then the longest token first.
 *
 * Control, user-defined and unknown tokens are matched in the text before anything else (llama.cpp's special-token partition
 * with parse_special, as llama-tokenize and the server's /tokenize run by default). BOS and EOS go around the text as
 * `tokenizer.ggml.add_bos_token`/`add_eos_token` say, else as llama.cpp defaults them per tokenizer. Pure.
 */
import { MAX_SCORE_MERGE_TOKEN_CHARS } from '../analysis-limits';
import { preTokenizerOf, type LlamaPreTokenizer } from './llama-pre-tokenizers';
import { TOKEN_KIND, type TokenList, type TokenListEncoding } from './tokenizer-types';

export type LlamaTokenizerJson = { json: Record<string, unknown>; error: null } | { json: null; error: string };

/** SentencePiece's meta symbol: a space in a token's text. */
const SPACE_MARK = '\u2581';

/** What a file that names no special id and sets no flag gives: llama.cpp's defaults everywhere. */
export const NO_ENCODING: TokenListEncoding = {
  kinds: null,
  scores: null,
  bos: null,
  eos: null,
  unk: null,
  sep: null,
  addBos: null,
  addEos: null,
  addSpacePrefix: null,
  removeExtraWhitespaces: null,
  charsmap: false,
};

/**
 * llama.cpp's defaults where the file is silent, per tokenizer.ggml.model (llama_vocab::impl::load): whether BOS and
 * EOS go around a text, and the special ids. A gpt2 tokenizer's pre-tokenizer may add BOS (llama3, tekken).
 */
const DEFAULTS: Readonly<Record<string, { addBos: boolean; addEos: boolean; bos: number; eos: number }>> = {
  llama: { addBos: true, addEos: false, bos: 1, eos: 2 },
  gpt2: { addBos: false, addEos: false, bos: 11, eos: 11 },
  // WordPiece always puts [CLS] (BOS) and [SEP] around a text; its flags are not read.
  bert: { addBos: true, addEos: true, bos: 101, eos: 102 },
  t5: { addBos: false, addEos: true, bos: 1, eos: 1 },
};

/** llama.cpp's default unknown token of a WordPiece ([UNK] in BERT's vocabulary) and of a Unigram (T5's <unk>). */
const BERT_UNK = 100;
const UNIGRAM_UNK = 2;

/**
 * Why a GGUF's tokenizer cannot be encoded as llama.cpp would (a model it does not cover, what the model needs
 * missing, an id past the list), or null: cheap, so the parser worker answers at once while the build runs in the
 * encoder's own worker.
 */
export function llamaTokenizerProblem(list: TokenList): string | null {
  const model = list.model ?? '';
  const encoding = list.encoding ?? NO_ENCODING;
  const defaults = DEFAULTS[model];
  if (defaults === undefined) {
    return (
      "Encode a text covers llama.cpp's gpt2 (BPE), llama (SentencePiece BPE), t5 (SentencePiece Unigram) and bert " +
      `(WordPiece) tokenizers; this GGUF's tokenizer.ggml.model is ${model === '' ? 'not set' : `"${model}"`}.`
    );
  }
  if (model === 'gpt2' && list.merges === null) {
    return 'This GGUF has no tokenizer.ggml.merges, which a gpt2 (BPE) tokenizer needs; llama.cpp refuses it too.';
  }
  if (model === 'gpt2' && preTokenizerOf(list.pre ?? null) === null) {
    return (
      `llama.cpp splits text by the pattern list of tokenizer.ggml.pre, and "${list.pre}" is not one this viewer ` +
      'knows (nor one llama.cpp knows, unless it is newer); the text cannot be encoded as it would.'
    );
  }
  if ((model === 'llama' || model === 't5') && encoding.scores === null) {
    return `This GGUF has no tokenizer.ggml.scores, by which a ${model} (SentencePiece) tokenizer chooses its pieces.`;
  }
  // A WordPiece or a Unigram puts its unknown token where no token covers the text; a SentencePiece BPE has bytes.
  const unk = encoding.unk ?? (model === 'bert' ? BERT_UNK : UNIGRAM_UNK);
  if ((model === 'bert' || model === 't5') && (unk < 0 || unk >= list.texts.length)) {
    return (
      `This GGUF's ${model === 'bert' ? 'WordPiece' : 'Unigram'} has no unknown token ` +
      `(tokenizer.ggml.unknown_token_id ${unk} is not a token of the list), which text no token covers becomes.`
    );
  }
  const { bos, eos } = aroundIds(list, model, defaults);
  for (const [id, role] of [
    [bos, 'BOS'],
    [eos, 'EOS'],
  ] as const) {
    if (id !== null && (id < 0 || id >= list.texts.length)) {
      return `The ${role} id ${id} is past the token list (${list.texts.length} tokens): llama.cpp refuses the file.`;
    }
  }
  return null;
}

export function llamaTokenizerJson(list: TokenList): LlamaTokenizerJson {
  const problem = llamaTokenizerProblem(list);
  if (problem !== null) {
    return { json: null, error: problem };
  }
  const model = list.model ?? '';
  const encoding = list.encoding ?? NO_ENCODING;
  const built =
    model === 'gpt2'
      ? byteLevelBpe(list)
      : model === 'llama'
        ? sentencePiece(list, encoding)
        : model === 't5'
          ? unigram(list, encoding)
          : wordPiece(list);
  const { bos, eos } = aroundIds(list, model, DEFAULTS[model]);
  return {
    json: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: addedTokens(list, encoding),
      ...built,
      post_processor: aroundText(list, bos, eos),
    },
    error: null,
  };
}

/** The ids put before and after every text: the file's flags, else llama.cpp's defaults for the model. */
function aroundIds(
  list: TokenList,
  model: string,
  defaults: (typeof DEFAULTS)[string],
): { bos: number | null; eos: number | null } {
  const encoding = list.encoding ?? NO_ENCODING;
  const bert = model === 'bert';
  const preAddsBos = model === 'gpt2' && preTokenizerOf(list.pre ?? null)?.addBos === true;
  const addBos = bert || (encoding.addBos ?? (defaults.addBos || preAddsBos));
  const addEos = bert || (encoding.addEos ?? defaults.addEos);
  // WordPiece's closing [SEP] is llama.cpp's separator id.
  const closing = (bert ? encoding.sep : encoding.eos) ?? defaults.eos;
  return { bos: addBos ? (encoding.bos ?? defaults.bos) : null, eos: addEos ? closing : null };
}

type Pipeline = Record<'normalizer' | 'pre_tokenizer' | 'model' | 'decoder', unknown>;

function byteLevelBpe(list: TokenList): Pipeline {
  const pre = preTokenizerOf(list.pre ?? null) as LlamaPreTokenizer;
  return {
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        ...pre.patterns.map((pattern) => ({
          type: 'Split',
          pattern: { Regex: pattern },
          behavior: 'Isolated',
          invert: false,
        })),
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: pre.ignoreMerges,
      vocab: vocabularyObject(list),
      merges: list.merges,
    },
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
  };
}

function sentencePiece(list: TokenList, encoding: TokenListEncoding): Pipeline {
  const spacePrefix = encoding.addSpacePrefix ?? true;
  // llama.cpp's SentencePiece default: <unk> is id 0.
  const unk = encoding.unk ?? 0;
  return {
    normalizer: {
      type: 'Sequence',
      normalizers: [
        ...(spacePrefix ? [{ type: 'Prepend', prepend: SPACE_MARK }] : []),
        { type: 'Replace', pattern: { String: ' ' }, content: SPACE_MARK },
      ],
    },
    pre_tokenizer: null,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: unk >= 0 && unk < list.texts.length ? spelledAt(list, unk) : null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      ignore_merges: false,
      vocab: vocabularyObject(list),
      merges: mergesByScore(list.texts, encoding.scores ?? new Float32Array(0), encoding.kinds),
    },
    // Each token shown alone keeps its space (llama.cpp's token_to_piece), so no Strip of the prefix space.
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: SPACE_MARK }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
      ],
    },
  };
}

/**
 * A SentencePiece Unigram (T5's) as llama.cpp's UGM tokenizer runs it: runs of spaces made one and the ends trimmed
 * when remove_extra_whitespaces says so, a space before the text when add_space_prefix does (llama.cpp's default for
 * t5 is none), spaces as U+2581, then the most probable split by the pieces' scores, a character no piece covers
 * the unknown token. A file's precompiled character map (T5's nmt_nfkc normalizer) is approximated by NFKC with
 * its space and control-character rules, as tokenizers.js runs a Precompiled normalizer; sentencepiece agrees on
 * the fixtures' full-width letters and digits, ligatures, circled digits and other spaces.
 */
function unigram(list: TokenList, encoding: TokenListEncoding): Pipeline {
  const scores = encoding.scores ?? new Float32Array(0);
  const kinds = encoding.kinds;
  return {
    normalizer: {
      type: 'Sequence',
      normalizers: [
        ...(encoding.charsmap ? [{ type: 'Precompiled', precompiled_charsmap: null }] : []),
        ...(encoding.removeExtraWhitespaces === true
          ? [
              { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' },
              { type: 'Replace', pattern: { Regex: '^ | $' }, content: '' },
            ]
          : []),
        ...(encoding.addSpacePrefix === true ? [{ type: 'Prepend', prepend: SPACE_MARK }] : []),
        { type: 'Replace', pattern: { String: ' ' }, content: SPACE_MARK },
      ],
    },
    pre_tokenizer: null,
    model: {
      type: 'Unigram',
      unk_id: encoding.unk ?? UNIGRAM_UNK,
      byte_fallback: false,
      // llama.cpp's lattice holds normal, user-defined and unused pieces: the others can never be chosen.
      vocab: list.texts.map((_, at) => {
        const kind = kinds?.[list.ids[at]] ?? TOKEN_KIND.normal;
        const chosen = kind === TOKEN_KIND.normal || kind === TOKEN_KIND.userDefined || kind === TOKEN_KIND.unused;
        return [spelledAt(list, at), chosen || kind === 0 ? (scores[list.ids[at]] ?? 0) : UNCHOSEN_SCORE];
      }),
    },
    decoder: { type: 'Replace', pattern: { String: SPACE_MARK }, content: ' ' },
  };
}

/** A score no split takes over the unknown token's (tokenizers.js puts that at the lowest score minus 10). */
const UNCHOSEN_SCORE = -1e9;

function wordPiece(list: TokenList): Pipeline {
  const encoding = list.encoding ?? NO_ENCODING;
  const kinds = encoding.kinds;
  const vocab: Record<string, number> = Object.create(null) as Record<string, number>;
  for (let at = 0; at < list.texts.length; at++) {
    const id = list.ids[at];
    const text = spelledAt(list, at);
    const kind = kinds?.[id] ?? TOKEN_KIND.normal;
    // gguf-py writes a word start after U+2581 and a continuation without its ##; the tokens matched whole
    // (control, unknown, user-defined) as they are, so each stays at its id.
    const spelled = isMatchedWhole(kind)
      ? text
      : text.startsWith(SPACE_MARK) && text.length > SPACE_MARK.length
        ? text.slice(SPACE_MARK.length)
        : `##${text}`;
    vocab[spelled] ??= id;
  }
  const unk = encoding.unk ?? BERT_UNK;
  return {
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    model: {
      type: 'WordPiece',
      unk_token: spelledAt(list, unk),
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  };
}

/**
 * Token → id for the model, every id included: the special tokens too, so the encoder keeps each added token at its
 * id (one missing from the vocabulary would be renumbered after it). A text that two ids hold keeps the first
 * (llama.cpp refuses such a file anyway).
 */
function vocabularyObject(list: TokenList): Record<string, number> {
  // No prototype, so a token spelled __proto__ is a key like any other.
  const vocab: Record<string, number> = Object.create(null) as Record<string, number>;
  for (let at = 0; at < list.texts.length; at++) {
    vocab[spelledAt(list, at)] ??= list.ids[at];
  }
  return vocab;
}

/** llama.cpp's special-token partition with parse_special matches control, user-defined and unknown tokens whole. */
function isMatchedWhole(kind: number): boolean {
  return kind === TOKEN_KIND.control || kind === TOKEN_KIND.userDefined || kind === TOKEN_KIND.unknown;
}

/** A token's text as the vocabulary holds it: llama.cpp names an empty one [EMPTY_<id>] (no text encodes to it). */
function spelledAt(list: TokenList, at: number): string {
  return list.texts[at] === '' ? `[EMPTY_${list.ids[at]}]` : list.texts[at];
}

/**
 * SentencePiece's merge order as BPE ranks: each normal token that two tokens make, ranked by its score (highest
 * first), each of its splits into two tokens a merge. Equal scores keep id order. The tokens are sorted, not the
 * merges (a vocabulary of 262k tokens makes a few hundred thousand), and a split is tried only where its left part
 * is a token.
 */
export function mergesByScore(
  texts: readonly string[],
  scores: Float32Array,
  kinds: Uint8Array | null,
): Array<[string, string]> {
  const known = new Set(texts);
  const made: number[] = [];
  for (let id = 0; id < texts.length; id++) {
    const kind = kinds?.[id] ?? TOKEN_KIND.normal;
    const length = texts[id].length;
    // UTF-16 units bound the characters from above, so a token within the cap in units is within it in characters.
    if ((kind === TOKEN_KIND.normal || kind === 0) && length >= 2 && length <= 2 * MAX_SCORE_MERGE_TOKEN_CHARS) {
      made.push(id);
    }
  }
  const order = Uint32Array.from(made);
  // sentencepiece scores a BPE's pieces by rank, so they usually come ranked already: the sort is then skipped.
  const score = (id: number) => scores[id] ?? 0;
  if (order.some((id, at) => at > 0 && score(id) > score(order[at - 1]))) {
    order.sort((a, b) => score(b) - score(a) || a - b);
  }
  const merges: Array<[string, string]> = [];
  for (const id of order) {
    const text = texts[id];
    if (text.length > MAX_SCORE_MERGE_TOKEN_CHARS && Array.from(text).length > MAX_SCORE_MERGE_TOKEN_CHARS) {
      continue;
    }
    for (let cut = 1; cut < text.length; cut++) {
      // A cut inside a surrogate pair is no split between two characters.
      const unit = text.charCodeAt(cut);
      if (unit >= 0xdc00 && unit <= 0xdfff) {
        continue;
      }
      const left = text.slice(0, cut);
      if (known.has(left)) {
        const right = text.slice(cut);
        if (known.has(right)) {
          merges.push([left, right]);
        }
      }
    }
  }
  return merges;
}

function addedTokens(list: TokenList, encoding: TokenListEncoding): Array<Record<string, unknown>> {
  const kinds = encoding.kinds;
  if (kinds === null) {
    return [];
  }
  const added: Array<Record<string, unknown>> = [];
  for (let at = 0; at < list.texts.length; at++) {
    const id = list.ids[at];
    const kind = kinds[id];
    if (isMatchedWhole(kind)) {
      added.push({
        id,
        content: spelledAt(list, at),
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: kind !== TOKEN_KIND.userDefined,
      });
    }
  }
  return added;
}

/** BOS before and EOS after the text, as TemplateProcessing writes them (ids checked by llamaTokenizerProblem). */
function aroundText(list: TokenList, bos: number | null, eos: number | null): Record<string, unknown> {
  const single: unknown[] = [];
  const specials: Record<string, unknown> = {};
  const add = (id: number) => {
    const text = spelledAt(list, id);
    single.push({ SpecialToken: { id: text, type_id: 0 } });
    specials[text] = { id: text, ids: [id], tokens: [text] };
  };
  if (bos !== null) {
    add(bos);
  }
  single.push({ Sequence: { id: 'A', type_id: 0 } });
  if (eos !== null) {
    add(eos);
  }
  return { type: 'TemplateProcessing', single, pair: [...single], special_tokens: specials };
}
