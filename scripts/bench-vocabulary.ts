/**
 * `npm run bench` (values part, tokenizer.json): "Read tokenizer.json" on a byte-level BPE the size of Gemma 3's
 * (262,144 tokens, as many merges), against `JSON.parse` of the same text in the same run: the summary
 * (core/analysis/tokenizer/vocabulary.ts: ids, texts, each token's decoded text) and, for "Encode a text",
 * building the tokenizer with tokenizers.js and encoding 10,000 characters; and "Compare every token" of that
 * vocabulary against a copy with one token retexted and two merges swapped. Node, the worker's own code.
 */
import { encodeWith, loadTokenizer } from '../src/core/analysis/tokenizer/encode';
import {
  summarizeVocabulary,
  tokenListOfVocabulary,
  type VocabularySummary,
} from '../src/core/analysis/tokenizer/vocabulary';
import { diffVocabularies } from '../src/core/compare/vocabulary-diff';
import { llamaTokenizerJson, NO_ENCODING } from '../src/core/analysis/tokenizer/llama-tokenizer-json';
import type { TokenList } from '../src/core/analysis/tokenizer/tokenizer-types';

const RUNS = process.argv.includes('--short') ? 2 : 3;
const TOKENS = 262_144;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

function timed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

/** A byte-level BPE whose every token past the 256 bytes merges two earlier ones, so the file is one a BPE can use. */
export function byteLevelTokenizerJson(): string {
  const alphabet: string[] = [];
  let remapped = 256;
  for (let byte = 0; byte < 256; byte++) {
    const printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || (byte >= 174 && byte <= 255);
    alphabet.push(String.fromCodePoint(printable ? byte : remapped++));
  }
  const tokens = [...alphabet];
  const seen = new Set(tokens);
  const merges: string[] = [];
  for (let k = 0; tokens.length < TOKENS; k++) {
    const left = tokens[k % tokens.length];
    const right = tokens[(k * 7919 + 13) % Math.min(tokens.length, 4096)];
    const merged = left + right;
    if (merged.length <= 12 && !seen.has(merged)) {
      seen.add(merged);
      tokens.push(merged);
      merges.push(`${left} ${right}`);
    }
  }
  return JSON.stringify({
    version: '1.0',
    added_tokens: [{ id: TOKENS, content: '<|endoftext|>', special: true }],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      byte_fallback: false,
      vocab: Object.fromEntries(tokens.map((token, id) => [token, id])),
      merges,
    },
  });
}

export async function vocabularyBench(): Promise<void> {
  const text = byteLevelTokenizerJson();
  const sample = 'The quick brown fox jumps over the lazy dog; Ünïcödé and digits 0123456789. '
    .repeat(130)
    .slice(0, 10_000);
  const parses: number[] = [];
  const summaries: number[] = [];
  const builds: number[] = [];
  const encodes: number[] = [];
  const diffs: number[] = [];
  const read = summarizeVocabulary(JSON.parse(text), 'tokenizer.json') as VocabularySummary;
  const other = summarizeVocabulary(JSON.parse(text), 'tokenizer.json') as VocabularySummary;
  other.texts[1000] += 'x';
  const merges = other.mergeEntries as unknown[];
  [merges[500], merges[501]] = [merges[501], merges[500]];
  for (let run = 0; run < RUNS; run++) {
    diffs.push(timed(() => diffVocabularies(tokenListOfVocabulary(read), tokenListOfVocabulary(other))));
    parses.push(timed(() => JSON.parse(text)));
    summaries.push(timed(() => summarizeVocabulary(JSON.parse(text), 'tokenizer.json', text)));
    let tokenizer: ReturnType<typeof loadTokenizer> | null = null;
    builds.push(timed(() => (tokenizer = loadTokenizer(JSON.parse(text), {}))));
    encodes.push(timed(() => encodeWith(tokenizer as unknown as ReturnType<typeof loadTokenizer>, sample)));
  }
  const parse = median(parses);
  const ratio = (ms: number) => `${(ms / parse).toFixed(1)}× JSON.parse`;
  console.log(
    `\ntokenizer.json (Node, worker code): ${TOKENS} tokens, ${(text.length / 1e6).toFixed(1)} MB, ${RUNS} runs`,
  );
  console.log(`  JSON.parse of the text:            ${parse.toFixed(0)} ms`);
  console.log(
    `  Read tokenizer.json (parse + summary): ${median(summaries).toFixed(0)} ms (${ratio(median(summaries))})`,
  );
  console.log(`  Encode a text: build the tokenizer  ${median(builds).toFixed(0)} ms (${ratio(median(builds))})`);
  console.log(`  Encode a text: 10,000 characters    ${median(encodes).toFixed(0)} ms`);
  console.log(`  Compare every token (two summaries) ${median(diffs).toFixed(0)} ms (${ratio(median(diffs))})`);
  ggufTokenizerBench(read, ratio);
}

/**
 * Encode a text with a GGUF's own tokenizer: the same vocabulary as a GGUF's `gpt2` list (Llama 3's pre-tokenizer)
 * and as a `llama` SentencePiece list (each token scored by its id, so every token two others make is a merge):
 * writing the tokenizer.json (llama-tokenizer-json.ts) and its text, then tokenizers.js building from it.
 */
function ggufTokenizerBench(read: VocabularySummary, ratio: (ms: number) => string): void {
  const texts = read.texts.slice(0, TOKENS);
  const ids = texts.map((_, id) => id);
  const merges = (read.mergeEntries as string[]).map(String);
  const scores = new Float32Array(texts.length).map((_, id) => -id);
  const lists: Array<[string, TokenList]> = [
    ['gpt2, llama-bpe', { origin: 'gguf', model: 'gpt2', ids, texts, merges, pre: 'llama-bpe' }],
    [
      'llama (SentencePiece)',
      {
        origin: 'gguf',
        model: 'llama',
        ids,
        texts,
        merges: null,
        encoding: { ...NO_ENCODING, scores, addBos: false },
      },
    ],
  ];
  for (const [label, list] of lists) {
    const writes: number[] = [];
    const builds: number[] = [];
    let json: unknown = null;
    for (let run = 0; run < RUNS; run++) {
      writes.push(timed(() => (json = llamaTokenizerJson(list).json)));
      builds.push(timed(() => loadTokenizer(json, {})));
    }
    console.log(
      `  GGUF ${label}: tokenizer.json written ${median(writes).toFixed(0)} ms (${ratio(median(writes))}), ` +
        `tokenizers.js built ${median(builds).toFixed(0)} ms (${ratio(median(builds))}), both in the encoder's worker`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await vocabularyBench();
}
