/**
 * Whether the tokenizer can produce ids the weights do not have: a token added to the tokenizer (a chat marker, a
 * tool-call tag) without `resize_token_embeddings` leaves its id past the embedding's last row, and the first
 * prompt that holds it fails in the lookup (PyTorch's `IndexError: index out of range in self`, on CUDA a
 * device-side assert). An embedding larger than the tokenizer is normal (rows padded to a multiple of 64 or 128).
 */
import { makeFinding } from '../../findings/make-finding';
import type { Finding } from '../../model';
import { groupDigits, plural, pluralWord } from '../../number-format';
import type { TokenizerFiles } from './tokenizer-files';
import { summarizeTokenizer } from './tokenizer-summary';
import type { TokenizerSection } from './tokenizer-types';
import { idsFrom, type VocabularySummary } from './vocabulary';

/** Tokens named in the message; the rest are counted. */
const MAX_TOKENS_NAMED = 3;

export interface EmbeddingFacts {
  row: number;
  name: string;
  rows: number;
}

/**
 * tokenizer.json, once read, gives every id the fast tokenizer produces (its added tokens include the config's);
 * until then the config's added tokens are what is known.
 */
export function tokenizerBeyondEmbedding(
  files: TokenizerFiles | undefined,
  vocabulary: VocabularySummary | undefined,
  embedding: EmbeddingFacts,
): Finding | null {
  const summary = files ? summarizeTokenizer(files) : null;
  const added = vocabulary
    ? vocabularyBeyond(vocabulary, embedding.rows)
    : summary
      ? addedBeyond(summary, embedding.rows)
      : null;
  const generation = summary?.generation ?? null;
  const stops = generation?.eosIds.filter((id) => id >= embedding.rows) ?? [];
  if (added === null && (generation === null || stops.length === 0)) {
    return null;
  }
  const rows = `${embedding.name} has ${groupDigits(embedding.rows)} rows (ids 0–${groupDigits(embedding.rows - 1)})`;
  const sentences: string[] = [];
  if (added !== null) {
    sentences.push(
      `${added}, but ${rows}: a prompt holding one of them fails in the embedding lookup (IndexError on CPU, a ` +
        'device-side assert on CUDA). Resize the embeddings to the tokenizer ' +
        '(model.resize_token_embeddings(len(tokenizer))) and save them, or use the tokenizer these weights were ' +
        'trained with.',
    );
  }
  if (generation !== null && stops.length > 0) {
    sentences.push(
      `${generation.file} stops generation at ${pluralWord(stops.length, 'id')} ${stops.join(', ')}` +
        `${added === null ? `, but ${rows}` : ''}: the model never produces ${stops.length > 1 ? 'them' : 'it'}, ` +
        'so generate() runs on to max_new_tokens. Set eos_token_id to the id that ends a turn.',
    );
  }
  return makeFinding('tokenizer-beyond-embedding', sentences.join(' '), [embedding.row]);
}

/** "tokenizer.json has 4 tokens at ids past the embedding: …", or null when none is past it. */
function vocabularyBeyond(vocabulary: VocabularySummary, rows: number): string | null {
  const count = idsFrom(vocabulary, rows);
  if (count === 0) {
    return null;
  }
  const named = vocabulary.highestTokens
    .filter((token) => token.id >= rows)
    .slice(0, MAX_TOKENS_NAMED)
    .map((token) => `${token.token} (${token.id})`);
  const listed = named.length > 0 ? named.join(', ') : `up to id ${vocabulary.highestId}`;
  const rest = count - named.length;
  return (
    `${vocabulary.file} has ${plural(count, 'token')} at ids past the embedding: ${listed}` +
    (rest > 0 && named.length > 0 ? ` and ${groupDigits(rest)} more` : '')
  );
}

/** "tokenizer_config.json adds 2 tokens at ids the embedding does not have: …", or null when none is past it. */
function addedBeyond(summary: TokenizerSection, rows: number): string | null {
  const highest = summary.highestAddedId;
  if (highest === null || highest < rows) {
    return null;
  }
  const beyond = summary.addedTokens.filter((token) => token.id >= rows);
  // The kept tokens are the lowest ids: past the cap, the ones beyond are known by their count.
  const count = beyond.length + (summary.addedTokenCount - summary.addedTokens.length);
  const named = beyond.slice(0, MAX_TOKENS_NAMED).map((token) => `${token.text} (${token.id})`);
  const listed = named.length > 0 ? named.join(', ') : `up to id ${highest}`;
  const rest = count - named.length;
  return (
    `${summary.addedTokensFile ?? 'tokenizer_config.json'} adds ${plural(count, 'token')} at ids past the embedding: ${listed}` +
    (rest > 0 && named.length > 0 ? ` and ${groupDigits(rest)} more` : '')
  );
}
