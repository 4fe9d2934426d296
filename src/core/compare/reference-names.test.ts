import { describe, expect, it } from 'vitest';
import { sideOf } from '../../testing/compare-builders';
import type { TensorSpec } from '../../testing/build-safetensors';
import { tinyMistralNativeTensors } from '../../testing/models/mistral-native';
import { DEFAULT_COMPARE_RULES } from './align';
import { diffSides, STATUS_IDENTICAL } from './diff';
import { isReferenceLayout, llamaCppNameOfReference, transformersNameOfReferenceExpert } from './reference-names';

/** A tiny Mixtral as the reference code names it, and its transformers names beside each. */
function tinyMixtral(): Array<[TensorSpec, string]> {
  const pairs: Array<[TensorSpec, string]> = [
    [{ name: 'tok_embeddings.weight', dtype: 'BF16', shape: [64, 32] }, 'model.embed_tokens.weight'],
  ];
  for (let layer = 0; layer < 2; layer++) {
    const hf = `model.layers.${layer}.`;
    const ref = `layers.${layer}.`;
    pairs.push(
      [{ name: `${ref}attention.wq.weight`, dtype: 'BF16', shape: [32, 32] }, `${hf}self_attn.q_proj.weight`],
      [{ name: `${ref}attention.wk.weight`, dtype: 'BF16', shape: [16, 32] }, `${hf}self_attn.k_proj.weight`],
      [{ name: `${ref}attention.wv.weight`, dtype: 'BF16', shape: [16, 32] }, `${hf}self_attn.v_proj.weight`],
      [{ name: `${ref}attention.wo.weight`, dtype: 'BF16', shape: [32, 32] }, `${hf}self_attn.o_proj.weight`],
      [{ name: `${ref}attention_norm.weight`, dtype: 'BF16', shape: [32] }, `${hf}input_layernorm.weight`],
      [{ name: `${ref}ffn_norm.weight`, dtype: 'BF16', shape: [32] }, `${hf}post_attention_layernorm.weight`],
      [{ name: `${ref}feed_forward.gate.weight`, dtype: 'BF16', shape: [4, 32] }, `${hf}block_sparse_moe.gate.weight`],
    );
    for (let expert = 0; expert < 4; expert++) {
      for (const [w, shape] of [
        ['w1', [48, 32]],
        ['w2', [32, 48]],
        ['w3', [48, 32]],
      ] as const) {
        pairs.push([
          { name: `${ref}feed_forward.experts.${expert}.${w}.weight`, dtype: 'BF16', shape: [...shape] },
          `${hf}block_sparse_moe.experts.${expert}.${w}.weight`,
        ]);
      }
    }
  }
  pairs.push(
    [{ name: 'norm.weight', dtype: 'BF16', shape: [32] }, 'model.norm.weight'],
    [{ name: 'output.weight', dtype: 'BF16', shape: [64, 32] }, 'lm_head.weight'],
  );
  return pairs;
}

describe('reference-code names', () => {
  it("maps the dense layout to llama.cpp's names and Mixtral's experts to transformers' names", () => {
    expect(llamaCppNameOfReference('layers.3.attention.wk.weight')).toBe('blk.3.attn_k.weight');
    expect(llamaCppNameOfReference('layers.0.feed_forward.w2.weight')).toBe('blk.0.ffn_down.weight');
    expect(llamaCppNameOfReference('tok_embeddings.weight')).toBe('token_embd.weight');
    expect(llamaCppNameOfReference('layers.0.feed_forward.experts.1.w1.weight')).toBeNull();
    expect(transformersNameOfReferenceExpert('layers.0.feed_forward.experts.1.w1.weight')).toBe(
      'model.layers.0.block_sparse_moe.experts.1.w1.weight',
    );
    expect(isReferenceLayout(tinyMistralNativeTensors().map((spec) => spec.name))).toBe(true);
    expect(isReferenceLayout(['model.embed_tokens.weight', 'model.layers.0.self_attn.q_proj.weight'])).toBe(false);
  });

  it('pairs a Mixtral reference checkpoint with its transformers copy, experts and router included', () => {
    const pairs = tinyMixtral();
    const reference = sideOf(pairs.map(([spec]) => spec));
    const transformers = sideOf(pairs.map(([spec, name]) => ({ ...spec, name })));
    const diff = diffSides(reference, transformers, DEFAULT_COMPARE_RULES);
    expect(diff.ggufNames).toMatchObject({ kind: 'reference', ggufSide: 'a' });
    expect(diff.ggufNames?.counts).toMatchObject({ match: pairs.length, 'only-gguf': 0, 'only-hf': 0 });
    expect(Array.from(diff.entries.status).every((status) => status === STATUS_IDENTICAL)).toBe(true);
    expect(diff.entries.count).toBe(pairs.length);
  });

  it('two reference checkpoints, or two transformers ones, compare by their own names', () => {
    const specs = tinyMistralNativeTensors();
    expect(diffSides(sideOf(specs), sideOf(specs), DEFAULT_COMPARE_RULES).ggufNames).toBeNull();
  });
});
