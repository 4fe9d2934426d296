/**
 * What config.json (or params.json) says of a model's architecture, in the names the architecture analysis uses, or
 * the same figures from a GGUF's own key-values. Pure.
 */
import type { ParsedHeader } from '../model';
import type { ConfigFile } from './analysis-types';
import { GgufKeys } from './memory/gguf-inputs';
import { ggufMetadataOf } from './memory/gguf-section';
import { ATTENTION_HEADS_FIELDS, first, HIDDEN_SIZE_FIELDS } from './memory/config';
import { asNumber, asString, isRecord } from './values';

export interface ModelConfig {
  /** Where the figures come from: a config.json (or params.json) beside the weights, or a GGUF's own key-values. */
  source: ConfigFile | 'GGUF metadata';
  modelType: string | null;
  heads: number | null;
  kvHeads: number | null;
  headDim: number | null;
  hidden: number | null;
  /** `num_hidden_layers` and `vocab_size` (null beside a `padded_vocab_size`, which is what such models build). */
  layers: number | null;
  vocab: number | null;
  /** The token embedding's width: hidden_size, unless the config projects it (OPT's word_embed_proj_dim). */
  embeddingWidth: number | null;
  /** A causal LM's config, whose fields mean the same in every family (config-agreement.ts checks those). */
  causalLm: boolean;
  /** `tie_word_embeddings` when the config writes it (true or false); null when it does not. */
  tieWordEmbeddings: boolean | null;
}

export function readConfig(config: unknown, file: ConfigFile): ModelConfig | null {
  if (!isRecord(config)) {
    return null;
  }
  const text = isRecord(config.text_config) ? config.text_config : config;
  const architectures = Array.isArray(config.architectures) ? asString(config.architectures[0]) : null;
  const heads = first(text, ATTENTION_HEADS_FIELDS);
  // Zamba2's attention_head_dim: its shared attention runs on the concatenated (2 × hidden) input.
  const headDim = asNumber(text.head_dim) ?? asNumber(text.attention_head_dim) ?? asNumber(text.d_kv);
  // DistilBERT writes dim.
  const hidden = first(text, [...HIDDEN_SIZE_FIELDS, 'dim']);
  return {
    source: file,
    modelType: asString(config.model_type) ?? architectures,
    heads,
    kvHeads: asNumber(text.num_key_value_heads),
    headDim: headDim ?? (heads !== null && hidden !== null ? hidden / heads : null),
    hidden,
    layers: asNumber(text.num_hidden_layers) ?? asNumber(text.n_layer) ?? asNumber(text.n_layers),
    vocab: text.padded_vocab_size === undefined ? asNumber(text.vocab_size) : null,
    embeddingWidth: asNumber(text.word_embed_proj_dim) ?? asNumber(text.embedding_size) ?? hidden,
    causalLm: text === config && (file === 'params.json' || /(?:ForCausalLM|LMHeadModel)$/.test(architectures ?? '')),
    tieWordEmbeddings: typeof config.tie_word_embeddings === 'boolean' ? config.tie_word_embeddings : null,
  };
}

/**
 * The same figures from a GGUF's key-values (llama.cpp's names, `{arch}.attention.head_count` …), which say what a
 * config.json would: the family (`general.architecture`), heads, KV heads, head size and width. Head counts may be
 * one per layer (hybrid models write 0 for their recurrent layers): the first non-zero one is the attention's.
 */
export function ggufConfig(header: ParsedHeader): ModelConfig | null {
  const read = ggufMetadataOf(header);
  if (read === null) {
    return null;
  }
  const keys = new GgufKeys(read.metadata);
  if (keys.arch === '') {
    return null;
  }
  const layers = keys.blockCount() ?? 1;
  const firstNonZero = (suffix: string) => keys.perLayer(suffix, layers)?.find((count) => count > 0) ?? null;
  // A multimodal projector (mmproj, general.architecture clip) keeps its encoder's figures under clip.vision.
  const prefix = keys.has('attention.head_count') || !keys.has('vision.attention.head_count') ? '' : 'vision.';
  const heads = firstNonZero(`${prefix}attention.head_count`);
  const hidden = keys.int(`${prefix}embedding_length`);
  return {
    source: 'GGUF metadata',
    modelType: keys.arch,
    heads,
    kvHeads: firstNonZero(`${prefix}attention.head_count_kv`),
    headDim:
      keys.int(`${prefix}attention.key_length`) ??
      (heads !== null && hidden !== null && hidden % heads === 0 ? hidden / heads : null),
    hidden,
    // llama.cpp checks a GGUF's own key-values against its tensors when it loads; the config check is not repeated.
    layers: null,
    vocab: null,
    embeddingWidth: null,
    causalLm: false,
    tieWordEmbeddings: null,
  };
}
