/**
 * llama.cpp tensor names ↔ Hugging Face (transformers) names, as llama.cpp's converter maps them: the GGUF names
 * are gguf-py's `TENSOR_NAMES` (`gguf/constants.py`), the Hugging Face names the ones its `TensorNameMap`
 * (`gguf/tensor_mapping.py`) recognises for each architecture, and the value changes those of
 * `convert_hf_to_gguf.py` (ggml-org/llama.cpp). Covered: the llama family (llama — which is also how Mistral and
 * Mixtral convert — mistral3, qwen2, qwen3, qwen2moe, qwen3moe, gemma, gemma2, gemma3) and deepseek2's MLA. One
 * table serves them all: where an architecture lacks a tensor (qwen2 has no router), gguf-py has no name for it
 * either, and no name here maps differently from gguf-py 0.19.0's `get_tensor_name_map(arch, n)` for any of them.
 *
 * Shapes: GGUF stores `ne`, the PyTorch shape reversed (ne[0] is the contiguous axis); the reader shows PyTorch
 * order, and in PyTorch order a mapped tensor has exactly the Hugging Face shape, except:
 * - `rows-permuted`: `llama` q/k projections (and their biases) have their rows reordered per head from
 *   Hugging Face's rotate-half layout to Meta's interleaved one (`LlamaModel.permute`): same shape, same values
 *   as a set, different row order, so only whole-tensor statistics compare directly;
 * - `norm-plus-one`: Gemma's RMSNorm weights (q/k norms included) are stored as `1 + w` (`GemmaModel.modify_tensors`);
 * - `stacked-experts`: `blk.N.ffn_{gate,up,down}_exps` is one 3-D tensor `[E, rows, cols]` holding the E
 *   Hugging Face tensors `…experts.{0..E−1}.{gate,up,down}_proj` in expert order. The compare treats the E
 *   per-expert tensors as one logical tensor of shape `[E, …]`: it matches when every expert 0..E−1 is present
 *   with one shape, and the stacked shape equals the GGUF one; a missing expert or a stray shape is a shape
 *   mismatch that names the experts involved;
 * - `derived`: tensors computed from another one (deepseek2's `attn_k_b` / `attn_v_b` are `kv_b_proj` split),
 *   paired by name but not by shape;
 * - `rope_freqs.weight` has no Hugging Face tensor: the converter computes it from `rope_scaling` (Llama 3.1).
 */

export type GgufNameRelation = 'same' | 'rows-permuted' | 'norm-plus-one' | 'stacked-experts' | 'derived';

export interface HfCounterpart {
  /** Hugging Face names, most likely first; a stacked-experts name has `*` where the expert index goes. */
  candidates: string[];
  relation: GgufNameRelation;
}

export interface GgufCounterpart {
  name: string;
  /** The expert index inside a stacked GGUF tensor, for a per-expert Hugging Face name. */
  expert: number | null;
  relation: GgufNameRelation;
}

/** Architectures this map covers (gguf-py `MODEL_ARCH_NAMES`). */
export const GGUF_NAME_MAP_ARCHS = [
  'llama',
  'mistral3',
  'qwen2',
  'qwen3',
  'qwen2moe',
  'qwen3moe',
  'gemma',
  'gemma2',
  'gemma3',
  'deepseek2',
] as const;

/** Whose q/k rows `convert_hf_to_gguf.py` permutes: `LlamaModel` with `undo_permute` left on. */
const PERMUTED_QK = new Set(['llama']);
/** Whose norm weights are stored plus one. */
const NORM_PLUS_ONE = new Set(['gemma', 'gemma2', 'gemma3']);
/** Gemma 2 and 3 name their four norms apart; the others call the pre-MLP norm `post_attention_layernorm`. */
const SANDWICH_NORMS = new Set(['gemma2', 'gemma3']);

const GLOBAL: ReadonlyArray<[string, string]> = [
  ['token_embd', 'model.embed_tokens'],
  ['output_norm', 'model.norm'],
  ['output', 'lm_head'],
];

/** Per-block GGUF name → Hugging Face names under `model.layers.N.` (gguf-py `block_mappings_cfg`). */
const BLOCK: ReadonlyArray<[string, string[]]> = [
  ['attn_norm', ['input_layernorm']],
  ['attn_q', ['self_attn.q_proj']],
  ['attn_k', ['self_attn.k_proj']],
  ['attn_v', ['self_attn.v_proj']],
  ['attn_output', ['self_attn.o_proj']],
  ['attn_q_norm', ['self_attn.q_norm']],
  ['attn_k_norm', ['self_attn.k_norm']],
  ['ffn_gate', ['mlp.gate_proj']],
  ['ffn_up', ['mlp.up_proj']],
  ['ffn_down', ['mlp.down_proj']],
  ['ffn_gate_inp', ['mlp.gate', 'block_sparse_moe.gate']],
  ['ffn_gate_inp_shexp', ['mlp.shared_expert_gate']],
  ['ffn_gate_shexp', ['mlp.shared_expert.gate_proj', 'mlp.shared_experts.gate_proj']],
  ['ffn_up_shexp', ['mlp.shared_expert.up_proj', 'mlp.shared_experts.up_proj']],
  ['ffn_down_shexp', ['mlp.shared_expert.down_proj', 'mlp.shared_experts.down_proj']],
  ['attn_q_a', ['self_attn.q_a_proj']],
  ['attn_q_a_norm', ['self_attn.q_a_layernorm']],
  ['attn_q_b', ['self_attn.q_b_proj']],
  ['attn_kv_a_mqa', ['self_attn.kv_a_proj_with_mqa']],
  ['attn_kv_a_norm', ['self_attn.kv_a_layernorm']],
  ['attn_kv_b', ['self_attn.kv_b_proj']],
];

const LLAMA_FFN_NORM: [string, string[]] = ['ffn_norm', ['post_attention_layernorm']];
const GEMMA_NORMS: ReadonlyArray<[string, string[]]> = [
  ['post_attention_norm', ['post_attention_layernorm']],
  ['ffn_norm', ['pre_feedforward_layernorm']],
  ['post_ffw_norm', ['post_feedforward_layernorm']],
];

/** deepseek2's per-head halves of kv_b_proj, written beside it for the MLA kernels. */
const DERIVED: ReadonlyArray<[string, string[]]> = [
  ['attn_k_b', ['self_attn.kv_b_proj']],
  ['attn_v_b', ['self_attn.kv_b_proj']],
];

/** Stacked experts: Qwen/DeepSeek/OLMoE `mlp.experts.E.*_proj`, Mixtral `block_sparse_moe.experts.E.w1/w3/w2`. */
const EXPERTS: ReadonlyArray<[string, string[]]> = [
  ['ffn_gate_exps', ['mlp.experts.*.gate_proj', 'block_sparse_moe.experts.*.w1']],
  ['ffn_up_exps', ['mlp.experts.*.up_proj', 'block_sparse_moe.experts.*.w3']],
  ['ffn_down_exps', ['mlp.experts.*.down_proj', 'block_sparse_moe.experts.*.w2']],
];

/** DeepSeek-V3's expert-score bias: the only tensor whose suffix changes (`.bias` ← `_bias`). */
const EXP_PROBS_BIAS = { gguf: 'exp_probs_b.bias', hf: 'mlp.gate.e_score_correction_bias' };

function blockTable(arch: string): ReadonlyArray<[string, string[]]> {
  return [...BLOCK, ...(SANDWICH_NORMS.has(arch) ? GEMMA_NORMS : [LLAMA_FFN_NORM])];
}

function isCovered(arch: string): boolean {
  return (GGUF_NAME_MAP_ARCHS as readonly string[]).includes(arch);
}

function relationOf(arch: string, gguf: string, suffix: string): GgufNameRelation {
  if (PERMUTED_QK.has(arch) && (gguf === 'attn_q' || gguf === 'attn_k')) {
    return 'rows-permuted';
  }
  if (NORM_PLUS_ONE.has(arch) && suffix === 'weight' && /(^|_)norm$/.test(gguf)) {
    return 'norm-plus-one';
  }
  return 'same';
}

const GGUF_BLOCK_NAME = /^blk\.(\d+)\.([a-z0-9_]+)\.(weight|bias)$/;
const GGUF_GLOBAL_NAME = /^([a-z0-9_]+)\.(weight|bias)$/;

/** The Hugging Face counterpart of a GGUF tensor name, or null when it has none (rope_freqs) or the arch is not covered. */
export function hfNameOfGguf(name: string, arch: string): HfCounterpart | null {
  if (!isCovered(arch)) {
    return null;
  }
  const block = GGUF_BLOCK_NAME.exec(name);
  if (block) {
    const [, layer, base, suffix] = block;
    const prefix = `model.layers.${layer}.`;
    if (`${base}.${suffix}` === EXP_PROBS_BIAS.gguf) {
      return { candidates: [prefix + EXP_PROBS_BIAS.hf], relation: 'same' };
    }
    const expert = EXPERTS.find(([gguf]) => gguf === base);
    if (expert) {
      return { candidates: expert[1].map((hf) => `${prefix}${hf}.${suffix}`), relation: 'stacked-experts' };
    }
    const derived = DERIVED.find(([gguf]) => gguf === base);
    if (derived) {
      return { candidates: derived[1].map((hf) => `${prefix}${hf}.${suffix}`), relation: 'derived' };
    }
    const entry = blockTable(arch).find(([gguf]) => gguf === base);
    return entry
      ? { candidates: entry[1].map((hf) => `${prefix}${hf}.${suffix}`), relation: relationOf(arch, base, suffix) }
      : null;
  }
  const global = GGUF_GLOBAL_NAME.exec(name);
  if (global) {
    const entry = GLOBAL.find(([gguf]) => gguf === global[1]);
    if (entry) {
      return { candidates: [`${entry[1]}.${global[2]}`], relation: relationOf(arch, global[1], global[2]) };
    }
  }
  return null;
}

const HF_BLOCK_NAME = /^model\.layers\.(\d+)\.(.+)\.(weight|bias)$/;
const HF_EXPERT = /^(.*\.experts)\.(\d+)\.(.+)$/;
const HF_EXP_PROBS_BIAS = /^model\.layers\.(\d+)\.mlp\.gate\.e_score_correction_bias$/;

/** The GGUF tensor a Hugging Face name becomes (with its expert index inside a stacked tensor), or null. */
export function ggufNameOfHf(name: string, arch: string): GgufCounterpart | null {
  if (!isCovered(arch)) {
    return null;
  }
  const bias = HF_EXP_PROBS_BIAS.exec(name);
  if (bias) {
    return { name: `blk.${bias[1]}.${EXP_PROBS_BIAS.gguf}`, expert: null, relation: 'same' };
  }
  const block = HF_BLOCK_NAME.exec(name);
  if (block) {
    const [, layer, rest, suffix] = block;
    const prefix = `blk.${layer}.`;
    const expert = HF_EXPERT.exec(rest);
    if (expert) {
      const pattern = `${expert[1]}.*.${expert[3]}`;
      const entry = EXPERTS.find(([, hf]) => hf.includes(pattern));
      return entry
        ? { name: `${prefix}${entry[0]}.${suffix}`, expert: Number(expert[2]), relation: 'stacked-experts' }
        : null;
    }
    const entry = blockTable(arch).find(([, hf]) => hf.includes(rest));
    return entry
      ? { name: `${prefix}${entry[0]}.${suffix}`, expert: null, relation: relationOf(arch, entry[0], suffix) }
      : null;
  }
  const global = /^(.+)\.(weight|bias)$/.exec(name);
  const entry = global ? GLOBAL.find(([, hf]) => hf === global[1]) : undefined;
  return global && entry
    ? { name: `${entry[0]}.${global[2]}`, expert: null, relation: relationOf(arch, entry[0], global[2]) }
    : null;
}

/** GGUF's `ne` (contiguous axis first) → PyTorch order, and back: the same reversal both ways. */
export function reverseDims(dims: readonly number[]): number[] {
  return [...dims].reverse();
}

/**
 * For a `rows-permuted` tensor: the GGUF row holding Hugging Face row `hfRow`. The converter reshapes each head's
 * rows as [2, head_dim / 2] and swaps the two axes (`LlamaModel.permute`), so within a head HF row
 * `a × head_dim/2 + b` becomes GGUF row `2b + a`. `headDim` is the per-head width (q: n_embd / head_count; k the same
 * with head_count_kv heads).
 */
export function ggufRowOfHfRow(hfRow: number, headDim: number): number {
  const half = headDim / 2;
  const head = Math.floor(hfRow / headDim);
  const within = hfRow - head * headDim;
  const a = Math.floor(within / half);
  const b = within - a * half;
  return head * headDim + 2 * b + a;
}
