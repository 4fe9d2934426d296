/**
 * The memory section: what the model needs to run and train, from the header's exact weight bytes and config.json's
 * attention layout. Plain serializable data (it crosses the worker boundary and is exported as JSON). The fields the
 * report schema promises come first; the rest is what the Memory view needs to recompute at other contexts, batch
 * sizes and cache dtypes with `estimateMemory` (estimate.ts), without the header.
 */

/** The KV cache element type. bf16/fp16: 2 bytes; fp8 (e4m3/e5m2, per-tensor scales outside the cache): 1 byte. */
export type CacheDtype = 'bf16' | 'fp16' | 'fp8';

export const CACHE_DTYPE_BYTES: Readonly<Record<CacheDtype, number>> = { bf16: 2, fp16: 2, fp8: 1 };

/** Where the weights go: the sections of the weight bytes. */
export type WeightPart = 'embeddings' | 'attention' | 'mlp' | 'experts' | 'shared-experts' | 'vision' | 'mtp' | 'other';

export interface WeightPartTotal {
  part: WeightPart;
  tensors: number;
  bytes: number;
  /** Logical parameters: packed containers unpacked, quantization scales and zeros not counted. */
  params: number;
}

export interface WeightDtypeTotal {
  dtype: string;
  tensors: number;
  bytes: number;
}

export interface WeightsSummary {
  /** Stored bytes of every tensor in the header(s): the exact size of the weights once loaded as stored. */
  bytes: number;
  params: number;
  byDtype: WeightDtypeTotal[];
  byPart: WeightPartTotal[];
  /** How the parameters were counted (packed formats). */
  paramsNote: string;
  /** Which bytes the weights figure sums: every tensor, or a checkpoint's model-weights storages once. */
  bytesBasis: string;
}

/** Attention layers that share one per-token cost and one window. */
export interface KvLayerGroup {
  /** e.g. `full attention`, `sliding window (128 tokens)`, `MLA latent`. */
  label: string;
  layers: number;
  /** Cache elements per token per layer: 2 × kv heads × head dim, or kv_lora_rank + qk_rope_head_dim for MLA. */
  elementsPerToken: number;
  /** Tokens kept at most (sliding or chunked attention); null = the whole context. */
  window: number | null;
  /** How elementsPerToken was computed, with the numbers. */
  formula: string;
}

/** Fixed-size state of linear-attention / state-space layers: per sequence, whatever the context. */
export interface RecurrentState {
  /** e.g. `Mamba2`, `Gated DeltaNet`. */
  kind: string;
  layers: number;
  /** Elements per layer per sequence kept in the model dtype (conv state). */
  convElements: number;
  /** Elements per layer per sequence of the recurrent (SSM) state. */
  recurrentElements: number;
  /** Bytes per element: 2 (model dtype) or 4 (fp32 SSM state, when the config asks for it). */
  convBytes: number;
  recurrentBytes: number;
  bytesPerSequence: number;
  formula: string;
}

/**
 * A cross-attention cache: each cross-attention layer keeps the keys and values of what it attends to, computed once
 * per sequence: an encoder-decoder's encoder output, which grows with the input, or Llama 3.2 Vision's image tiles.
 */
export interface CrossAttentionCache {
  /** What the layers attend to: `cross-attention to the encoder output`, `cross-attention to the image`. */
  label: string;
  /** What one kept position is: `encoder positions`, `image positions` (fixed), or `input tokens`. */
  positions: string;
  layers: number;
  /** Cache elements per input position per layer: 2 × heads × head dim, as the decoder's self-attention. */
  elementsPerToken: number;
  /** Input positions kept at most: the encoder's position limit; null when it has none (T5's relative positions). */
  inputLimit: number | null;
  /** Every sequence keeps inputLimit positions (Whisper pads every clip to 30 s), whatever its length. */
  fixedInput: boolean;
  /** How elementsPerToken and the input positions were found, with the numbers. */
  formula: string;
}

export interface KvModel {
  /** `none`: no layer attends (a state-space model); `encoder`: it attends over its whole input and caches nothing. */
  attention: 'MHA' | 'GQA' | 'MQA' | 'MLA' | 'mixed' | 'none' | 'encoder';
  /** Self-attention layers: what one more generated token adds (an encoder-decoder's decoder). */
  groups: KvLayerGroup[];
  /** Cross-attention layers' cache (an encoder-decoder's, Llama 3.2 Vision's); absent for a plain decoder. */
  crossAttention?: CrossAttentionCache;
  state: RecurrentState | null;
  /** Statements about what was assumed or left out (MTP layer, unknown sliding rule…). */
  notes: string[];
}

export interface MoeSummary {
  experts: number;
  topK: number | null;
  sharedExperts: number;
  /** Parameters of the routed experts (MTP layers excluded). */
  routedParams: number;
  /** Logical parameters: MTP layers and towers excluded, a tied embedding stored twice counted once. */
  totalParams: number;
  /** Parameters a token goes through, both embeddings counted (Mistral's and Qwen's convention). */
  activeParams: number | null;
  /**
   * The same without the input embedding, a lookup rather than a matmul (OpenAI's convention for gpt-oss). Equal to
   * activeParams when the embeddings are tied: the one matrix is also the LM head.
   */
  activeParamsWithoutInputEmbedding: number | null;
  /** Token (and position) embedding parameters. */
  inputEmbeddingParams: number;
  /** The LM head is the input embedding (tie_word_embeddings, or no LM head tensor in the header). */
  tiedEmbeddings: boolean;
  formula: string;
}

export interface LoraEstimate {
  rank: number;
  /** Linear weights adapted: attention and dense MLP projections (experts left frozen). */
  modules: number;
  trainableParams: number;
  formula: string;
}

/** config.json's rope_scaling, and what it does to the maximum context. */
export interface RopeScaling {
  /** rope_type (or the older `type`): yarn, linear, dynamic, llama3, longrope… */
  type: string;
  factor: number;
  /** original_max_position_embeddings, in rope_scaling or at the config's root (Phi-3); null when absent. */
  originalContext: number | null;
  /** The context the scaling reaches when it extends the position limit; null when the limit already includes it. */
  scaledContext: number | null;
  /** max_position_embeddings (or its alias) and that field's name. */
  positionLimit: number | null;
  positionField: string | null;
  formula: string;
}

export interface MemoryContext {
  tokens: number;
  batch: number;
  kvBytes: number;
  totalBytes: number;
}

export interface MemorySection {
  weightsBytes: number;
  /** KV bytes one more token costs while every attention layer still grows (windows not yet full), in cacheDtype. */
  kvBytesPerToken: number;
  cacheDtype: CacheDtype;
  contexts: MemoryContext[];
  activeParams?: number;
  /**
   * Where the attention layout came from: config.json (or the reference code's params.json), a guess from tensor
   * names, or a GGUF's own metadata.
   */
  config: 'config.json' | 'params.json' | 'inferred' | 'gguf';
  /** Model's maximum context (rope scaling included as vLLM derives it) and where it came from; null when unknown. */
  maxContext: number | null;
  maxContextSource: string | null;
  /** config.json's rope_scaling when it scales; null when absent or without config.json. */
  ropeScaling: RopeScaling | null;
  /** Attention heads and KV heads from config.json: the tensor-parallel sizes must divide them. Null when unknown. */
  attentionHeads: number | null;
  kvHeads: number | null;
  modelType: string | null;
  weights: WeightsSummary;
  /** null when neither config.json nor the header says how attention is laid out (not a decoder, a diffusion model). */
  kv: KvModel | null;
  moe?: MoeSummary;
  lora: LoraEstimate | null;
  /** How each figure was obtained, in plain sentences. */
  evidence: string[];
}
