/**
 * A tiny model in the layout of Mistral's reference checkpoints (`consolidated.safetensors`: `tok_embeddings`,
 * `layers.N.attention.wq`, `feed_forward.w1`, `output`) with the params.json that goes beside it, shaped like
 * MISTRAL_7B_V03_PARAMS. Its head size (32) is one the widths alone do not settle: 4 query heads and 2 KV heads.
 */
import { ggufRowOfHfRow } from '../../core/compare/gguf-names';
import { buildSafetensors, type TensorSpec } from '../build-safetensors';

export const TINY_NATIVE_PARAMS = {
  dim: 128,
  n_layers: 2,
  head_dim: 32,
  hidden_dim: 344,
  n_heads: 4,
  n_kv_heads: 2,
  norm_eps: 1e-5,
  vocab_size: 256,
  rope_theta: 1000000.0,
};

/** K and V × 2 KV heads × 32 × 2 bytes (BF16) × 2 layers. */
export const TINY_NATIVE_KV_BYTES_PER_TOKEN = 2 * 2 * 32 * 2 * 2;

export function tinyMistralNativeTensors(): TensorSpec[] {
  const { dim, n_layers: layers, head_dim: headDim, hidden_dim: hidden, n_heads: heads } = TINY_NATIVE_PARAMS;
  const kvWidth = TINY_NATIVE_PARAMS.n_kv_heads * headDim;
  const specs: TensorSpec[] = [{ name: 'tok_embeddings.weight', dtype: 'BF16', shape: [256, dim] }];
  for (let layer = 0; layer < layers; layer++) {
    const prefix = `layers.${layer}`;
    specs.push(
      { name: `${prefix}.attention.wq.weight`, dtype: 'BF16', shape: [heads * headDim, dim] },
      { name: `${prefix}.attention.wk.weight`, dtype: 'BF16', shape: [kvWidth, dim] },
      { name: `${prefix}.attention.wv.weight`, dtype: 'BF16', shape: [kvWidth, dim] },
      { name: `${prefix}.attention.wo.weight`, dtype: 'BF16', shape: [dim, heads * headDim] },
      { name: `${prefix}.attention_norm.weight`, dtype: 'BF16', shape: [dim] },
      { name: `${prefix}.ffn_norm.weight`, dtype: 'BF16', shape: [dim] },
      { name: `${prefix}.feed_forward.w1.weight`, dtype: 'BF16', shape: [hidden, dim] },
      { name: `${prefix}.feed_forward.w2.weight`, dtype: 'BF16', shape: [dim, hidden] },
      { name: `${prefix}.feed_forward.w3.weight`, dtype: 'BF16', shape: [hidden, dim] },
    );
  }
  specs.push(
    { name: 'norm.weight', dtype: 'BF16', shape: [dim] },
    { name: 'output.weight', dtype: 'BF16', shape: [256, dim] },
  );
  return specs;
}

/**
 * The same model as Mistral publishes its own FP8 releases (Ministral 3, Devstral Small 2): every linear of the
 * layers F8_E4M3 with `.qscale_weight` and `.qscale_act` beside it (F32 scalars), a KV-cache scale
 * `attention.kv_fake_quantizer.qscale_act`, embeddings, norms and output in BF16, and params.json's
 * `quantization` block. `block` scales the weights per 32 × 32 block instead ([⌈N/32⌉, ⌈K/32⌉] scales).
 */
export function tinyMistralNativeFp8(scales: 'tensor' | 'block' = 'tensor'): {
  specs: TensorSpec[];
  params: Record<string, unknown>;
} {
  const linear = /\.(?:wq|wk|wv|wo|w1|w2|w3)\.weight$/;
  const specs: TensorSpec[] = [];
  for (const spec of tinyMistralNativeTensors()) {
    if (!linear.test(spec.name)) {
      specs.push(spec);
      continue;
    }
    const [n, k] = spec.shape;
    const base = spec.name.slice(0, -'.weight'.length);
    specs.push(
      { ...spec, dtype: 'F8_E4M3' },
      {
        name: `${base}.qscale_weight`,
        dtype: 'F32',
        shape: scales === 'tensor' ? [] : [Math.ceil(n / 32), Math.ceil(k / 32)],
      },
      { name: `${base}.qscale_act`, dtype: 'F32', shape: [] },
    );
    if (base.endsWith('.attention.wv')) {
      specs.push({
        name: `${base.slice(0, -'.wv'.length)}.kv_fake_quantizer.qscale_act`,
        dtype: 'F32',
        shape: [],
      });
    }
  }
  return {
    specs,
    params: { ...TINY_NATIVE_PARAMS, quantization: { qformat_weight: 'fp8_e4m3', qscheme_act: 'TENSOR' } },
  };
}

/** The transformers name of each reference name, as convert_mistral_weights_to_hf.py writes it. */
function transformersName(name: string): string {
  return name
    .replace(/^tok_embeddings\./, 'model.embed_tokens.')
    .replace(/^norm\./, 'model.norm.')
    .replace(/^output\./, 'lm_head.')
    .replace(/^layers\.(\d+)\.attention\.w([qkvo])\./, 'model.layers.$1.self_attn.$2_proj.')
    .replace(/^layers\.(\d+)\.attention_norm\./, 'model.layers.$1.input_layernorm.')
    .replace(/^layers\.(\d+)\.ffn_norm\./, 'model.layers.$1.post_attention_layernorm.')
    .replace(/^layers\.(\d+)\.feed_forward\.w1\./, 'model.layers.$1.mlp.gate_proj.')
    .replace(/^layers\.(\d+)\.feed_forward\.w2\./, 'model.layers.$1.mlp.down_proj.')
    .replace(/^layers\.(\d+)\.feed_forward\.w3\./, 'model.layers.$1.mlp.up_proj.');
}

/**
 * The tiny model twice, in F32 with made-up values: as the reference code writes it (consolidated.safetensors) and as
 * transformers' converter writes it (model.safetensors: its names, q/k rows in rotate-half order). `changed` may
 * alter a transformers tensor's values before it is written.
 */
export function tinyReferencePair(changed: (name: string, values: Float32Array) => void = () => {}) {
  const specs = tinyMistralNativeTensors().map((spec) => ({ ...spec, dtype: 'F32' }));
  const reference: Record<string, Uint8Array> = {};
  const transformers: Record<string, Uint8Array> = {};
  specs.forEach((spec, t) => {
    const [rows, columns = 1] = spec.shape;
    const values = Float32Array.from({ length: rows * columns }, (_, i) => Math.sin(t * 7919 + i) / 4);
    const permuted = /\.w[qk]\.weight$/.test(spec.name);
    const copy = new Float32Array(values.length);
    for (let row = 0; row < rows; row++) {
      const from = permuted ? ggufRowOfHfRow(row, TINY_NATIVE_PARAMS.head_dim) : row;
      copy.set(values.subarray(from * columns, (from + 1) * columns), row * columns);
    }
    changed(spec.name, copy);
    reference[spec.name] = new Uint8Array(values.buffer);
    transformers[transformersName(spec.name)] = new Uint8Array(copy.buffer);
  });
  return {
    reference: buildSafetensors(specs, { tensorData: reference }),
    transformers: buildSafetensors(
      specs.map((spec) => ({ ...spec, name: transformersName(spec.name) })),
      { tensorData: transformers },
    ),
  };
}
