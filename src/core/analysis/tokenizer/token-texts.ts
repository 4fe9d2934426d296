/**
 * A model's token texts by id, from the best list at hand: a GGUF's own token list or a tokenizer.json once read
 * (every id), else tokenizer_config.json's added tokens (the special and added ids only, which is where untrained
 * rows and chat markers sit). With the chat templates, to tell which of those tokens a template writes.
 */
import { TOKEN_KIND, type TokenList, type TokenizerSection } from './tokenizer-types';

export interface TokenTexts {
  /** Where the texts came from: `tokenizer.json`, `the GGUF's token list`, `tokenizer_config.json`. */
  origin: string;
  /** Whether the source has every id's token (a token list), not only the added ones (tokenizer_config.json). */
  complete: boolean;
  /** The token at `id`, or null when the source has none there. */
  text(id: number): string | null;
  /** Whether `id` is a special or added token (matched whole in a text, as a chat template writes it). */
  special(id: number): boolean;
  /** Every chat template's source. */
  templates: readonly string[];
}

/** Some token ids with their texts, and where the texts came from: what a value view names beside rows it lists. */
export interface TokenTextList {
  origin: string;
  texts: Array<{ id: number; text: string | null }>;
}

/** The tokens of `ids` (a token embedding's rows, whose index is the id), as `texts` lists them. */
export function tokenTextList(texts: Pick<TokenTexts, 'origin' | 'text'>, ids: readonly number[]): TokenTextList {
  return { origin: texts.origin, texts: ids.map((id) => ({ id, text: texts.text(id) })) };
}

export function tokenTextsOf(sources: {
  list: TokenList | null;
  section: TokenizerSection | null;
  /** A GGUF's `tokenizer.chat_template`. */
  ggufTemplate?: string | null;
}): TokenTexts | null {
  const { list, section } = sources;
  const added = new Map((section?.addedTokens ?? []).map((token) => [token.id, token.text]));
  const templates = [
    ...(section?.templates.map((template) => template.source) ?? []),
    sources.ggufTemplate ?? '',
  ].filter((template) => template !== '');
  if (list) {
    const kinds = list.encoding?.kinds ?? null;
    return {
      origin: list.origin === 'gguf' ? "the GGUF's token list" : 'tokenizer.json',
      complete: true,
      // A converter's placeholder for an id no token holds ([PAD<id>], type unused) is not a token.
      text: (id) => (kinds !== null && kinds[id] === TOKEN_KIND.unused ? null : listText(list, id)),
      special: (id) =>
        added.has(id) || (kinds !== null && (kinds[id] === TOKEN_KIND.control || kinds[id] === TOKEN_KIND.userDefined)),
      templates,
    };
  }
  if (added.size === 0) {
    return null;
  }
  return {
    origin: `${section?.addedTokensFile ?? 'tokenizer_config.json'}'s added tokens`,
    complete: false,
    text: (id) => added.get(id) ?? null,
    special: (id) => added.has(id),
    templates,
  };
}

/** The token at `id` of a list whose ids ascend (binary search), or null. */
function listText(list: TokenList, id: number): string | null {
  let low = 0;
  let high = list.ids.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = list.ids[mid];
    if (at === id) {
      return list.texts[mid];
    }
    if (at < id) {
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return null;
}
