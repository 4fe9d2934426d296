/**
 * Whether config.json's `tie_word_embeddings` fits the LM head the weights hold. Tied, transformers makes
 * `lm_head.weight` the input embedding after loading and vLLM skips `lm_head.weight` when it reads the checkpoint:
 * a head saved beside it is never read, and if a fine-tune trained it apart from the embedding, that training is
 * lost. Untied, the model needs its own head: without one, from_pretrained creates it at random (its "newly
 * initialized" warning) and every token it generates is noise. Only an explicit true or false is checked; a config
 * that does not write the key gets its class's default, which this code does not know. Pure.
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding, ParsedHeader } from '../model';
import { formatBytes } from '../number-format';
import { LM_HEAD_NAME } from './token-embedding-names';
import type { TensorIndex } from './tensor-index';

export function headTyingFinding(
  config: { source: string; tieWordEmbeddings: boolean | null },
  index: TensorIndex,
  header: ParsedHeader,
  embeddingRow: number,
  lmHead: boolean,
): Finding | null {
  const tie = config.tieWordEmbeddings;
  if (tie === null || embeddingRow < 0) {
    return null;
  }
  const embedding = index.names[embeddingRow];
  if (!tie && !lmHead) {
    return makeFinding(
      'config-head-missing',
      `${config.source} sets tie_word_embeddings to false, but the weights hold no LM head beside ${embedding}: ` +
        'from_pretrained creates lm_head.weight at random (it warns that it was "newly initialized") and every ' +
        'token the model generates is noise. If the head is meant to be the embedding, set tie_word_embeddings to ' +
        'true; otherwise the head was lost when the model was saved: save it again from the trained model.',
      [embeddingRow],
    );
  }
  if (!tie || !lmHead) {
    return null;
  }
  const head = index.names.findIndex((name) => LM_HEAD_NAME.test(name));
  // A checkpoint that stores both names on one storage holds one tensor, the tie itself.
  const shared = header.checkpoint?.tied.some((pair) => pair.includes(index.names[head]) && pair.includes(embedding));
  if (head < 0 || shared) {
    return null;
  }
  const bytes = formatBytes(index.bytes(head));
  return makeFinding(
    'config-head-ignored',
    `${config.source} sets tie_word_embeddings to true, so transformers and vLLM use ${embedding} as the LM head ` +
      `and never read ${index.names[head]} (${bytes}). If a fine-tune trained the head apart from the embedding, ` +
      'that training is lost on load: set tie_word_embeddings to false. If the two hold the same values, the file ' +
      `carries ${bytes} it does not need.`,
    [head, embeddingRow],
  );
}
