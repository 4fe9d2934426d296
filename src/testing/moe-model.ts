/**
 * The scale model from seed 000: 93 layers × 896 experts, stored one tensor per expert projection (≈250,000
 * tensors, a ≈30 MB header), or with experts packed into 3-D tensors (a few hundred tensors). Used by the fixtures
 * script (as sparse files), the benchmarks and the scale tests.
 */
import type { TensorSpec } from './build-safetensors';

export interface MoeShape {
  layers: number;
  experts: number;
  hidden: number;
  expertIntermediate: number;
  vocab: number;
  heads: number;
  kvHeads: number;
  headDim: number;
}

export const SEED_MOE: MoeShape = {
  layers: 93,
  experts: 896,
  hidden: 7168,
  expertIntermediate: 2048,
  vocab: 163840,
  heads: 64,
  kvHeads: 8,
  headDim: 128,
};

function attention(prefix: string, shape: MoeShape): TensorSpec[] {
  const q = shape.heads * shape.headDim;
  const kv = shape.kvHeads * shape.headDim;
  return [
    { name: `${prefix}.input_layernorm.weight`, dtype: 'BF16', shape: [shape.hidden] },
    { name: `${prefix}.self_attn.q_proj.weight`, dtype: 'BF16', shape: [q, shape.hidden] },
    { name: `${prefix}.self_attn.k_proj.weight`, dtype: 'BF16', shape: [kv, shape.hidden] },
    { name: `${prefix}.self_attn.v_proj.weight`, dtype: 'BF16', shape: [kv, shape.hidden] },
    { name: `${prefix}.self_attn.o_proj.weight`, dtype: 'BF16', shape: [shape.hidden, q] },
    { name: `${prefix}.post_attention_layernorm.weight`, dtype: 'BF16', shape: [shape.hidden] },
    { name: `${prefix}.mlp.gate.weight`, dtype: 'BF16', shape: [shape.experts, shape.hidden] },
  ];
}

/** One tensor per expert and projection: what makes the header 30 MB. */
export function moeUnpackedTensors(shape: MoeShape = SEED_MOE): TensorSpec[] {
  const tensors: TensorSpec[] = [
    { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [shape.vocab, shape.hidden] },
  ];
  for (let layer = 0; layer < shape.layers; layer++) {
    const prefix = `model.layers.${layer}`;
    tensors.push(...attention(prefix, shape));
    for (let expert = 0; expert < shape.experts; expert++) {
      const e = `${prefix}.mlp.experts.${expert}`;
      tensors.push(
        { name: `${e}.gate_proj.weight`, dtype: 'BF16', shape: [shape.expertIntermediate, shape.hidden] },
        { name: `${e}.up_proj.weight`, dtype: 'BF16', shape: [shape.expertIntermediate, shape.hidden] },
        { name: `${e}.down_proj.weight`, dtype: 'BF16', shape: [shape.hidden, shape.expertIntermediate] },
      );
    }
  }
  tensors.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [shape.hidden] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [shape.vocab, shape.hidden] },
  );
  return tensors;
}

/** The same model with each layer's experts packed into 3-D tensors (gpt-oss / transformers fused style). */
export function moePackedTensors(shape: MoeShape = SEED_MOE): TensorSpec[] {
  const tensors: TensorSpec[] = [
    { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [shape.vocab, shape.hidden] },
  ];
  for (let layer = 0; layer < shape.layers; layer++) {
    const prefix = `model.layers.${layer}`;
    tensors.push(
      ...attention(prefix, shape),
      {
        name: `${prefix}.mlp.experts.gate_up_proj`,
        dtype: 'BF16',
        shape: [shape.experts, shape.hidden, 2 * shape.expertIntermediate],
      },
      {
        name: `${prefix}.mlp.experts.down_proj`,
        dtype: 'BF16',
        shape: [shape.experts, shape.expertIntermediate, shape.hidden],
      },
    );
  }
  tensors.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [shape.hidden] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [shape.vocab, shape.hidden] },
  );
  return tensors;
}
