/**
 * tokenizer.json, the file Hugging Face's `tokenizers` library (and so every transformers "fast" tokenizer) loads:
 * its model (`BPE`, `Unigram`, `WordPiece`, `WordLevel`) with the vocabulary and BPE's merges, the tokens added on
 * top (`added_tokens`: id, content, special), and the pipeline around the model: normalizer, pre-tokenizer,
 * post-processor (what `tokenizer(text)` adds around a sequence: `TemplateProcessing`'s `single`, BERT's and
 * RoBERTa's cls/sep) and decoder. Read on a click (it is megabytes: 9 MB for Llama 3, 33 MB for Gemma 3) and kept as
 * this summary, not as the file.
 *
 * Layout as the library serializes it (tokenizers/src/tokenizer/serialization.rs, models/*): BPE, WordPiece and
 * WordLevel keep `vocab` as token → id; Unigram as a list of [piece, score] whose index is the id. Pure.
 */
import { isRecord } from '../values';

export const TOKENIZER_JSON_FILE = 'tokenizer.json';

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
  byteFallback: boolean;
  unkToken: string | null;
  addedTokens: number;
  specialAddedTokens: number;
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
  /** Every id, ascending (for counting those past a row count); not in the report. */
  ids: Float64Array;
}

/** The summary of a parsed tokenizer.json, or a sentence saying why it is not one. */
export function summarizeVocabulary(value: unknown, file: string): VocabularySummary | string {
  if (!isRecord(value) || !isRecord(value.model)) {
    return `${file} has no "model" object: it is not a tokenizer.json the tokenizers library writes.`;
  }
  const model = value.model;
  const type = typeof model.type === 'string' ? model.type : inferredModelType(model);
  const tokens = new Map<number, string>();
  let modelTokens = 0;
  if (Array.isArray(model.vocab)) {
    model.vocab.forEach((entry, id) => {
      if (Array.isArray(entry) && typeof entry[0] === 'string') {
        tokens.set(id, entry[0]);
        modelTokens++;
      }
    });
  } else if (isRecord(model.vocab)) {
    for (const [token, id] of Object.entries(model.vocab)) {
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
  for (const entry of Array.isArray(value.added_tokens) ? value.added_tokens : []) {
    if (isRecord(entry) && isTokenId(entry.id) && typeof entry.content === 'string') {
      tokens.set(entry.id, entry.content);
      addedTokens++;
      specialAddedTokens += entry.special === true ? 1 : 0;
    }
  }
  const ids = Float64Array.from(tokens.keys()).sort();
  const highestId = ids.length > 0 ? ids[ids.length - 1] : null;
  const around = postProcessorTemplate(value.post_processor);
  return {
    file,
    model: type,
    modelTokens,
    totalTokens: ids.length,
    highestId,
    unusedIds: highestId === null ? 0 : highestId + 1 - ids.length,
    merges: Array.isArray(model.merges) ? model.merges.length : null,
    byteFallback: model.byte_fallback === true,
    unkToken: unkTokenOf(model, tokens),
    addedTokens,
    specialAddedTokens,
    normalizer: stageTypes(value.normalizer, 'normalizers'),
    preTokenizer: stageTypes(value.pre_tokenizer, 'pretokenizers'),
    decoder: stageTypes(value.decoder, 'decoders'),
    postProcessor: stageTypes(value.post_processor, 'processors'),
    ...around,
    highestTokens: [...ids.subarray(Math.max(0, ids.length - HIGHEST_TOKENS_KEPT))].map((id) => ({
      id,
      token: tokens.get(id) as string,
    })),
    ids,
  };
}

/** How many of the summary's ids are `rows` or more: tokens an embedding of `rows` rows has no row for. */
export function idsFrom(summary: VocabularySummary, rows: number): number {
  const { ids } = summary;
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle] < rows) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return ids.length - low;
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

function unkTokenOf(model: Record<string, unknown>, tokens: ReadonlyMap<number, string>): string | null {
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
