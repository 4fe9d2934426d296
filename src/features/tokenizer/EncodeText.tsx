/**
 * "Encode a text" with the tokenizer.json read on demand: what tokenizer(text) gives (add_special_tokens=True), token
 * by token with ids, as the tokenizers library would. It runs in the tokenizer's own worker, stopped past a deadline
 * (a pattern from the file can backtrack for ever); the page only shows the answer to the latest text.
 */
import { useEffect, useRef, useState } from 'react';
import type { EncodeAnswer } from '../../core/analysis/tokenizer/encode';
import { groupDigits, plural } from '../../core/number-format';
import { PROBE_TEXTS } from '../../core/analysis/tokenizer/probe-texts';
import { useAppStore } from '../../state/store';
import './token-browser.css';

/** Pause after typing before the text is encoded. */
const ENCODE_DEBOUNCE_MS = 250;

/** Tokens shown one by one; the count covers all of them. */
const TOKENS_SHOWN = 400;

export const SAMPLE_TEXT = 'Hello world! Tokenizers split "unbelievable" text into pieces: 12345 🙂';

/**
 * The latest answer of `encode` for `text`, asked ENCODE_DEBOUNCE_MS after the last change; `busy` while a newer
 * text waits for its answer.
 */
export function useEncoded(
  encode: (text: string) => Promise<EncodeAnswer | null>,
  text: string,
): { answer: EncodeAnswer | null; busy: boolean } {
  const [answer, setAnswer] = useState<EncodeAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  const latest = useRef(0);
  useEffect(() => {
    const asked = ++latest.current;
    setBusy(true);
    const timer = setTimeout(() => {
      void encode(text).then((reply) => {
        if (asked === latest.current) {
          setAnswer(reply);
          setBusy(false);
        }
      });
    }, ENCODE_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, encode]);
  return { answer, busy };
}

export function EncodeText() {
  const encode = useAppStore((state) => state.encodeText);
  const [text, setText] = useState(SAMPLE_TEXT);
  const { answer, busy } = useEncoded(encode, text);
  const result = answer?.result ?? null;
  return (
    <div className="encode-text" data-testid="encode-text">
      <EncodeInput label="Encode a text" text={text} onChange={setText} />
      <EncodeError answer={answer} />
      {answer === null && busy && (
        // The first text also builds the tokenizer: a second or so for a vocabulary of a few hundred thousand tokens.
        <p className="muted" role="status" data-testid="encode-text-building">
          Building the tokenizer and encoding…
        </p>
      )}
      {result && (
        <>
          <p data-testid="encode-text-count" aria-live="polite">
            {plural(result.ids.length, 'token')} for {plural(result.chars, 'character')}
            {result.addedBySpecial > 0 ? `, ${groupDigits(result.addedBySpecial)} of them added around the text` : ''}
            {result.cut ? ' (the text was cut to its first characters)' : ''}
            {busy ? ' …' : ''}
          </p>
          <DroppedNote result={result} />
          <EncodedTokens result={result} testId="encode-text-tokens" />
          <LlamaPreLine result={result} />
        </>
      )}
    </div>
  );
}

/**
 * For a tokenizer.json's byte-level BPE: the tokenizer.ggml.pre names whose patterns cut the probe texts as it does,
 * what a GGUF of it must carry to tokenize alike (those that also take whole-word tokens as the file does first).
 */
/** tokenizer.ggml.pre names shown per pattern list. */
const NAMES_SHOWN = 3;

function LlamaPreLine({ result }: { result: NonNullable<EncodeAnswer['result']> }) {
  const alike = result.llamaPre;
  if (alike === undefined || alike === null) {
    return null;
  }
  const probes = plural(PROBE_TEXTS.length, 'probe text');
  // The first names of each list, the rest counted: one name is what a user sets.
  const named = (entries: typeof alike) =>
    entries
      .map((entry) => {
        const more = entry.names.length - NAMES_SHOWN;
        return `${entry.names.slice(0, NAMES_SHOWN).join(', ')}${more > 0 ? ` (or ${more} more)` : ''}, ${entry.label}`;
      })
      .join('; ');
  const agreeing = alike.filter((entry) => entry.ignoreMergesAgrees);
  const merging = alike.filter((entry) => !entry.ignoreMergesAgrees);
  return (
    <p className="muted" data-testid="encode-text-llama-pre">
      {agreeing.length > 0
        ? `As a GGUF, llama.cpp tokenizes like this file with tokenizer.ggml.pre ${named(agreeing)}: its ` +
          `patterns cut the ${probes} into the same pieces.`
        : `No tokenizer.ggml.pre of llama.cpp cuts the ${probes} and merges as this file does: a GGUF of it would ` +
          'tokenize otherwise (and convert_hf_to_gguf.py refuses a pre-tokenizer it does not recognise).'}
      {merging.map(
        (entry) =>
          ` ${named([entry])} cuts the same pieces, but llama.cpp then ` +
          (entry.ignoreMerges
            ? 'takes a word that is a token whole, where this file merges it.'
            : 'merges every word, where this file takes a word that is a token whole.'),
      )}
    </p>
  );
}

/** Characters no token holds, which the tokenizer dropped (a byte-level vocabulary lacking some bytes). */
export function DroppedNote({ result, side }: { result: NonNullable<EncodeAnswer['result']>; side?: string }) {
  return result.dropped ? (
    <p className="values-error" role="alert" data-testid={side ? `encode-text-dropped-${side}` : 'encode-text-dropped'}>
      {side ? `${side}: ` : ''}
      {plural(result.dropped, 'character')} of the text {result.dropped === 1 ? 'has' : 'have'} no token and{' '}
      {result.dropped === 1 ? 'is' : 'are'} dropped: this vocabulary lacks some of the 256 byte tokens a byte-level BPE
      needs, and llama.cpp drops such bytes without a word.
    </p>
  ) : null;
}

export function EncodeInput({
  label,
  text,
  onChange,
}: {
  label: string;
  text: string;
  onChange: (text: string) => void;
}) {
  return (
    <label className="encode-text-input">
      {label}
      <textarea value={text} rows={3} onChange={(event) => onChange(event.target.value)} spellCheck={false} />
    </label>
  );
}

export function EncodeError({ answer }: { answer: EncodeAnswer | null }) {
  return answer?.error ? (
    <p className="values-error" role="alert" data-testid="encode-text-error">
      {answer.error}
    </p>
  ) : null;
}

/** The tokens one by one with their ids; those from `marked.from` to `marked.to` (exclusive) stand out. */
export function EncodedTokens({
  result,
  testId,
  marked,
}: {
  result: NonNullable<EncodeAnswer['result']>;
  testId: string;
  marked?: { from: number; to: number };
}) {
  return (
    <>
      <ol className="encode-text-tokens" data-testid={testId}>
        {result.ids.slice(0, TOKENS_SHOWN).map((id, at) => (
          <li
            key={at}
            title={`token ${JSON.stringify(result.tokens[at])}, id ${id}`}
            className={marked && at >= marked.from && at < marked.to ? 'encode-text-differs' : undefined}
          >
            <span className="mono encode-text-piece">{visible(result.pieces[at])}</span>
            <span className="encode-text-id">{id}</span>
          </li>
        ))}
      </ol>
      {result.ids.length > TOKENS_SHOWN && (
        <p className="muted">
          The first {groupDigits(TOKENS_SHOWN)} of {groupDigits(result.ids.length)} tokens are shown.
        </p>
      )}
    </>
  );
}

/** A piece as the eye can see it: spaces as ·, line breaks as ↵, nothing at all as ∅. */
function visible(piece: string): string {
  return piece === '' ? '∅' : piece.replace(/ /g, '·').replace(/\n/g, '↵');
}
