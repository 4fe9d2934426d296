/**
 * In encode-both, when one side is a GGUF with a byte-level BPE and the other a tokenizer.json's: whether the GGUF's
 * tokenizer.ggml.pre cuts text as the tokenizer.json's pre-tokenizer does (pre-tokenizer-match.ts), the mistake a
 * conversion makes when convert_hf_to_gguf.py is told the wrong name. Holds for any text, not only the one typed.
 */
import type { EncodeAnswer } from '../../core/analysis/tokenizer/encode';
import { preAgreement } from '../../core/analysis/tokenizer/pre-tokenizer-match';

type Encoded = NonNullable<EncodeAnswer['result']>;

/**
 * `preA`/`preB`: a side's GGUF byte-level tokenizer's tokenizer.ggml.pre (null: none named), undefined for any other
 * side (the tokenizer section's ggufPre).
 */
export function PreAgreementLine(props: {
  preA: string | null | undefined;
  preB: string | null | undefined;
  encodedA: Encoded;
  encodedB: Encoded;
}) {
  const { preA, preB } = props;
  // One side a GGUF, the other a tokenizer.json whose byte-level BPE was matched against llama.cpp's lists.
  const [gguf, pre, json, alike] =
    preB !== undefined && props.encodedA.llamaPre
      ? ['B', preB, 'A', props.encodedA.llamaPre]
      : preA !== undefined && props.encodedB.llamaPre
        ? ['A', preA, 'B', props.encodedB.llamaPre]
        : [null, null, null, null];
  if (gguf === null || alike === null) {
    return null;
  }
  const agreement = preAgreement(pre, alike);
  const named =
    pre === null || pre === ''
      ? 'names no tokenizer.ggml.pre (llama.cpp uses its default)'
      : `names tokenizer.ggml.pre “${pre}”`;
  return (
    <p
      className={agreement.kind === 'alike' ? undefined : 'values-error'}
      role={agreement.kind === 'alike' ? undefined : 'alert'}
      data-testid="encode-both-pre"
    >
      {`${gguf} ${named}: `}
      {agreement.kind === 'alike'
        ? `llama.cpp cuts any text as ${json}'s tokenizer.json does.`
        : agreement.kind === 'merges-otherwise'
          ? `llama.cpp cuts text into the pieces ${json}'s tokenizer.json does, but takes words that are tokens otherwise (ignore_merges), so texts can get other ids.`
          : `llama.cpp cuts text otherwise than ${json}'s tokenizer.json, so texts can get other ids (the probe texts show which); ${
              agreement.would.length > 0
                ? `${agreement.would.map((name) => `“${name}”`).join(' or ')} would cut alike (convert again, or load with --override-kv tokenizer.ggml.pre=str:${agreement.would[0]}).`
                : 'no name llama.cpp knows cuts alike.'
            }`}
    </p>
  );
}
