/**
 * What the scan says about an LM head that config.json's tie_word_embeddings makes loaders ignore (the
 * config-head-ignored finding, core/analysis/head-tying.ts). Tied, transformers points lm_head.weight at the input
 * embedding after loading and vLLM skips the saved head, so the model that runs uses the embedding's values. If the
 * saved head holds the same values, nothing is lost and the file only carries a copy; if it differs, the head a
 * fine-tune trained is thrown away on load. Pure.
 */
import { LM_HEAD_NAME, TOKEN_EMBEDDING_NAME } from '../analysis/token-embedding-names';
import { sameScannedValues } from './duplicate-tensors';
import type { ScanTensor } from './value-scan';

export interface TiedHeadValues {
  head: string;
  embedding: string;
  /** True: the saved head is a copy of the embedding; false: loading the tied model drops its values. */
  sameValues: boolean;
  headStd: number;
  embeddingStd: number;
  headAbsMax: number;
  embeddingAbsMax: number;
}

/** The largest scanned tensor whose name matches `pattern` (a head's weight, not its bias or scales). */
function largest(perTensor: readonly ScanTensor[], pattern: RegExp): ScanTensor | null {
  let best: ScanTensor | null = null;
  for (const entry of perTensor) {
    if (pattern.test(entry.tensor) && (best === null || entry.count > best.count)) {
      best = entry;
    }
  }
  return best;
}

/** The scanned head against the embedding it is tied to; null when either was not scanned with figures. */
export function tiedHeadValues(perTensor: readonly ScanTensor[]): TiedHeadValues | null {
  const head = largest(perTensor, LM_HEAD_NAME);
  const embedding = largest(perTensor, TOKEN_EMBEDDING_NAME);
  if (!head || !embedding) {
    return null;
  }
  const same = sameScannedValues(head, embedding);
  if (same === null) {
    return null;
  }
  return {
    head: head.tensor,
    embedding: embedding.tensor,
    sameValues: same,
    headStd: head.std as number,
    embeddingStd: embedding.std as number,
    headAbsMax: head.absMax as number,
    embeddingAbsMax: embedding.absMax as number,
  };
}

/** The scan's verdict on the head, when the load's findings say config.json makes loaders ignore it. */
export function tiedHeadOfScan(
  perTensor: readonly ScanTensor[],
  findings: ReadonlyArray<{ code: string }>,
): TiedHeadValues | null {
  return findings.some((finding) => finding.code === 'config-head-ignored') ? tiedHeadValues(perTensor) : null;
}
