/**
 * The scan's answer to the config-head-ignored finding (core/values/tied-head-values.ts): whether the LM head
 * config.json makes loaders ignore is a copy of the embedding (nothing lost) or holds values of its own (dropped on
 * load).
 */
import { formatValue } from '../../core/number-format';
import type { TiedHeadValues } from '../../core/values/tied-head-values';

export function TiedHeadNote({ tied }: { tied: TiedHeadValues }) {
  const { head, embedding } = tied;
  if (tied.sameValues) {
    return (
      <p className="values-note" role="note" data-testid="scan-tied-head">
        <span className="mono">{head}</span> holds the same values as <span className="mono">{embedding}</span>, and
        config.json ties the two: loading drops nothing, and the file carries a copy it does not need (a file saved tied
        leaves lm_head.weight out).
      </p>
    );
  }
  return (
    <p className="values-error" role="note" data-testid="scan-tied-head">
      <span className="mono">{head}</span> holds other values than <span className="mono">{embedding}</span> (std{' '}
      {formatValue(tied.headStd)} against {formatValue(tied.embeddingStd)}, abs-max {formatValue(tied.headAbsMax)}{' '}
      against {formatValue(tied.embeddingAbsMax)}), but config.json ties the two: transformers and vLLM use the
      embedding as the head, so these trained head values are dropped on load. Set tie_word_embeddings to false in
      config.json to keep them.
    </p>
  );
}
