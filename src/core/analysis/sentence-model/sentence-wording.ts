/** sentence-transformers wording shared by the Model tab's card and the verdict line. */
import { groupDigits, plural } from '../../number-format';
import type { SentenceModelSection } from './sentence-model-types';

/** What each kind of model gives, as a heading. */
export const SENTENCE_TITLES: Readonly<Record<SentenceModelSection['kind'], string>> = {
  SentenceTransformer: 'Sentence embeddings',
  CrossEncoder: 'Cross-encoder (scores a pair of inputs)',
  SparseEncoder: 'Sparse embeddings (SPLADE)',
  other: 'sentence-transformers model',
};

/** "16 numbers, unit length", "sparse: a weight per vocabulary entry (30 522)", "1 score per pair". */
export function sentenceOutput(section: SentenceModelSection): string {
  const { what, width, normalized } = section.output;
  if (what === 'scores') {
    return width === null ? 'scores per pair' : `${plural(width, 'score')} per pair`;
  }
  if (what === 'sparse vector') {
    return `sparse: a weight per vocabulary entry${width === null ? '' : ` (${groupDigits(width)})`}`;
  }
  const numbers = width === null ? 'a vector (its width not stated)' : `${groupDigits(width)} numbers`;
  return `${numbers}${normalized ? ', unit length' : ''}`;
}
