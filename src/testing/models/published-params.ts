/**
 * params.json files as Mistral and Meta publish them beside their reference checkpoints (`consolidated.safetensors`,
 * `original/consolidated.00.pth`), whole: they are this short. Used by the native-params tests and e2e fixtures.
 */

/** mistralai/Mistral-7B-Instruct-v0.3 */
export const MISTRAL_7B_V03_PARAMS = {
  dim: 4096,
  n_layers: 32,
  head_dim: 128,
  hidden_dim: 14336,
  n_heads: 32,
  n_kv_heads: 8,
  norm_eps: 1e-5,
  vocab_size: 32768,
  rope_theta: 1000000.0,
};

/** mistralai/Mistral-7B-v0.1: every layer slides over 4096 tokens. */
export const MISTRAL_7B_V01_PARAMS = {
  dim: 4096,
  n_layers: 32,
  head_dim: 128,
  hidden_dim: 14336,
  n_heads: 32,
  n_kv_heads: 8,
  norm_eps: 1e-5,
  sliding_window: 4096,
  vocab_size: 32000,
};

/** mistralai/Mixtral-8x7B-Instruct-v0.1 (the consolidated copy) */
export const MIXTRAL_8X7B_PARAMS = {
  dim: 4096,
  n_layers: 32,
  head_dim: 128,
  hidden_dim: 14336,
  n_heads: 32,
  n_kv_heads: 8,
  norm_eps: 1e-5,
  vocab_size: 32000,
  moe: { num_experts_per_tok: 2, num_experts: 8 },
  rope_theta: 1e6,
};

/** meta-llama/Meta-Llama-3-8B, original/params.json */
export const LLAMA3_8B_PARAMS = {
  dim: 4096,
  n_layers: 32,
  n_heads: 32,
  n_kv_heads: 8,
  vocab_size: 128256,
  multiple_of: 1024,
  ffn_dim_multiplier: 1.3,
  norm_eps: 1e-5,
  rope_theta: 500000.0,
};

/** meta-llama/Llama-2-7b, params.json: no KV head count (every head has its own) and no vocabulary size. */
export const LLAMA2_7B_PARAMS = {
  dim: 4096,
  multiple_of: 256,
  n_heads: 32,
  n_layers: 32,
  norm_eps: 1e-5,
  vocab_size: -1,
};
