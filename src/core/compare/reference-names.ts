/**
 * The reference code's tensor names (Meta's `llama/model.py`, Mistral's `mistral-inference`: what
 * `consolidated.safetensors` and `consolidated.00.pth` hold) as llama.cpp names them. llama.cpp's first converter read
 * these checkpoints directly, and both keep q and k rows in the same per-head order (Meta's interleaved rotary
 * layout), so a reference checkpoint compares with its transformers copy through llama.cpp's name map for `llama`
 * (gguf-names.ts): the same pairs, the same `rows-permuted` q/k relation transformers' converter
 * (`convert_llama_weights_to_hf.py`, `permute`) introduced. Covered: the dense layout (embedding, norms, attention,
 * MLP, output, Mixtral's router); Mixtral's per-expert tensors, which llama.cpp stacks, are named in transformers'
 * terms directly (`transformersNameOfReferenceExpert`), row order unchanged. Pure.
 */

/** `layers.N.<part>.weight` → `blk.N.<llama.cpp part>.weight`. */
const LAYER_PARTS: ReadonlyMap<string, string> = new Map([
  ['attention.wq', 'attn_q'],
  ['attention.wk', 'attn_k'],
  ['attention.wv', 'attn_v'],
  ['attention.wo', 'attn_output'],
  ['attention_norm', 'attn_norm'],
  ['ffn_norm', 'ffn_norm'],
  ['feed_forward.w1', 'ffn_gate'],
  ['feed_forward.w2', 'ffn_down'],
  ['feed_forward.w3', 'ffn_up'],
  ['feed_forward.gate', 'ffn_gate_inp'],
]);

const TOP_LEVEL: ReadonlyMap<string, string> = new Map([
  ['tok_embeddings.weight', 'token_embd.weight'],
  ['norm.weight', 'output_norm.weight'],
  ['output.weight', 'output.weight'],
]);

const LAYER_NAME = /^layers\.(\d+)\.(.+)\.(weight|bias)$/;
const EXPERT_NAME = /^layers\.(\d+)\.feed_forward\.experts\.(\d+)\.(w[123])\.weight$/;

/** A Mixtral reference expert's transformers name (`MixtralForCausalLM` keeps w1/w2/w3), or null. */
export function transformersNameOfReferenceExpert(name: string): string | null {
  const match = EXPERT_NAME.exec(name);
  return match ? `model.layers.${match[1]}.block_sparse_moe.experts.${match[2]}.${match[3]}.weight` : null;
}

/** The llama.cpp name of a reference-code tensor name, or null for one outside the dense layout. */
export function llamaCppNameOfReference(name: string): string | null {
  const top = TOP_LEVEL.get(name);
  if (top !== undefined) {
    return top;
  }
  const match = LAYER_NAME.exec(name);
  const part = match ? LAYER_PARTS.get(match[2]) : undefined;
  return match && part !== undefined ? `blk.${match[1]}.${part}.${match[3]}` : null;
}

/** A reference-code name as llama.cpp names it, or the name itself where llama.cpp has none. */
export function llamaCppNameOrOwn(name: string): string {
  return llamaCppNameOfReference(name) ?? name;
}

/**
 * Whether names are in the reference layout: the token embedding `tok_embeddings.weight` and a first layer's
 * `layers.0.attention.wq.weight`, both at the top level (transformers' copy says `model.embed_tokens`).
 */
export function isReferenceLayout(names: readonly string[]): boolean {
  let embedding = false;
  let query = false;
  for (const name of names) {
    embedding ||= name === 'tok_embeddings.weight';
    query ||= name === 'layers.0.attention.wq.weight';
    if (embedding && query) {
      return true;
    }
  }
  return false;
}
