/**
 * What llama.cpp decides per architecture when it sizes a GGUF model's memory, beyond the `{arch}.*` keys
 * themselves: which architectures get no memory at all, which are recurrent only, which layers reuse another
 * layer's cache, and the sliding-window patterns it hard-codes. Each rule names the place in llama.cpp
 * (ggml-org/llama.cpp `src/llama-model.cpp` `create_memory`, `src/llama-arch.cpp`, `src/models/*.cpp`).
 */
import type { GgufKeys } from './gguf-inputs';

export type GgufAttention = 'full' | 'sliding' | 'chunked';

/** Why llama.cpp keeps no memory for a kind of model, and whether its output is embeddings rather than logits. */
interface NoMemoryKind {
  reason: string;
  embeddingsOut: boolean;
}

const ENCODER: NoMemoryKind = {
  reason:
    'an encoder that reads its whole input in one pass (embeddings, reranking, classification) and keeps nothing between calls',
  embeddingsOut: true,
};
const DIFFUSION: NoMemoryKind = {
  reason:
    'a diffusion language model: the diffusion runner of llama.cpp denoises the whole sequence at every step and caches no keys or values',
  embeddingsOut: false,
};
const AUDIO_DECODER: NoMemoryKind = {
  reason: 'an audio decoder that turns codes into a waveform in one pass',
  embeddingsOut: false,
};

/**
 * Architectures `create_memory` gives no memory (it returns none): no KV cache and no recurrent state, whatever the
 * attention keys say.
 */
const NO_MEMORY_ARCHS: ReadonlyMap<string, NoMemoryKind> = new Map([
  ['bert', ENCODER],
  ['modern-bert', ENCODER],
  ['nomic-bert', ENCODER],
  ['nomic-bert-moe', ENCODER],
  ['neo-bert', ENCODER],
  ['jina-bert-v2', ENCODER],
  ['jina-bert-v3', ENCODER],
  ['eurobert', ENCODER],
  ['gemma-embedding', ENCODER],
  ['wavtokenizer-dec', AUDIO_DECODER],
  ['dream', DIFFUSION],
  ['llada', DIFFUSION],
  ['llada-moe', DIFFUSION],
  ['rnd1', DIFFUSION],
]);

/** Why llama.cpp allocates no memory for this architecture (what the user reads), or null when it does. */
export function noMemoryReason(arch: string): string | null {
  return NO_MEMORY_ARCHS.get(arch)?.reason ?? null;
}

/**
 * The encoders among them: their output is one embedding per token (or per input), not logits over the vocabulary.
 * The diffusion models do produce logits.
 */
export function outputsEmbeddings(arch: string): boolean {
  return NO_MEMORY_ARCHS.get(arch)?.embeddingsOut ?? false;
}

/**
 * Architectures whose every layer is recurrent (`llm_arch_is_recurrent`): llama.cpp gives them a recurrent state
 * only, so attention keys some of them carry (RWKV6-Qwen2's head counts) size no cache.
 */
const RECURRENT_ONLY_ARCHS = new Set(['mamba', 'mamba2', 'rwkv6', 'rwkv6qwen2', 'rwkv7', 'arwkv7']);

export function isRecurrentOnly(arch: string): boolean {
  return RECURRENT_ONLY_ARCHS.has(arch);
}

/** Architectures whose every layer has attention and a Mamba2 mixer side by side. */
const PARALLEL_SSM = new Set(['falcon-h1']);

export function hasParallelSsm(arch: string): boolean {
  return PARALLEL_SSM.has(arch);
}

/** llama.cpp's Llama 4 chunked attention: 8192 tokens, hard-coded (`n_attn_chunk`). */
const LLAMA4_CHUNK = 8192;

export interface SlidingDefault {
  /** n: layer i slides iff n = 0 or i % n < n − 1 (`set_swa_pattern`); 0 = every attention layer slides. */
  pattern: number;
  /** The window when the file has no `attention.sliding_window`. */
  window: number | null;
  kind: GgufAttention;
}

/**
 * Sliding-window patterns llama.cpp applies per architecture when the file carries no pattern key
 * (`hparams.set_swa_pattern(n)` in each model's `load_arch_hparams`). LFM2 slides every attention layer once the
 * file sets a window.
 */
const SWA_DEFAULTS: ReadonlyMap<string, SlidingDefault> = new Map([
  ['gemma2', { pattern: 2, window: 4096, kind: 'sliding' }],
  ['gemma3', { pattern: 6, window: null, kind: 'sliding' }],
  ['gemma3n', { pattern: 5, window: null, kind: 'sliding' }],
  ['cohere2', { pattern: 4, window: null, kind: 'sliding' }],
  ['olmo2', { pattern: 4, window: null, kind: 'sliding' }],
  ['afmoe', { pattern: 4, window: null, kind: 'sliding' }],
  ['exaone-moe', { pattern: 4, window: 128, kind: 'sliding' }],
  ['plamo3', { pattern: 8, window: null, kind: 'sliding' }],
  ['gpt-oss', { pattern: 2, window: null, kind: 'sliding' }],
  ['llama4', { pattern: 4, window: LLAMA4_CHUNK, kind: 'chunked' }],
  ['lfm2', { pattern: 0, window: null, kind: 'sliding' }],
  ['lfm2moe', { pattern: 0, window: null, kind: 'sliding' }],
]);

export function slidingDefault(arch: string): SlidingDefault | null {
  return SWA_DEFAULTS.get(arch) ?? null;
}

/** Gemma 3n's layers with a KV cache of their own: the first 20, hard-coded (`n_layer_kv_from_start = 20`). */
const GEMMA3N_LAYERS_WITH_KV = 20;

/**
 * The first layers that keep a KV cache of their own; the later ones read the cache of the last full or sliding
 * layer before them (`llama_hparams::has_kv`, the `reuse` callback of `create_memory`). Null when every layer keeps
 * its own. Gemma 4 takes the count from `attention.shared_kv_layers`; Gemma 3n's is hard-coded.
 */
export function layersWithOwnKv(keys: GgufKeys, blocks: number): { count: number; source: string } | null {
  if (keys.arch === 'gemma3n') {
    const count = Math.min(blocks, GEMMA3N_LAYERS_WITH_KV);
    return count < blocks ? { count, source: `llama.cpp's gemma3n rule: the first ${count} layers` } : null;
  }
  if (keys.arch === 'gemma4') {
    const shared = keys.int('attention.shared_kv_layers');
    if (shared === null || shared <= 0 || shared >= blocks) {
      return null;
    }
    return { count: blocks - shared, source: `attention.shared_kv_layers ${shared}` };
  }
  return null;
}
