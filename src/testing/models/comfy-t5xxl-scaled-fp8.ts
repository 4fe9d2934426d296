/**
 * ComfyUI legacy scaled FP8, as in comfyanonymous/flux_text_encoders t5xxl_fp8_e4m3fn_scaled.safetensors: a
 * `scaled_fp8` F8_E4M3 [0] marker, F8 linear weights with `.scale_weight` F32 [] each
 * (docs/format-notes.md#quantization-signatures-comfyui). T5-XXL encoder shapes: d_model 4096, d_ff 10240, vocab 32128,
 * 24 blocks (two here). The dtypes of the small non-linear tensors (norms, relative bias, shared embedding) are assumed
 * F16.
 */
import type { TensorSpec } from '../build-safetensors';
import type { ModelFixture } from './header-from-specs';

function scaled(module: string, out: number, inFeatures: number): TensorSpec[] {
  return [
    { name: `${module}.weight`, dtype: 'F8_E4M3', shape: [out, inFeatures] },
    { name: `${module}.scale_weight`, dtype: 'F32', shape: [] },
  ];
}

export function t5xxlScaledFp8Fixture(blocks = 2): ModelFixture {
  const specs: TensorSpec[] = [
    { name: 'scaled_fp8', dtype: 'F8_E4M3', shape: [0] },
    { name: 'shared.weight', dtype: 'F16', shape: [32128, 4096] },
  ];
  for (let block = 0; block < blocks; block++) {
    const base = `encoder.block.${block}.layer.`;
    for (const proj of ['q', 'k', 'v', 'o']) {
      specs.push(...scaled(`${base}0.SelfAttention.${proj}`, 4096, 4096));
    }
    if (block === 0) {
      specs.push({ name: `${base}0.SelfAttention.relative_attention_bias.weight`, dtype: 'F16', shape: [32, 64] });
    }
    specs.push(
      { name: `${base}0.layer_norm.weight`, dtype: 'F16', shape: [4096] },
      ...scaled(`${base}1.DenseReluDense.wi_0`, 10240, 4096),
      ...scaled(`${base}1.DenseReluDense.wi_1`, 10240, 4096),
      ...scaled(`${base}1.DenseReluDense.wo`, 4096, 10240),
      { name: `${base}1.layer_norm.weight`, dtype: 'F16', shape: [4096] },
    );
  }
  specs.push({ name: 'encoder.final_layer_norm.weight', dtype: 'F16', shape: [4096] });
  return { fileName: 't5xxl_fp8_e4m3fn_scaled.safetensors', specs };
}
