/**
 * Which of llama.cpp's pre-tokenizers cut text as a tokenizer.json's byte-level BPE does: what a GGUF of it needs as
 * `tokenizer.ggml.pre` to tokenize alike. convert_hf_to_gguf.py recognises a tokenizer by the ids it gives one fixed
 * text and refuses one it does not know ("BPE pre-tokenizer was not recognized"); this answers the question that
 * refusal leaves, by cutting the probe texts with the file's own pre-tokenizer and with each pattern list of the
 * table (llama-pre-tokenizers.json), and keeping the lists that cut every probe text into the same pieces.
 */
import { SequencePreTokenizer } from '@huggingface/tokenizers';
import type { Tokenizer } from '@huggingface/tokenizers';
import { LLAMA_PRE_TYPES, type LlamaPreTokenizer } from './llama-pre-tokenizers';
import { PROBE_TEXTS } from './probe-texts';

export interface PreTokenizerAlike {
  /** The pattern list's words (`Llama 3's pattern`) and the tokenizer.ggml.pre names that select it. */
  label: string;
  names: readonly string[];
  /** Whether llama.cpp takes a word that is a token whole with these names (ignore_merges)… */
  ignoreMerges: boolean;
  /** …and whether the file's model does the same. */
  ignoreMergesAgrees: boolean;
}

/** The pieces of a text as llama.cpp cuts it with one pattern list, each piece in GPT-2's byte alphabet. */
function llamaCutter(patterns: readonly string[]): (text: string) => string[] {
  const cutter = new SequencePreTokenizer({
    type: 'Sequence',
    pretokenizers: [
      ...patterns.map((pattern) => ({
        type: 'Split' as const,
        pattern: { Regex: pattern },
        behavior: 'Isolated' as const,
        invert: false,
      })),
      { type: 'ByteLevel' as const, add_prefix_space: false, trim_offsets: false, use_regex: false },
    ],
  });
  return (text) => cutter.pre_tokenize(text);
}

/**
 * The pre-tokenizers of llama.cpp that cut every probe text as `tokenizer` does; null when the tokenizer is not a
 * byte-level BPE (llama.cpp's pre-tokenizers apply to `gpt2` GGUFs only). Runs the file's own patterns, so it runs
 * where a pattern that backtracks for ever can be stopped (the encoder's worker).
 */
export function llamaPreTokenizersAlike(tokenizer: Tokenizer, tokenizerJson: unknown): PreTokenizerAlike[] | null {
  const model = (tokenizerJson as { model?: { type?: unknown; ignore_merges?: unknown } } | null)?.model;
  const pre = tokenizer.pre_tokenizer;
  const preConfig = (tokenizerJson as { pre_tokenizer?: unknown }).pre_tokenizer ?? null;
  if (model?.type !== 'BPE' || pre === null || !JSON.stringify(preConfig).includes('"ByteLevel"')) {
    return null;
  }
  const normalize = (text: string) => (tokenizer.normalizer ? tokenizer.normalizer(text) : text);
  const own = PROBE_TEXTS.map((text) => pre.pre_tokenize(normalize(text)).join('\u0000'));
  const ignoreMerges = model.ignore_merges === true;
  // Rows sharing a pattern list (llama3 with and without ignore_merges) are cut once.
  const byList = new Map<string, LlamaPreTokenizer[]>();
  for (const type of LLAMA_PRE_TYPES) {
    byList.set(type.name, [...(byList.get(type.name) ?? []), type]);
  }
  const alike: PreTokenizerAlike[] = [];
  for (const types of byList.values()) {
    const cut = llamaCutter(types[0].patterns);
    if (PROBE_TEXTS.every((text, at) => cut(text).join('\u0000') === own[at])) {
      for (const type of types) {
        alike.push({
          label: type.label,
          names: type.names,
          ignoreMerges: type.ignoreMerges,
          ignoreMergesAgrees: type.ignoreMerges === ignoreMerges,
        });
      }
    }
  }
  return alike;
}

/** How a GGUF's tokenizer.ggml.pre stands to the pre-tokenizers that cut alike a tokenizer.json's text. */
export type PreAgreement =
  | { kind: 'alike' }
  /** The same pieces, but llama.cpp takes whole-word tokens otherwise than the file (ignore_merges). */
  | { kind: 'merges-otherwise' }
  /** Other pieces: `would` are the first names that cut alike (none when no list does). */
  | { kind: 'cuts-otherwise'; would: string[] };

export function preAgreement(pre: string | null, alike: readonly PreTokenizerAlike[]): PreAgreement {
  // llama.cpp splits a gpt2 tokenizer without tokenizer.ggml.pre with its default list.
  const name = pre === null || pre === '' ? 'default' : pre;
  const entry = alike.find((candidate) => candidate.names.includes(name));
  if (entry !== undefined) {
    return entry.ignoreMergesAgrees ? { kind: 'alike' } : { kind: 'merges-otherwise' };
  }
  const agreeing = alike.filter((candidate) => candidate.ignoreMergesAgrees);
  return { kind: 'cuts-otherwise', would: (agreeing.length > 0 ? agreeing : alike).map((c) => c.names[0]) };
}
