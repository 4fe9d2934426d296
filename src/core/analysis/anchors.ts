/**
 * Anchor dimensions (docs/format-notes.md#anchor-dimensions): norms are never quantized, so their length gives
 * hidden_size even when every matrix is packed; modules whose input is the residual stream then pin in_features, and
 * with it the bit width of packed formats whose shapes alone only fix bits × group size (MLX, compressed-tensors).
 */
import { rowsOfShapes, type TensorIndex } from './tensor-index';

/** Per-layer and final norms whose length is hidden_size. */
const RE_HIDDEN_NORM =
  /(?:^|\.)(?:input_layernorm|post_attention_layernorm|pre_feedforward_layernorm|post_feedforward_layernorm|attention_norm|ffn_norm|ln_1|ln_2|ln_f|norm|final_layernorm|final_norm|layernorm|layer_norm|LayerNorm)\.weight$/;

/**
 * Norms whose length is something else (per-head, low-rank, or a Mamba2 mixer's gated norm over its inner width),
 * towers whose width differs from the LM's, and the embedding-width norms of encoders that project their embeddings
 * up to the hidden size (ALBERT's and ELECTRA's `embeddings.LayerNorm` and masked-LM `predictions.LayerNorm`).
 */
const RE_NOT_HIDDEN_NORM =
  /(?:q_norm|k_norm|q_a_layernorm|kv_a_layernorm|query_norm|key_norm|mixer\.norm|visual|vision|audio|image|mm_projector|embeddings\.LayerNorm|predictions\.)/;

/** Module names (last segment) whose input is the residual stream, so in_features == hidden_size. */
export const INPUT_IS_HIDDEN = new Set([
  'q_proj',
  'k_proj',
  'v_proj',
  'qkv_proj',
  'gate_proj',
  'up_proj',
  'gate_up_proj',
  'w1',
  'w3',
  'wq',
  'wk',
  'wv',
  'fc1',
  'c_attn',
  'c_fc',
  'query_key_value',
  'in_proj',
  'q_a_proj',
  'kv_a_proj_with_mqa',
  'embed_tokens',
  'wte',
  'tok_embeddings',
  'lm_head',
]);

export function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

const hiddenCache = new WeakMap<TensorIndex, { size: number; tensor: string } | null>();

/** The most common length among 1-D norm weights (ties: the first seen), or null. Cached per index. */
export function hiddenSizeFromNorms(index: TensorIndex): { size: number; tensor: string } | null {
  const cached = hiddenCache.get(index);
  if (cached !== undefined) {
    return cached;
  }
  // Both patterns match literal segments only, so they are decided once per name shape.
  const shapes = index.shapes();
  const normShapes: number[] = [];
  for (let s = 0; s < shapes.count; s++) {
    const text = shapes.text[s];
    if (RE_HIDDEN_NORM.test(text) && !RE_NOT_HIDDEN_NORM.test(text)) {
      normShapes.push(s);
    }
  }
  const counts = new Map<number, { count: number; tensor: string }>();
  for (const row of rowsOfShapes(shapes, normShapes)) {
    if (index.rank(row) !== 1) {
      continue;
    }
    const size = index.dim(row, 0);
    const entry = counts.get(size);
    if (entry) {
      entry.count++;
    } else {
      counts.set(size, { count: 1, tensor: index.names[row] });
    }
  }
  let best: { size: number; tensor: string } | null = null;
  let bestCount = 0;
  for (const [size, entry] of counts) {
    if (entry.count > bestCount) {
      best = { size, tensor: entry.tensor };
      bestCount = entry.count;
    }
  }
  hiddenCache.set(index, best);
  return best;
}
