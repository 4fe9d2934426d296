/**
 * config.json → the fields the memory estimate needs. Multimodal configs nest the language model in `text_config`
 * (Gemma 3, Llama 4, LLaVA, Mistral 3); field names differ by family, so each value is the first of its aliases
 * (the order vLLM's model_arch_config_convertor and transformers' get_text_config use).
 */
import { MAX_MODEL_LAYERS } from '../analysis-limits';
import { asNumber, asString, isRecord } from '../values';
import { readRopeScaling } from './context-limit';
import type { RopeScaling } from './memory-types';

type Json = Record<string, unknown>;

export interface MemoryConfig {
  modelType: string | null;
  /** The layer count, when it is 1..MAX_MODEL_LAYERS. */
  layers: number | null;
  /** A layer count given past MAX_MODEL_LAYERS (broken or hostile), left out of `layers`. */
  layersPastLimit: number | null;
  hidden: number | null;
  heads: number | null;
  kvHeads: number | null;
  /** False when no field gives the KV heads and kvHeads is the attention heads by default. */
  kvHeadsStated: boolean;
  /** head_dim as given, else hidden / heads (flagged in headDimSource). */
  headDim: number | null;
  /** 'head_dim' when given, else the two fields divided (`hidden_size / num_attention_heads`, `d_model / num_heads`). */
  headDimSource: string | null;
  /** The longest context the model takes: the position limit, extended by rope_scaling where vLLM extends it. */
  maxContext: number | null;
  maxContextSource: string | null;
  ropeScaling: RopeScaling | null;
  torchDtype: string | null;
  /** An encoder-decoder's input side: what its decoder's cross-attention caches per sequence; null for a decoder. */
  encoderInput: EncoderInput | null;
  /** The text config (or the root), for family-specific fields. */
  text: Json;
  root: Json;
}

/**
 * The encoder's output an encoder-decoder's cross-attention keeps keys and values of, per sequence: as many positions
 * as the input has, up to the encoder's limit; Whisper's encoder always sees 30 s of padded audio, so its
 * `max_source_positions` (1,500) are kept whatever the clip's length.
 */
export interface EncoderInput {
  /** The encoder's position limit, or null when it has none (T5's relative positions). */
  limit: number | null;
  /** The config field giving the limit. */
  field: string | null;
  /** Every sequence keeps `limit` positions (Whisper), not as many as its input has. */
  fixed: boolean;
}

/** Sub-configs that hold the language model, most common first (transformers get_text_config, plus a few VLMs). */
const TEXT_CONFIG_KEYS = ['text_config', 'llm_config', 'language_config', 'decoder', 'generator'];

const MAX_CONTEXT_FIELDS = [
  'max_position_embeddings',
  'n_positions',
  'max_seq_len',
  'seq_length',
  'max_sequence_length',
  'model_max_length',
  // Whisper's decoder (its max_source_positions are the encoder's).
  'max_target_positions',
];

export function first(record: Json, keys: readonly string[]): number | null {
  for (const key of keys) {
    const value = asNumber(record[key]);
    if (value !== null && Number.isFinite(value)) {
      return value;
    }
  }
  return null;
}

/**
 * config.json's names for the attention heads, the first found winning: an encoder-decoder's decoder's first (BART's
 * and Whisper's decoder_attention_heads; its main stack and its cache are the decoder's), T5's num_heads last.
 */
export const ATTENTION_HEADS_FIELDS = [
  'decoder_attention_heads',
  'num_attention_heads',
  'n_head',
  'n_heads',
  'num_heads',
];

/** config.json's names for the hidden size (the model width), the first found winning. */
export const HIDDEN_SIZE_FIELDS = ['hidden_size', 'n_embd', 'd_model'];

/** The first of `keys` holding a positive integer, and that integer; null when none does. */
function countField(record: Json, keys: readonly string[]): { field: string; value: number } | null {
  for (const field of keys) {
    const value = count(record, [field]);
    if (value !== null) {
      return { field, value };
    }
  }
  return null;
}

/** A positive integer field, or null. */
export function count(record: Json, keys: readonly string[]): number | null {
  const value = first(record, keys);
  return value !== null && Number.isInteger(value) && value > 0 ? value : null;
}

export function readMemoryConfig(raw: unknown): MemoryConfig | null {
  if (!isRecord(raw)) {
    return null;
  }
  const nestedKey = TEXT_CONFIG_KEYS.find((key) => isRecord(raw[key]));
  const text = (nestedKey ? raw[nestedKey] : raw) as Json;
  // An encoder-decoder's cache is its decoder's: BART's and Whisper's decoder_* fields, T5's num_decoder_layers.
  const givenLayers = count(text, [
    'num_decoder_layers',
    'decoder_layers',
    'num_hidden_layers',
    'n_layer',
    'num_layers',
    'n_layers',
  ]);
  const layers = givenLayers !== null && givenLayers <= MAX_MODEL_LAYERS ? givenLayers : null;
  const hiddenField = countField(text, HIDDEN_SIZE_FIELDS);
  const hidden = hiddenField?.value ?? null;
  const headsField = countField(text, ATTENTION_HEADS_FIELDS);
  const heads = headsField?.value ?? null;
  // Falcon's original layout says multi-query with a flag instead of a KV head count (vLLM get_total_num_kv_heads).
  const multiQuery = text.multi_query === true && text.new_decoder_architecture !== true;
  const givenKvHeads = count(text, ['n_head_kv', 'num_kv_heads', 'num_key_value_heads', 'multi_query_group_num']);
  const kvHeads = givenKvHeads ?? (multiQuery ? 1 : heads);
  // Zamba2's attention_head_dim: its shared attention runs on the concatenated (2 × hidden) input.
  const givenHeadDim = count(text, ['head_dim', 'hidden_size_per_head', 'attention_head_dim']);
  const headDim = givenHeadDim ?? (hidden !== null && heads !== null ? hidden / heads : null);
  let positionLimit: number | null = null;
  let positionField: string | null = null;
  for (const source of [text, raw]) {
    for (const field of MAX_CONTEXT_FIELDS) {
      const value = count(source, [field]);
      if (value !== null && positionLimit === null) {
        positionLimit = value;
        positionField = field;
      }
    }
  }
  const modelType = asString(text.model_type) ?? asString(raw.model_type);
  const ropeScaling = readRopeScaling(text, raw, modelType, positionLimit, positionField);
  const scaled = ropeScaling?.scaledContext ?? null;
  return {
    modelType,
    layers,
    layersPastLimit: givenLayers !== layers ? givenLayers : null,
    hidden,
    heads,
    kvHeads,
    kvHeadsStated: givenKvHeads !== null || typeof text.multi_query === 'boolean',
    headDim: headDim !== null && Number.isInteger(headDim) ? headDim : null,
    headDimSource:
      givenHeadDim !== null ? 'head_dim' : headDim !== null ? `${hiddenField?.field} / ${headsField?.field}` : null,
    maxContext: scaled ?? positionLimit,
    maxContextSource: scaled !== null && ropeScaling ? ropeScaling.formula : positionField,
    ropeScaling,
    torchDtype: asString(raw.torch_dtype) ?? asString(raw.dtype) ?? asString(text.torch_dtype) ?? asString(text.dtype),
    encoderInput: readEncoderInput(text, modelType),
    text,
    root: raw,
  };
}

function readEncoderInput(text: Json, modelType: string | null): EncoderInput | null {
  if (text.is_encoder_decoder !== true) {
    return null;
  }
  const limit = countField(text, ['max_source_positions', 'max_position_embeddings', 'n_positions']);
  return {
    limit: limit?.value ?? null,
    field: limit?.field ?? null,
    fixed: modelType === 'whisper' && limit?.field === 'max_source_positions',
  };
}

/** Routed experts per MoE layer, from the family's field name (the aliases vLLM reads). */
export function expertCount(config: MemoryConfig): number | null {
  return count(config.text, ['num_local_experts', 'n_routed_experts', 'num_experts', 'moe_num_experts']);
}

/** Experts each token is routed to. */
export function expertsPerToken(config: MemoryConfig): number | null {
  return count(config.text, ['num_experts_per_tok', 'num_experts_per_token', 'experts_per_token', 'top_k', 'moe_topk']);
}

export function sharedExpertCount(config: MemoryConfig): number {
  const shared = count(config.text, ['n_shared_experts', 'num_shared_experts']);
  if (shared !== null) {
    return shared;
  }
  return count(config.text, ['shared_expert_intermediate_size']) !== null ? 1 : 0;
}
