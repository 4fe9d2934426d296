/**
 * One text encoded by both sides' tokenizers, for the compare view's tokenizer card: where the ids part. Each side
 * is its tokenizer.json, or a GGUF's own tokenizer as llama.cpp runs it, so a GGUF set beside the model it was
 * converted from shows whether the conversion tokenizes as the original does. Two tokenizers with the same
 * vocabulary can still split a text otherwise (another normalizer, a pre-tokenizer's prefix space or pattern, merges
 * in another order, other tokens added around the text), which only an encoding shows.
 */
import { useState } from 'react';
import type { EncodeAnswer } from '../../core/analysis/tokenizer/encode';
import { groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { partingOf } from './encoding-parting';
import { ProbeTexts } from './ProbeTexts';
import { PreAgreementLine } from './PreAgreementLine';
import { DroppedNote, EncodedTokens, EncodeError, EncodeInput, SAMPLE_TEXT, useEncoded } from '../tokenizer/EncodeText';

type Encoded = NonNullable<EncodeAnswer['result']>;

/** `ggufPre`: each side's GGUF byte-level tokenizer.ggml.pre (null: none named), undefined for any other side. */
export function EncodeBoth({ ggufPre }: { ggufPre: { a: string | null | undefined; b: string | null | undefined } }) {
  const encodeA = useAppStore((state) => state.encodeText);
  const encodeB = useAppStore((state) => state.encodeCompareText);
  const [text, setText] = useState(SAMPLE_TEXT);
  const a = useEncoded(encodeA, text);
  const b = useEncoded(encodeB, text);
  const resultA = a.answer?.result ?? null;
  const resultB = b.answer?.result ?? null;
  const parting = resultA && resultB ? partingOf(resultA.ids, resultB.ids) : null;
  return (
    <div className="encode-text" data-testid="encode-both">
      <ProbeTexts encodeA={encodeA} encodeB={encodeB} />
      <EncodeInput label="Encode a text with both" text={text} onChange={setText} />
      <EncodeError answer={a.answer} />
      <EncodeError answer={b.answer} />
      {(a.answer === null || b.answer === null) && (a.busy || b.busy) && (
        <p className="muted" role="status">
          Building the tokenizers and encoding…
        </p>
      )}
      {resultA && resultB && (
        <>
          <p data-testid="encode-both-verdict" aria-live="polite">
            {verdict(resultA, resultB, parting)}
            {a.busy || b.busy ? ' …' : ''}
          </p>
          <PreAgreementLine preA={ggufPre.a} preB={ggufPre.b} encodedA={resultA} encodedB={resultB} />
          <DroppedNote result={resultA} side="A" />
          <DroppedNote result={resultB} side="B" />
          <h4>A</h4>
          <EncodedTokens
            result={resultA}
            testId="encode-both-a"
            {...(parting && { marked: { from: parting.from, to: parting.toA } })}
          />
          <h4>B</h4>
          <EncodedTokens
            result={resultB}
            testId="encode-both-b"
            {...(parting && { marked: { from: parting.from, to: parting.toB } })}
          />
        </>
      )}
    </div>
  );
}

function verdict(a: Encoded, b: Encoded, parting: ReturnType<typeof partingOf>): string {
  const counts = `A ${plural(a.ids.length, 'token')}, B ${plural(b.ids.length, 'token')}`;
  if (parting === null) {
    return `The same ${plural(a.ids.length, 'id')} on both sides.`;
  }
  const spanA = parting.toA - parting.from;
  const spanB = parting.toB - parting.from;
  return (
    `${counts}: they part at token ${groupDigits(parting.from + 1)}; ` +
    `${plural(spanA, 'token')} of A and ${plural(spanB, 'token')} of B differ (marked).`
  );
}
