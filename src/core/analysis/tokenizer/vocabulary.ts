/**
 * tokenizer.json, the file Hugging Face's `tokenizers` library (and so every transformers "fast" tokenizer) loads:
 * its model (`BPE`, `Unigram`, `WordPiece`, `WordLevel`) with the vocabulary and BPE's merges, the tokens added on
 * top (`added_tokens`: id, content, special), and the pipeline around the model: normalizer, pre-tokenizer,
 * post-processor (what `tokenizer(text)` adds around a sequence: `TemplateProcessing`'s `single`, BERT's and
 * RoBERTa's cls/sep) and decoder. Read on a click (it is megabytes: 9 MB for Llama 3, 33 MB for Gemma 3) and kept as
 * this summary, with every token for the token browser and the file's text for "Encode a text"; the parsed JSON is
 * dropped.
 *
 * Layout as the library serializes it (tokenizers/src/tokenizer/serialization.rs, models/*): BPE, WordPiece and
 * WordLevel keep `vocab` as token → id; Unigram as a list of [piece, score] whose index is the id. Pure.
 */
import { stringDecoder } from '../../bytes/string-decoder';
import type { SectionPage, SectionPageRequest } from '../../formats/format-reader';
import { isRecord } from '../values';
import type { AddedToken, TokenList } from './tokenizer-types';
import { MAX_ADDED_TOKENS_KEPT } from '../analysis-limits';

export const TOKENIZER_JSON_FILE = 'tokenizer.json';

/**
 * GPT-2's byte-level alphabet (tokenizers' `bytes_char`): printable bytes stand for themselves, the other 68 for
 * U+0100 onwards in byte order. Inverted: the byte each character of a byte-level token stands for.
 */
const BYTE_OF_CHAR: Int16Array = (() => {
  // The 68 remapped bytes end at U+0143; every other character is -1 (not a byte-level character).
  const table = new Int16Array(256 + 68).fill(-1);
  let next = 256;
  for (let byte = 0; byte < 256; byte++) {
    const printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || (byte >= 174 && byte <= 255);
    table[printable ? byte : next++] = byte;
  }
  return table;
})();

/** What the tokens stand for under the file's decoder: byte-level characters as bytes (UTF-8), ▁ as a space. */
function decodedTexts(texts: readonly string[], decoder: readonly string[]): string[] | null {
  if (decoder.includes('ByteLevel')) {
    const scratch = new Uint8Array(256);
    return texts.map((text) => byteLevelText(text, scratch, stringDecoder));
  }
  return decoder.includes('Metaspace') ? texts.map((text) => text.replaceAll('\u2581', ' ')) : null;
}

/**
 * One byte-level token's text: its characters as bytes, read as UTF-8. A token of printable ASCII is its own text, one
 * of other ASCII bytes (a space as Ġ) is built from them, and only one holding a byte of 0x80 or more goes through
 * the decoder (262k tokens in ~75 ms, against ~190 ms with every token through it: scripts/bench-vocabulary.ts).
 */
function byteLevelText(text: string, scratch: Uint8Array, utf8: TextDecoder): string {
  let count = 0;
  let high = false;
  let changed = false;
  const buffer = text.length <= scratch.length ? scratch : new Uint8Array(text.length);
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    const byte = code < BYTE_OF_CHAR.length ? BYTE_OF_CHAR[code] : -1;
    if (byte < 0) {
      // An added token written as plain text (<|eot_id|>): kept as it is.
      return text;
    }
    buffer[count++] = byte;
    high ||= byte >= 0x80;
    changed ||= byte !== code;
  }
  if (high) {
    return utf8.decode(buffer.subarray(0, count));
  }
  return changed ? String.fromCharCode(...buffer.subarray(0, count)) : text;
}

/**
 * Ids held in a plain array below this (a vocabulary has a few hundred thousand); a hostile id past it goes to a map
 * rather than into a 16-million-slot array.
 */
const DENSE_IDS = 1 << 24;

/** Tokens by id, as the file gives them: a later entry at the same id (an added token) replaces the earlier. */
class TokensById {
  private readonly dense: Array<string | undefined> = [];
  private readonly sparse = new Map<number, string>();

  set(id: number, token: string): void {
    if (id < DENSE_IDS) {
      this.dense[id] = token;
    } else {
      this.sparse.set(id, token);
    }
  }

  get(id: number): string | undefined {
    return id < DENSE_IDS ? this.dense[id] : this.sparse.get(id);
  }

  /**
   * Every id ascending, with its token: one pass, since ids are array positions (the few past DENSE_IDS sorted);
   * a Map sorted afterwards took three times as long over 262k tokens (scripts/bench-vocabulary.ts).
   */
  inOrder(): { ids: Float64Array; texts: string[] } {
    const ids: number[] = [];
    const texts: string[] = [];
    for (let id = 0; id < this.dense.length; id++) {
      const token = this.dense[id];
      if (token !== undefined) {
        ids.push(id);
        texts.push(token);
      }
    }
    for (const id of [...this.sparse.keys()].sort((a, b) => a - b)) {
      ids.push(id);
      texts.push(this.sparse.get(id) as string);
    }
    return { ids: Float64Array.from(ids), texts };
  }
}

/** Entries of one page of the token browser at most, whatever the page asks. */
const MAX_PAGE_ENTRIES = 1000;

/** Tokens with the highest ids kept with their text, to name those past the embedding's rows. */
export const HIGHEST_TOKENS_KEPT = 64;

export interface VocabularySummary {
  file: string;
  /** The model's type as the file names it: BPE, Unigram, WordPiece, WordLevel. */
  model: string;
  /** Entries of the model's own vocabulary (added tokens not counted). */
  modelTokens: number;
  /** Distinct ids over the model's vocabulary and added_tokens: what len(tokenizer) counts. */
  totalTokens: number;
  /** The highest id any token has; null for an empty vocabulary. */
  highestId: number | null;
  /** Ids from 0 to highestId that no token holds. */
  unusedIds: number;
  /** BPE's merges; null for the other models. */
  merges: number | null;
  /**
   * The model's merges as the file holds them (strings or [left, right] pairs), for the token-by-token comparison,
   * which spells them as GGUF does (mergeText) on its click rather than at every read: kept in the worker only.
   */
  mergeEntries: readonly unknown[] | null;
  byteFallback: boolean;
  unkToken: string | null;
  addedTokens: number;
  specialAddedTokens: number;
  /** The added tokens in id order, the first MAX_ADDED_TOKENS_KEPT: what transformers takes when the config lists none. */
  added: AddedToken[];
  /** Added tokens the library gives another id than the file declares (resolveAddedIds), the first MAX_ADDED_TOKENS_KEPT. */
  moved: MovedToken[];
  /** Types of each stage, a Sequence's members in order ([] when the stage is absent). */
  normalizer: string[];
  preTokenizer: string[];
  decoder: string[];
  postProcessor: string[];
  /** What `tokenizer(text)` puts around one sequence ("<|begin_of_text|> $A"); null when nothing is added. */
  template: string | null;
  /** Special tokens the post-processor puts before and after the text. */
  prepends: string[];
  appends: string[];
  /** The HIGHEST_TOKENS_KEPT highest ids with their tokens, highest last. */
  highestTokens: Array<{ id: number; token: string }>;
  /** Every id, ascending (for counting those past a row count), and each one's token: kept in the worker for the
   * token browser, never in the report. */
  ids: Float64Array;
  texts: string[];
  /**
   * The text each token stands for, where the vocabulary stores it encoded (a byte-level BPE's `Ġ` for a space,
   * Metaspace's `▁`): null when tokens are their text.
   */
  decoded: string[] | null;
  /** The file's text, for encoding with it (worker/text-encoder.ts); '' when the summary was made from parsed JSON. */
  source: string;
}

/** The summary of a parsed tokenizer.json, or a sentence saying why it is not one. */
export function summarizeVocabulary(value: unknown, file: string, source = ''): VocabularySummary | string {
  if (!isRecord(value) || !isRecord(value.model)) {
    return `${file} has no "model" object: it is not a tokenizer.json the tokenizers library writes.`;
  }
  const model = value.model;
  const type = typeof model.type === 'string' ? model.type : inferredModelType(model);
  const tokens = new TokensById();
  let modelTokens = 0;
  if (Array.isArray(model.vocab)) {
    model.vocab.forEach((entry, id) => {
      if (Array.isArray(entry) && typeof entry[0] === 'string') {
        tokens.set(id, entry[0]);
        modelTokens++;
      }
    });
  } else if (isRecord(model.vocab)) {
    const vocab = model.vocab;
    for (const token in vocab) {
      const id = vocab[token];
      if (isTokenId(id)) {
        tokens.set(id, token);
        modelTokens++;
      }
    }
  } else {
    return `${file}'s ${type} model has no vocabulary ("model.vocab" is neither a token → id map nor a list).`;
  }
  let addedTokens = 0;
  let specialAddedTokens = 0;
  const added: AddedToken[] = [];
  const moved: MovedToken[] = [];
  for (const entry of resolveAddedIds(value.added_tokens, modelIdOf(model.vocab), modelTokens)) {
    tokens.set(entry.id, entry.text);
    if (added.length < MAX_ADDED_TOKENS_KEPT) {
      added.push({ id: entry.id, text: entry.text, special: entry.special });
    }
    if (entry.declared !== entry.id && moved.length < MAX_ADDED_TOKENS_KEPT) {
      moved.push({ text: entry.text, declared: entry.declared, id: entry.id });
    }
    addedTokens++;
    specialAddedTokens += entry.special ? 1 : 0;
  }
  const { ids, texts } = tokens.inOrder();
  const highestId = ids.length > 0 ? ids[ids.length - 1] : null;
  const around = postProcessorTemplate(value.post_processor);
  const decoder = stageTypes(value.decoder, 'decoders');
  return {
    file,
    model: type,
    modelTokens,
    totalTokens: ids.length,
    highestId,
    unusedIds: highestId === null ? 0 : highestId + 1 - ids.length,
    merges: Array.isArray(model.merges) ? model.merges.length : null,
    mergeEntries: Array.isArray(model.merges) ? model.merges : null,
    byteFallback: model.byte_fallback === true,
    unkToken: unkTokenOf(model, tokens),
    addedTokens,
    specialAddedTokens,
    added: added.sort((x, y) => x.id - y.id),
    moved,
    normalizer: stageTypes(value.normalizer, 'normalizers'),
    preTokenizer: stageTypes(value.pre_tokenizer, 'pretokenizers'),
    decoder,
    postProcessor: stageTypes(value.post_processor, 'processors'),
    ...around,
    highestTokens: texts.slice(Math.max(0, ids.length - HIGHEST_TOKENS_KEPT)).map((token, at, kept) => ({
      id: ids[ids.length - kept.length + at],
      token,
    })),
    ids,
    texts,
    decoded: decodedTexts(texts, decoder),
    source,
  };
}

/** An added token whose declared id is not the one the tokenizers library gives it. */
export interface MovedToken {
  text: string;
  declared: number;
  id: number;
}

/** The model's own id of a text, from its vocabulary (a token → id map, or Unigram's list of [piece, score]). */
function modelIdOf(vocab: unknown): (text: string) => number | undefined {
  if (Array.isArray(vocab)) {
    let byPiece: Map<string, number> | null = null;
    return (text) => {
      if (byPiece === null) {
        byPiece = new Map();
        vocab.forEach((entry, id) => {
          if (Array.isArray(entry) && typeof entry[0] === 'string' && !byPiece?.has(entry[0])) {
            byPiece?.set(entry[0], id);
          }
        });
      }
      return byPiece.get(text);
    };
  }
  return (text) => {
    const id = isRecord(vocab) && Object.hasOwn(vocab, text) ? vocab[text] : undefined;
    return isTokenId(id) ? id : undefined;
  };
}

/**
 * The ids the tokenizers library gives tokenizer.json's added tokens, which are not the ids the file declares: it
 * adds them in file order, each taking the id its text already has (in the model's vocabulary, or an earlier added
 * token), else the model's vocabulary size for the first new one and the next id after the highest added one for the
 * rest (tokenizers' AddedVocabulary::add_tokens; checked against the library, scripts/tokenizer-id-fixtures.py). A
 * file with holes or gaps in its ids gets other ids than it declares, and the library logs "Token '…' was expected to
 * have ID '…' but was given ID '…'".
 */
function resolveAddedIds(
  entries: unknown,
  modelId: (text: string) => number | undefined,
  modelSize: number,
): Array<{ text: string; special: boolean; declared: number; id: number }> {
  const byText = new Map<string, number>();
  let highest = -1;
  const resolved: Array<{ text: string; special: boolean; declared: number; id: number }> = [];
  for (const entry of Array.isArray(entries) ? entries : []) {
    if (!isRecord(entry) || !isTokenId(entry.id) || typeof entry.content !== 'string' || entry.content === '') {
      continue;
    }
    const text = entry.content;
    let id = byText.get(text) ?? modelId(text);
    if (id === undefined) {
      id = highest < 0 ? modelSize : highest >= modelSize || modelSize === 0 ? highest + 1 : modelSize;
    }
    if (!byText.has(text)) {
      byText.set(text, id);
      highest = Math.max(highest, id);
      resolved.push({ text, special: entry.special === true, declared: entry.id, id });
    }
  }
  return resolved;
}

/**
 * A parsed tokenizer.json with its added tokens at the ids the tokenizers library gives them (resolveAddedIds) and
 * without the repeats it skips: what tokenizers.js, which takes the declared ids, must be given to encode as
 * transformers does. The same object when every declared id holds.
 */
export function withLibraryAddedIds(value: unknown): unknown {
  if (!isRecord(value) || !isRecord(value.model) || !Array.isArray(value.added_tokens)) {
    return value;
  }
  const vocab = value.model.vocab;
  const entries = Array.isArray(vocab) ? vocab : isRecord(vocab) ? Object.values(vocab) : [];
  const size = Array.isArray(vocab)
    ? vocab.filter((entry) => Array.isArray(entry) && typeof entry[0] === 'string').length
    : entries.filter(isTokenId).length;
  const resolved = resolveAddedIds(value.added_tokens, modelIdOf(vocab), size);
  if (resolved.length === value.added_tokens.length && resolved.every((entry) => entry.declared === entry.id)) {
    return value;
  }
  const byText = new Map(resolved.map((entry) => [entry.text, entry.id]));
  const seen = new Set<string>();
  const added = value.added_tokens.flatMap((entry: unknown) => {
    if (!isRecord(entry) || typeof entry.content !== 'string' || seen.has(entry.content)) {
      return [];
    }
    const id = byText.get(entry.content);
    seen.add(entry.content);
    return id === undefined ? [] : [{ ...entry, id }];
  });
  return { ...value, added_tokens: added };
}

/** The summary's tokens and merges as the token-by-token comparison reads them. */
export function tokenListOfVocabulary(summary: VocabularySummary): TokenList {
  return {
    origin: 'tokenizer.json',
    model: summary.model,
    ids: summary.ids,
    texts: summary.texts,
    merges: summary.mergeEntries && summary.mergeEntries.map(mergeText),
  };
}

/**
 * One merge as GGUF stores it: `left right`. tokenizer.json writes merges as that string, or (transformers 4.45 and
 * later, so that a part may hold a space) as a [left, right] pair, whose spaces gguf-py writes as U+0120 when it
 * converts the file; the same spelling here lets both forms and a GGUF's list compare as equal.
 */
export function mergeText(merge: unknown): string {
  if (typeof merge === 'string') {
    return merge;
  }
  if (Array.isArray(merge) && merge.length === 2) {
    return merge.map((part) => String(part).replaceAll(' ', '\u0120')).join(' ');
  }
  return String(merge);
}

/** How many of the summary's ids are `rows` or more: tokens an embedding of `rows` rows has no row for. */
export function idsFrom(summary: VocabularySummary, rows: number): number {
  return summary.ids.length - firstAtLeast(summary.ids, rows);
}

/** The id tokenizer.json gives the token `text`, or null when no id holds it. */
export function idOf(summary: VocabularySummary, text: string): number | null {
  const at = summary.texts.indexOf(text);
  return at < 0 ? null : summary.ids[at];
}

/** The token tokenizer.json gives id `id`, or undefined when none holds it. */
export function tokenAt(summary: VocabularySummary, id: number): string | undefined {
  const at = firstAtLeast(summary.ids, id);
  return summary.ids[at] === id ? summary.texts[at] : undefined;
}

/** The position of the first of the ascending `ids` that is `id` or more. */
function firstAtLeast(ids: Float64Array, id: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle] < id) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/**
 * A page of the vocabulary for the token browser: ids `from` to `from + count − 1` (null where no token holds one),
 * or with `find`, the `count` matches from the `from`-th on, in id order, with their ids.
 */
export function vocabularyPage(summary: VocabularySummary, request: SectionPageRequest): SectionPage {
  const count = Math.max(0, Math.min(request.count, MAX_PAGE_ENTRIES));
  const { ids, texts, decoded } = summary;
  if (request.find !== undefined && request.find !== '') {
    return findPage(request.section, texts, (at) => ids[at], request.find, request.from, count, decoded);
  }
  const total = summary.highestId === null ? 0 : summary.highestId + 1;
  const from = Math.max(0, Math.min(Math.floor(request.from), total));
  const items: Array<string | null> = new Array<string | null>(Math.min(count, total - from)).fill(null);
  const shown: Array<string | null> | null = decoded && items.map(() => null);
  for (let at = firstAtLeast(ids, from); at < ids.length && ids[at] < from + items.length; at++) {
    items[ids[at] - from] = texts[at];
    if (shown && decoded) {
      shown[ids[at] - from] = decoded[at];
    }
  }
  return { section: request.section, from, total, items, ...(shown && { decoded: shown }) };
}

/**
 * The `from`-th to `from + count − 1`-th entries of a list whose text (or, with `decoded`, the text it stands for)
 * contains `find`, with their ids; `total` the matches in all. One pass over the list: a vocabulary of 262k tokens
 * takes a few milliseconds.
 */
export function findPage(
  section: string,
  texts: ReadonlyArray<string | null>,
  idAt: (at: number) => number,
  find: string,
  from: number,
  count: number,
  decoded: readonly string[] | null = null,
): SectionPage {
  const first = Math.max(0, Math.floor(from));
  const items: string[] = [];
  const shown: string[] = [];
  const ids: number[] = [];
  let total = 0;
  for (let at = 0; at < texts.length; at++) {
    const text = texts[at];
    if (text === null || !(text.includes(find) || decoded?.[at].includes(find))) {
      continue;
    }
    if (total >= first && items.length < count) {
      items.push(text);
      ids.push(idAt(at));
      if (decoded) {
        shown.push(decoded[at]);
      }
    }
    total++;
  }
  return { section, from: first, total, items, ids, ...(decoded && { decoded: shown }) };
}

function isTokenId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Files written before the library stored `type` name their model by its fields. */
function inferredModelType(model: Record<string, unknown>): string {
  if ('merges' in model) {
    return 'BPE';
  }
  if (Array.isArray(model.vocab)) {
    return 'Unigram';
  }
  return 'continuing_subword_prefix' in model ? 'WordPiece' : 'WordLevel';
}

function unkTokenOf(model: Record<string, unknown>, tokens: TokensById): string | null {
  if (typeof model.unk_token === 'string') {
    return model.unk_token;
  }
  return isTokenId(model.unk_id) ? (tokens.get(model.unk_id) ?? null) : null;
}

/** A stage's type, or its Sequence's members' types in order (the key holding them differs per stage). */
function stageTypes(stage: unknown, membersKey: string): string[] {
  if (!isRecord(stage) || typeof stage.type !== 'string') {
    return [];
  }
  const members = stage[membersKey];
  if (stage.type === 'Sequence' && Array.isArray(members)) {
    return members.flatMap((member) => stageTypes(member, membersKey));
  }
  return [stage.type];
}

/** What the post-processor adds around one sequence: TemplateProcessing's `single`, or BERT's / RoBERTa's cls and sep. */
function postProcessorTemplate(processor: unknown): Pick<VocabularySummary, 'template' | 'prepends' | 'appends'> {
  const none = { template: null, prepends: [], appends: [] };
  if (!isRecord(processor)) {
    return none;
  }
  if (processor.type === 'Sequence' && Array.isArray(processor.processors)) {
    for (const member of processor.processors) {
      const found = postProcessorTemplate(member);
      if (found.template !== null) {
        return found;
      }
    }
    return none;
  }
  if (processor.type === 'TemplateProcessing' && Array.isArray(processor.single)) {
    const prepends: string[] = [];
    const appends: string[] = [];
    let seen = false;
    const parts = processor.single.flatMap((piece): string[] => {
      if (isRecord(piece) && isRecord(piece.Sequence)) {
        seen = true;
        return [`$${String(piece.Sequence.id ?? 'A')}`];
      }
      if (isRecord(piece) && isRecord(piece.SpecialToken) && typeof piece.SpecialToken.id === 'string') {
        (seen ? appends : prepends).push(piece.SpecialToken.id);
        return [piece.SpecialToken.id];
      }
      return [];
    });
    return prepends.length + appends.length === 0 ? none : { template: parts.join(' '), prepends, appends };
  }
  if (processor.type === 'BertProcessing' || processor.type === 'RobertaProcessing') {
    const tokenOf = (pair: unknown) => (Array.isArray(pair) && typeof pair[0] === 'string' ? pair[0] : null);
    const cls = tokenOf(processor.cls);
    const sep = tokenOf(processor.sep);
    if (cls === null || sep === null) {
      return none;
    }
    return { template: `${cls} $A ${sep}`, prepends: [cls], appends: [sep] };
  }
  return none;
}
