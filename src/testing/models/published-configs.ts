/**
 * config.json files as published on the Hub (the fields that size the KV cache and experts; tokenizer ids and
 * other fields the estimate never reads are left out). Used by the memory tests and e2e fixtures.
 */

/** meta-llama/Llama-2-7b-hf */
export const LLAMA2_7B_CONFIG = {
  architectures: ['LlamaForCausalLM'],
  hidden_act: 'silu',
  hidden_size: 4096,
  intermediate_size: 11008,
  max_position_embeddings: 4096,
  model_type: 'llama',
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 32,
  rms_norm_eps: 1e-5,
  rope_scaling: null,
  tie_word_embeddings: false,
  torch_dtype: 'float16',
  vocab_size: 32000,
};

/** Qwen/Qwen3-8B */
export const QWEN3_8B_CONFIG = {
  architectures: ['Qwen3ForCausalLM'],
  head_dim: 128,
  hidden_size: 4096,
  intermediate_size: 12288,
  max_position_embeddings: 40960,
  max_window_layers: 36,
  model_type: 'qwen3',
  num_attention_heads: 32,
  num_hidden_layers: 36,
  num_key_value_heads: 8,
  rope_theta: 1000000,
  sliding_window: null,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  use_sliding_window: false,
  vocab_size: 151936,
};

/** Qwen/Qwen3-0.6B: head_dim 128 while hidden_size / heads is 64. */
export const QWEN3_06B_CONFIG = {
  architectures: ['Qwen3ForCausalLM'],
  head_dim: 128,
  hidden_size: 1024,
  intermediate_size: 3072,
  max_position_embeddings: 40960,
  max_window_layers: 28,
  model_type: 'qwen3',
  num_attention_heads: 16,
  num_hidden_layers: 28,
  num_key_value_heads: 8,
  sliding_window: null,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  use_sliding_window: false,
  vocab_size: 151936,
};

/** openai/gpt-oss-20b */
export const GPT_OSS_20B_CONFIG = {
  architectures: ['GptOssForCausalLM'],
  experts_per_token: 4,
  head_dim: 64,
  hidden_size: 2880,
  initial_context_length: 4096,
  intermediate_size: 2880,
  layer_types: Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? 'sliding_attention' : 'full_attention')),
  max_position_embeddings: 131072,
  model_type: 'gpt_oss',
  num_attention_heads: 64,
  num_experts_per_tok: 4,
  num_hidden_layers: 24,
  num_key_value_heads: 8,
  num_local_experts: 32,
  quantization_config: {
    modules_to_not_convert: ['model.layers.*.self_attn', 'model.layers.*.mlp.router', 'model.embed_tokens', 'lm_head'],
    quant_method: 'mxfp4',
  },
  rope_scaling: {
    beta_fast: 32.0,
    beta_slow: 1.0,
    factor: 32.0,
    original_max_position_embeddings: 4096,
    rope_type: 'yarn',
    truncate: false,
  },
  sliding_window: 128,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 201088,
};

/** deepseek-ai/DeepSeek-V3 */
export const DEEPSEEK_V3_CONFIG = {
  architectures: ['DeepseekV3ForCausalLM'],
  first_k_dense_replace: 3,
  hidden_size: 7168,
  intermediate_size: 18432,
  kv_lora_rank: 512,
  max_position_embeddings: 163840,
  model_type: 'deepseek_v3',
  moe_intermediate_size: 2048,
  n_routed_experts: 256,
  n_shared_experts: 1,
  num_attention_heads: 128,
  num_experts_per_tok: 8,
  num_hidden_layers: 61,
  num_key_value_heads: 128,
  num_nextn_predict_layers: 1,
  q_lora_rank: 1536,
  qk_nope_head_dim: 128,
  qk_rope_head_dim: 64,
  quantization_config: {
    activation_scheme: 'dynamic',
    fmt: 'e4m3',
    quant_method: 'fp8',
    weight_block_size: [128, 128],
  },
  rope_scaling: {
    beta_fast: 32,
    beta_slow: 1,
    factor: 40,
    mscale: 1.0,
    mscale_all_dim: 1.0,
    original_max_position_embeddings: 4096,
    type: 'yarn',
  },
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  v_head_dim: 128,
  vocab_size: 129280,
};

/** Qwen/Qwen3-Next-80B-A3B-Instruct: 3 Gated DeltaNet layers per full-attention layer. */
export const QWEN3_NEXT_80B_CONFIG = {
  architectures: ['Qwen3NextForCausalLM'],
  full_attention_interval: 4,
  head_dim: 256,
  hidden_size: 2048,
  intermediate_size: 5120,
  linear_conv_kernel_dim: 4,
  linear_key_head_dim: 128,
  linear_num_key_heads: 16,
  linear_num_value_heads: 32,
  linear_value_head_dim: 128,
  max_position_embeddings: 262144,
  model_type: 'qwen3_next',
  moe_intermediate_size: 512,
  num_attention_heads: 16,
  num_experts: 512,
  num_experts_per_tok: 10,
  num_hidden_layers: 48,
  num_key_value_heads: 2,
  shared_expert_intermediate_size: 512,
  torch_dtype: 'bfloat16',
  vocab_size: 151936,
};

/** ai21labs/Jamba-v0.1: one attention layer in eight, the rest Mamba. */
export const JAMBA_V01_CONFIG = {
  architectures: ['JambaForCausalLM'],
  attn_layer_offset: 4,
  attn_layer_period: 8,
  expert_layer_offset: 1,
  expert_layer_period: 2,
  hidden_size: 4096,
  intermediate_size: 14336,
  mamba_conv_bias: true,
  mamba_d_conv: 4,
  mamba_d_state: 16,
  mamba_dt_rank: 256,
  mamba_expand: 2,
  max_position_embeddings: 262144,
  model_type: 'jamba',
  num_attention_heads: 32,
  num_experts: 16,
  num_experts_per_tok: 2,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  torch_dtype: 'bfloat16',
  vocab_size: 65536,
};

/** google/gemma-3-27b-it: the language model nested in text_config. */
export const GEMMA3_27B_CONFIG = {
  architectures: ['Gemma3ForConditionalGeneration'],
  model_type: 'gemma3',
  text_config: {
    head_dim: 128,
    hidden_size: 5376,
    intermediate_size: 21504,
    max_position_embeddings: 131072,
    model_type: 'gemma3_text',
    num_attention_heads: 32,
    num_hidden_layers: 62,
    num_key_value_heads: 16,
    query_pre_attn_scalar: 168,
    rope_scaling: { factor: 8.0, rope_type: 'linear' },
    sliding_window: 1024,
  },
  torch_dtype: 'bfloat16',
  vision_config: { hidden_size: 1152, model_type: 'siglip_vision_model', num_hidden_layers: 27 },
};

/** mistralai/Mistral-7B-v0.1: every layer slides over 4096 tokens. */
export const MISTRAL_7B_V01_CONFIG = {
  architectures: ['MistralForCausalLM'],
  hidden_size: 4096,
  intermediate_size: 14336,
  max_position_embeddings: 32768,
  model_type: 'mistral',
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  sliding_window: 4096,
  torch_dtype: 'bfloat16',
  vocab_size: 32000,
};

/** mistralai/Mixtral-8x7B-v0.1: 8 experts, 2 per token; published 46.7 B total, 12.9 B active. */
export const MIXTRAL_8X7B_CONFIG = {
  architectures: ['MixtralForCausalLM'],
  hidden_size: 4096,
  intermediate_size: 14336,
  max_position_embeddings: 32768,
  model_type: 'mixtral',
  num_attention_heads: 32,
  num_experts_per_tok: 2,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  num_local_experts: 8,
  rope_theta: 1e6,
  sliding_window: null,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 32000,
};

/** meta-llama/Llama-3.1-8B: llama3 rope scaling, already part of max_position_embeddings. */
export const LLAMA31_8B_CONFIG = {
  architectures: ['LlamaForCausalLM'],
  hidden_size: 4096,
  intermediate_size: 14336,
  max_position_embeddings: 131072,
  model_type: 'llama',
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  rope_scaling: {
    factor: 8.0,
    high_freq_factor: 4.0,
    low_freq_factor: 1.0,
    original_max_position_embeddings: 8192,
    rope_type: 'llama3',
  },
  rope_theta: 500000.0,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 128256,
};

/**
 * Qwen/Qwen2.5-7B-Instruct with the rope_scaling block its model card says to add for contexts past 32,768 tokens
 * (YaRN, factor 4, original 32,768). 28 query heads: tensor parallel 8 does not divide them.
 */
export const QWEN25_7B_YARN_CONFIG = {
  architectures: ['Qwen2ForCausalLM'],
  hidden_size: 3584,
  intermediate_size: 18944,
  max_position_embeddings: 32768,
  max_window_layers: 28,
  model_type: 'qwen2',
  num_attention_heads: 28,
  num_hidden_layers: 28,
  num_key_value_heads: 4,
  rope_scaling: { factor: 4.0, original_max_position_embeddings: 32768, type: 'yarn' },
  rope_theta: 1000000.0,
  sliding_window: 131072,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  use_sliding_window: false,
  vocab_size: 152064,
};

/** microsoft/Phi-3-mini-128k-instruct: longrope factor lists, original_max_position_embeddings at the root. */
export const PHI3_MINI_128K_CONFIG = {
  architectures: ['Phi3ForCausalLM'],
  hidden_size: 3072,
  intermediate_size: 8192,
  max_position_embeddings: 131072,
  model_type: 'phi3',
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 32,
  original_max_position_embeddings: 4096,
  rope_scaling: { long_factor: [1.07, 1.11, 1.14], short_factor: [1.05, 1.05, 1.05], type: 'longrope' },
  sliding_window: 262144,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 32064,
};

/** tiiuae/falcon-7b: 71 query heads (a prime) and, by multi_query, one shared KV head. */
export const FALCON_7B_CONFIG = {
  architectures: ['FalconForCausalLM'],
  hidden_size: 4544,
  model_type: 'falcon',
  multi_query: true,
  new_decoder_architecture: false,
  num_attention_heads: 71,
  num_hidden_layers: 32,
  parallel_attn: true,
  torch_dtype: 'bfloat16',
  vocab_size: 65024,
};

/** openai/whisper-large-v3 (encoder-decoder: 1,500 encoder positions, a 448-token decoder) */
export const WHISPER_LARGE_V3_CONFIG = {
  architectures: ['WhisperForConditionalGeneration'],
  d_model: 1280,
  decoder_attention_heads: 20,
  decoder_ffn_dim: 5120,
  decoder_layers: 32,
  encoder_attention_heads: 20,
  encoder_ffn_dim: 5120,
  encoder_layers: 32,
  is_encoder_decoder: true,
  max_source_positions: 1500,
  max_target_positions: 448,
  model_type: 'whisper',
  num_hidden_layers: 32,
  num_mel_bins: 128,
  torch_dtype: 'float16',
  vocab_size: 51866,
};

/** distil-whisper/distil-large-v3: Whisper large-v3's encoder, a 2-layer decoder */
export const DISTIL_WHISPER_LARGE_V3_CONFIG = {
  ...WHISPER_LARGE_V3_CONFIG,
  decoder_layers: 2,
};

/** facebook/bart-large-cnn */
export const BART_LARGE_CNN_CONFIG = {
  architectures: ['BartForConditionalGeneration'],
  d_model: 1024,
  decoder_attention_heads: 16,
  decoder_ffn_dim: 4096,
  decoder_layers: 12,
  encoder_attention_heads: 16,
  encoder_ffn_dim: 4096,
  encoder_layers: 12,
  is_encoder_decoder: true,
  max_position_embeddings: 1024,
  model_type: 'bart',
  num_hidden_layers: 12,
  vocab_size: 50264,
};

/** google/flan-t5-base (relative positions; n_positions is the length it was trained at) */
export const FLAN_T5_BASE_CONFIG = {
  architectures: ['T5ForConditionalGeneration'],
  d_ff: 2048,
  d_kv: 64,
  d_model: 768,
  is_encoder_decoder: true,
  model_type: 't5',
  n_positions: 512,
  num_decoder_layers: 12,
  num_heads: 12,
  num_layers: 12,
  tie_word_embeddings: false,
  vocab_size: 32128,
};

/** Helsinki-NLP/opus-mt-en-de (MarianMTModel: a generating class without "ConditionalGeneration" in its name) */
export const OPUS_MT_EN_DE_CONFIG = {
  architectures: ['MarianMTModel'],
  d_model: 512,
  decoder_attention_heads: 8,
  decoder_layers: 6,
  encoder_attention_heads: 8,
  encoder_layers: 6,
  is_encoder_decoder: true,
  max_position_embeddings: 512,
  model_type: 'marian',
  num_hidden_layers: 6,
  vocab_size: 58101,
};

/** meta-llama/Llama-3.2-11B-Vision-Instruct (the fields that size its caches) */
export const LLAMA32_11B_VISION_CONFIG = {
  architectures: ['MllamaForConditionalGeneration'],
  model_type: 'mllama',
  text_config: {
    model_type: 'mllama_text_model',
    cross_attention_layers: [3, 8, 13, 18, 23, 28, 33, 38],
    hidden_size: 4096,
    intermediate_size: 14336,
    max_position_embeddings: 131072,
    num_attention_heads: 32,
    num_hidden_layers: 40,
    num_key_value_heads: 8,
    vocab_size: 128256,
  },
  vision_config: {
    model_type: 'mllama_vision_model',
    hidden_size: 1280,
    image_size: 560,
    max_num_tiles: 4,
    num_hidden_layers: 32,
    patch_size: 14,
    vision_output_dim: 7680,
  },
  torch_dtype: 'bfloat16',
};
