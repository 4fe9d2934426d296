/**
 * How llama.cpp splits a text before byte-level BPE, by the GGUF's `tokenizer.ggml.pre` (llama.cpp's
 * src/llama-vocab.cpp, the pre-type mapping in `llama_vocab::impl::load` and the pattern lists in the
 * `llm_tokenizer_bpe` constructor). Each pattern splits the pieces the one before it left, and text a pattern does
 * not match stays a piece of its own (unicode.cpp's `unicode_regex_split`): the tokenizers library's Split with the
 * `Isolated` behaviour, one Split per pattern.
 *
 * The table (llama-pre-tokenizers.json, shared with scripts/gguf-encode-fixtures.py, which records how the
 * tokenizers library splits sample texts with each list) holds the lists that are plain regular expressions. Left
 * out: those llama.cpp runs through a hand-written splitter named by a placeholder pattern (kimi-k2's `\p{Han}+`,
 * afmoe's and tiny_aya's digit groups), the ones that skip the byte alphabet (gemma4, sarvam-moe, whitespace), and a
 * few whose patterns hold long literal character classes (deepseek-llm, chameleon, youtu), and some of the newest
 * (`notEncoded`). Those, and names newer than the table, are reported as not encoded.
 */
import table from './llama-pre-tokenizers.json';

/** One row of the table: the names llama.cpp maps to one pattern list, with what it sets beside it. */
export interface LlamaPreTokenizer {
  /** The pattern list's name in the table (`llama3`, `gpt2`, `qwen2`…), its patterns and its words. */
  name: string;
  patterns: readonly string[];
  label: string;
  /** The tokenizer.ggml.pre values that select this row. */
  names: readonly string[];
  /** A piece that is a whole token is taken as it is, before any merge (llama.cpp's ignore_merges). */
  ignoreMerges: boolean;
  /** llama.cpp puts BOS before the text for this pre-tokenizer unless tokenizer.ggml.add_bos_token says otherwise. */
  addBos: boolean;
}

interface TableEntry {
  patterns: string;
  names: string[];
  ignoreMerges?: boolean;
  addBos?: boolean;
}

const PATTERNS: Readonly<Record<string, readonly string[]>> = table.patterns;

export const LLAMA_PRE_TYPES: readonly LlamaPreTokenizer[] = (table.types as TableEntry[]).map((entry) => ({
  name: entry.patterns,
  patterns: PATTERNS[entry.patterns],
  label: (table.labels as Record<string, string>)[entry.patterns] ?? entry.patterns,
  names: entry.names,
  ignoreMerges: entry.ignoreMerges ?? false,
  addBos: entry.addBos ?? false,
}));

const BY_NAME: ReadonlyMap<string, LlamaPreTokenizer> = new Map(
  LLAMA_PRE_TYPES.flatMap((type) => type.names.map((name) => [name, type] as const)),
);

/**
 * The splitting of a `tokenizer.ggml.pre` value; a GGUF without one gets llama.cpp's default list (it warns that
 * generation quality will be degraded); null for a name the table does not hold.
 */
export function preTokenizerOf(pre: string | null): LlamaPreTokenizer | null {
  return BY_NAME.get(pre === null || pre === '' ? 'default' : pre) ?? null;
}

/**
 * Every `tokenizer.ggml.pre` llama.cpp's loader knows (the table's and those it splits by code of its own); any other
 * name makes it refuse the file ("unknown pre-tokenizer type"). As of the llama.cpp read for this table; newer builds
 * add names.
 */
export const LLAMA_CPP_PRE_NAMES: ReadonlySet<string> = new Set([...BY_NAME.keys(), ...table.notEncoded]);

/** What a `tokenizer.ggml.pre` means to llama.cpp, in a few words for the GGUF tab. */
export function describePreTokenizer(pre: string | null): string {
  if (pre === null || pre === '') {
    return 'none named: llama.cpp falls back to its default pattern list';
  }
  const known = BY_NAME.get(pre);
  if (known !== undefined) {
    return `${pre}: ${known.label}${known.ignoreMerges ? ', whole-word tokens taken as they are' : ''}`;
  }
  return LLAMA_CPP_PRE_NAMES.has(pre)
    ? `${pre}: split by llama.cpp's own code, not encoded here`
    : `${pre}: not a name llama.cpp knew when this viewer was built`;
}

/** Every pattern list by its table name, for the tests that check each against the tokenizers library. */
export const PRE_TOKENIZER_PATTERNS = PATTERNS;
