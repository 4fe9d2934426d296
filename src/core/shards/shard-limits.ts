/** Hard limits for sharded models and their index file, each with the reason it exists. */
import { MAX_JSON_DEPTH } from '../limits';

/**
 * Largest index file we read: huggingface.js uses the same bound. The largest real index (Kimi-K3, ~497k tensors)
 * is about 60 MB, so this leaves 4× headroom while keeping a hostile file from exhausting the worker's memory.
 */
export const MAX_INDEX_BYTES = 250_000_000;

/** Distinct shard files one index may name (huggingface.js's bound); also keeps shard ids inside a Uint16Array. */
export const MAX_SHARD_FILES = 10_000;

/** weight_map entries: 10× the largest real index; bounds the compact name tables to about 100 MB. */
export const MAX_INDEX_ENTRIES = 5_000_000;

/** JSON nesting followed in an index; real ones nest 2 deep, as for headers this stops stack-depth attacks. */
export const MAX_INDEX_DEPTH = MAX_JSON_DEPTH;

/**
 * Longest single JSON token (string, number, literal). The streaming scanner carries an unfinished token into the
 * next chunk by copying it, so an unbounded token would make every chunk re-copy a growing tail (quadratic time);
 * real tensor and shard names are a few hundred bytes.
 */
export const MAX_INDEX_TOKEN_BYTES = 1_000_000;

/** `metadata` entries kept: real indexes carry one or two (total_size, total_parameters); the rest are ignored. */
export const MAX_INDEX_METADATA_ENTRIES = 1_000;

/** Source bytes kept of one non-string metadata value (an object or array shown as JSON text). */
export const MAX_INDEX_METADATA_VALUE_BYTES = 100_000;

/** Ollama manifests read from one dropped store: far past any store's model count, short of reading a disk's worth. */
export const MAX_OLLAMA_MANIFESTS = 2_000;

/** Bytes of one Ollama manifest: real ones list a handful of layers in under 1 KB; a bigger file is not one. */
export const MAX_OLLAMA_MANIFEST_BYTES = 64 * 1024;

/** Bytes of a Hugging Face cache ref file worth reading: a 40-character commit id and maybe a newline. */
export const MAX_HUB_REF_BYTES = 256;

/** Ref files read from one dropped cache: a branch or two per repository, for a cache of hundreds of models. */
export const MAX_HUB_REFS = 2_000;
