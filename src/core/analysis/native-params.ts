/**
 * `params.json`: the config of the checkpoints Mistral's and Meta's reference code load (`consolidated.safetensors`,
 * `consolidated.00.pth`, with names like `layers.0.attention.wq.weight`), written beside them instead of, or as well
 * as, transformers' config.json. The analyses read config.json's field names, so params.json is mapped onto them the
 * way vLLM's Mistral format adapter maps it (vllm/transformers_utils/configs/mistral.py, `adapt_config_dict`):
 * `dim` → hidden_size, `n_layers` → num_hidden_layers, `n_heads` → num_attention_heads, `n_kv_heads` →
 * num_key_value_heads, `hidden_dim` → intermediate_size; `moe`, `sliding_window`, `yarn` and `quantization` become
 * their config.json counterparts; every other key (head_dim, rope_theta, vocab_size, MLA widths) keeps its name.
 * Pure: no IO.
 */
import { MAX_MODEL_LAYERS } from './analysis-limits';
import { asNumber, isRecord } from './values';

type Json = Record<string, unknown>;

/** The file name, as the reference repositories spell it. */
export const NATIVE_PARAMS_FILE = 'params.json';

/**
 * Weights the reference code loads by name, whose config is params.json when one lies beside them: Mistral's
 * `consolidated.safetensors` (split as `consolidated-00001-of-00002.safetensors` for the largest; older releases
 * `consolidated.00.pth`) and Meta's `consolidated.00.pth` … `.07.pth`.
 */
const NATIVE_WEIGHTS_NAME = /^consolidated(?:\.\d{2}|-\d{5}-of-\d{5})?\.(?:safetensors|pth)$/i;

/** Whether `path`'s file name is one of the reference code's weight files (NATIVE_WEIGHTS_NAME). */
export function isNativeWeightsFile(path: string): boolean {
  return NATIVE_WEIGHTS_NAME.test(path.slice(path.lastIndexOf('/') + 1));
}

/** Meta's model-parallel part files (`consolidated.03.pth`): one per rank of the reference code. */
const PART_FILE_NAME = /^consolidated\.(\d{2})\.pth$/i;

/** The rank of a reference part file (`consolidated.03.pth` → 3), or null for any other name. */
export function nativePartNumber(path: string): number | null {
  const match = PART_FILE_NAME.exec(path.slice(path.lastIndexOf('/') + 1));
  return match ? Number(match[1]) : null;
}

/** Whether `path`'s file name is params.json. */
export function isNativeParamsFile(path: string): boolean {
  return path.slice(path.lastIndexOf('/') + 1).toLowerCase() === NATIVE_PARAMS_FILE;
}

/** params.json key → config.json key, for the fields that only change their name. */
const RENAMED: ReadonlyArray<readonly [string, string]> = [
  ['dim', 'hidden_size'],
  ['n_layers', 'num_hidden_layers'],
  ['n_heads', 'num_attention_heads'],
  ['n_kv_heads', 'num_key_value_heads'],
  ['hidden_dim', 'intermediate_size'],
  ['norm_eps', 'rms_norm_eps'],
  ['tied_embeddings', 'tie_word_embeddings'],
];

/** The `moe` block of a Mistral Large 3 style params.json (shared experts), in DeepSeek-V3's config.json names. */
const SHARED_EXPERT_MOE: ReadonlyArray<readonly [string, string]> = [
  ['num_experts', 'n_routed_experts'],
  ['num_experts_per_tok', 'num_experts_per_tok'],
  ['num_shared_experts', 'n_shared_experts'],
  ['expert_hidden_dim', 'moe_intermediate_size'],
  ['first_k_dense_replace', 'first_k_dense_replace'],
  ['route_every_n', 'moe_layer_freq'],
];

/**
 * Whether a parsed JSON value is a params.json: the three figures every one of them gives (Mistral's ModelArgs and
 * Meta's alike). A `params.json` of anything else (training hyperparameters) is not read as a model config.
 */
function looksLikeNativeParams(raw: Json): boolean {
  return ['dim', 'n_layers', 'n_heads'].every((key) => {
    const value = raw[key];
    return typeof value === 'number' && Number.isInteger(value) && value > 0;
  });
}

/** The family params.json stands for, as config.json's model_type would name it. */
function modelTypeOf(raw: Json, moe: Json | null): string {
  if (typeof raw.model_type === 'string' && raw.model_type !== 'transformer') {
    return raw.model_type;
  }
  if (moe !== null) {
    return (asNumber(moe.num_shared_experts) ?? 0) > 0 ? 'deepseek_v3' : 'mixtral';
  }
  // Meta's Llama params.json sizes the MLP with multiple_of and gives no hidden_dim; Mistral's gives hidden_dim.
  return raw.hidden_dim === undefined && raw.multiple_of !== undefined ? 'llama' : 'mistral';
}

/**
 * Meta's reference FeedForward width (llama/model.py): 2/3 of 4 × dim, times ffn_dim_multiplier when given, rounded
 * up to a multiple of multiple_of. Llama 3 8B: 4096 → 14,336.
 */
function metaFeedForwardWidth(dim: number, multipleOf: number, multiplier: number | null): number {
  let hidden = Math.trunc((2 * 4 * dim) / 3);
  if (multiplier !== null) {
    hidden = Math.trunc(multiplier * hidden);
  }
  return multipleOf * Math.ceil(hidden / multipleOf);
}

/** `sliding_window` as vLLM maps it: one window for every layer, or a per-layer pattern (null = full attention). */
function slidingWindowFields(window: unknown, layers: number): Json {
  if (layers > MAX_MODEL_LAYERS) {
    // A hostile or broken layer count: the memory estimate ignores it (memory/config.ts), so no pattern is laid out.
    return {};
  }
  if (typeof window === 'number' && window > 0) {
    return { sliding_window: window, layer_types: Array.from({ length: layers }, () => 'sliding_attention') };
  }
  if (Array.isArray(window) && window.length > 0 && layers % window.length === 0) {
    const sizes = window.filter((size): size is number => typeof size === 'number' && size > 0);
    if (new Set(sizes).size > 1) {
      return {};
    }
    const layerTypes: string[] = [];
    for (let layer = 0; layer < layers; layer++) {
      layerTypes.push(typeof window[layer % window.length] === 'number' ? 'sliding_attention' : 'full_attention');
    }
    return sizes.length > 0 ? { sliding_window: sizes[0], layer_types: layerTypes } : {};
  }
  return {};
}

/** `quantization` as config.json's quantization_config: FP8 weights, or a compressed-tensors config as given. */
function quantizationConfigOf(quantization: unknown): Json | null {
  if (!isRecord(quantization)) {
    return null;
  }
  if (quantization.qformat_weight === 'fp8_e4m3') {
    const dynamic = quantization.qscheme_act === 'NO_SCALES';
    return { quant_method: 'fp8', activation_scheme: dynamic ? 'dynamic' : 'static' };
  }
  const method = typeof quantization.quant_method === 'string' ? quantization.quant_method : '';
  if (method.toLowerCase().replace(/_/g, '-') === 'compressed-tensors') {
    return { ...quantization, quant_method: 'compressed-tensors' };
  }
  return null;
}

/** `yarn` as config.json's rope_scaling (beta → beta_fast, alpha → beta_slow). */
function ropeScalingOf(yarn: unknown): Json | null {
  if (!isRecord(yarn)) {
    return null;
  }
  const scaling: Json = { rope_type: 'yarn' };
  for (const [from, to] of [
    ['factor', 'factor'],
    ['original_max_position_embeddings', 'original_max_position_embeddings'],
    ['beta', 'beta_fast'],
    ['alpha', 'beta_slow'],
  ] as const) {
    const value = asNumber(yarn[from]);
    if (value !== null) {
      scaling[to] = value;
    }
  }
  return scaling;
}

/**
 * A params.json as the config.json fields it stands for, or null when the value is not a params.json. A
 * `vocab_size` of -1 (Meta's "take it from the tokenizer") is left out; Meta's MLP width is worked out from
 * multiple_of and ffn_dim_multiplier.
 */
export function configFromNativeParams(raw: unknown): Json | null {
  if (!isRecord(raw) || !looksLikeNativeParams(raw)) {
    return null;
  }
  const config: Json = { ...raw };
  for (const [from, to] of RENAMED) {
    if (from in config) {
      config[to] = config[from];
      delete config[from];
    }
  }
  const moe = isRecord(raw.moe) ? raw.moe : null;
  config.model_type = modelTypeOf(raw, moe);
  delete config.moe;
  if (moe !== null) {
    if (config.model_type === 'deepseek_v3') {
      for (const [from, to] of SHARED_EXPERT_MOE) {
        if (moe[from] !== undefined) {
          config[to] = moe[from];
        }
      }
    } else {
      config.num_local_experts = moe.num_experts;
      config.num_experts_per_tok = moe.num_experts_per_tok;
    }
  }
  const vocab = asNumber(raw.vocab_size);
  if (vocab !== null && vocab <= 0) {
    delete config.vocab_size;
  }
  const dim = raw.dim as number;
  const multipleOf = raw.multiple_of;
  if (
    config.intermediate_size === undefined &&
    typeof multipleOf === 'number' &&
    Number.isSafeInteger(multipleOf) &&
    multipleOf > 0
  ) {
    config.intermediate_size = metaFeedForwardWidth(dim, multipleOf, asNumber(raw.ffn_dim_multiplier));
  }
  delete config.sliding_window;
  Object.assign(config, slidingWindowFields(raw.sliding_window, raw.n_layers as number));
  delete config.quantization;
  const quantization = quantizationConfigOf(raw.quantization);
  if (quantization !== null) {
    config.quantization_config = quantization;
  }
  delete config.yarn;
  const ropeScaling = ropeScalingOf(raw.yarn);
  if (ropeScaling !== null) {
    config.rope_scaling = ropeScaling;
  }
  return config;
}

/** The renames the evidence spells out: the ones the memory estimate reads. */
const NOTED_RENAMES = RENAMED.slice(0, 5);

/** What the memory and model evidence say about a config read from params.json. */
export const NATIVE_PARAMS_NOTE =
  'params.json (the config of Mistral’s and Meta’s reference checkpoints) read with config.json’s names: ' +
  `${NOTED_RENAMES.map(([from, to]) => `${from} → ${to}`).join(', ')}, as vLLM reads it.`;
