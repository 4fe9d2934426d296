/**
 * Caps the GGUF reader applies before it trusts a count or a length read from the file. Each keeps a crafted file
 * from running the tab out of memory or time; each is far above what real files hold (the largest real headers are
 * tokenizer arrays of a few hundred thousand entries, about 8 MB in all). Crossing one ends the read with a
 * `gguf-limit-exceeded` finding.
 */

/** Key-value pairs in one header: real files hold tens to a few hundred. */
export const MAX_KV_COUNT = 100_000;

/** Tensor infos in one file: the biggest real models (unfused MoE experts) hold tens of thousands. */
export const MAX_TENSOR_COUNT = 1_000_000;

/** Elements in one metadata array: the largest real ones (vocabularies, BPE merges) hold under 300,000. */
export const MAX_ARRAY_LENGTH = 4_000_000;

/** Bytes in one string: chat templates, the longest real strings, are tens of kilobytes. */
export const MAX_STRING_LENGTH = 16 * 1024 * 1024;

/** Arrays nested in arrays: the spec allows them, no real writer emits them, and recursion must end. */
export const MAX_ARRAY_DEPTH = 4;

/** Dimensions of one tensor: ggml's GGML_MAX_DIMS, so llama.cpp refuses more and so do we. */
export const MAX_TENSOR_DIMS = 4;

/** Bytes of header (key-values and tensor infos) the reader fetches: 16 times the largest real header. */
export const MAX_HEADER_BYTES = 128 * 1024 * 1024;

/** Tensor names ggml accepts are shorter than GGML_MAX_NAME (64 bytes, the terminating NUL included). */
export const GGML_MAX_NAME_BYTES = 63;

/** Items of each metadata array shown; the rest is counted, and token lists are paged on demand. */
export const ARRAY_SAMPLE_ITEMS = 8;

/**
 * A numeric or boolean array up to this long is kept whole: per-layer values (`head_count_kv`, `feed_forward_length`,
 * `sliding_window_pattern`) hold one item per block, and the memory estimate needs every layer's. It matches the
 * estimate's own cap on block_count (MAX_MODEL_LAYERS), far above any published model's few hundred layers;
 * longer arrays are not per-layer and keep ARRAY_SAMPLE_ITEMS.
 */
export const MAX_PER_LAYER_ARRAY_ITEMS = 4096;

/** Special and added tokens listed in the tokenizer summary; a vocabulary of added tokens past this is counted. */
export const MAX_LISTED_TOKENS = 256;

/** Tokens one page request returns, so a page crosses to the page as one small message. */
export const MAX_TOKEN_PAGE = 1_000;

/**
 * Least first read of a local GGUF header after the 8-byte sniff: local reads are cheap, yet the reader should read
 * about the header only (as it does remotely), so this stays near a small header's size.
 */
export const LOCAL_FIRST_CHUNK = 64 * 1024;

/**
 * Margin over the estimated rest of the header in each further read: the estimate extrapolates the string lengths
 * seen so far, and a read that falls short costs a whole round trip, while 20% more costs only bytes.
 */
export const READ_AHEAD_FACTOR = 1.2;

/** Least growth of the bytes held per further read: geometric, yet never more than 1.5 times the header's bytes. */
export const MIN_GROWTH = 1.5;
