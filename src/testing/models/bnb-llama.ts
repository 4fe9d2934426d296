/**
 * bitsandbytes checkpoints (docs/format-notes.md#quantization-signatures-bitsandbytes):
 * - NF4 with double quantization, as in unsloth/llama-3-8b-bnb-4bit: weight U8 [n/2, 1], absmax U8 [n/64],
 *   nested_absmax F32 [n/64/256], nested_quant_map F32 [256], quant_map F32 [16], and
 *   `quant_state.bitsandbytes__nf4` U8 [len] whose bytes are the JSON (supplied as tensor data);
 * - LLM.int8, as transformers saves meta-llama/Llama-2-7b-hf loaded with load_in_8bit: weight I8 [N, K],
 *   SCB F32 [N], weight_format U8 [] (derived).
 */
import type { TensorSpec } from '../build-safetensors';
import { jsonBytes, llamaLinears, llamaNorms } from './common';
import { LLAMA3_8B } from './fp8-llama3-8b';
import { LLAMA2_7B } from './gptq-llama2-7b';
import type { ModelFixture } from './header-from-specs';

function nf4Linear(module: string, out: number, k: number, tensorData: Record<string, Uint8Array>): TensorSpec[] {
  const n = out * k;
  const state = jsonBytes({
    quant_type: 'nf4',
    blocksize: 64,
    dtype: 'bfloat16',
    shape: [out, k],
    nested_blocksize: 256,
    nested_offset: 0.0220489501953125,
    nested_dtype: 'float32',
  });
  tensorData[`${module}.weight.quant_state.bitsandbytes__nf4`] = state;
  return [
    { name: `${module}.weight`, dtype: 'U8', shape: [n / 2, 1] },
    { name: `${module}.weight.absmax`, dtype: 'U8', shape: [n / 64] },
    { name: `${module}.weight.nested_absmax`, dtype: 'F32', shape: [n / 64 / 256] },
    { name: `${module}.weight.nested_quant_map`, dtype: 'F32', shape: [256] },
    { name: `${module}.weight.quant_map`, dtype: 'F32', shape: [16] },
    { name: `${module}.weight.quant_state.bitsandbytes__nf4`, dtype: 'U8', shape: [state.length] },
  ];
}

export function bnbNf4Llama3Fixture(layers = 2): ModelFixture {
  const tensorData: Record<string, Uint8Array> = {};
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [128256, 4096] }];
  for (let layer = 0; layer < layers; layer++) {
    for (const linear of llamaLinears(layer, LLAMA3_8B)) {
      specs.push(...nf4Linear(linear.module, linear.out, linear.in, tensorData));
    }
    specs.push(...llamaNorms(layer, 4096, 'BF16'));
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'BF16', shape: [4096] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [128256, 4096] },
  );
  return { fileName: 'model.safetensors', specs, metadata: { format: 'pt' }, tensorData };
}

export function bnbInt8Llama2Fixture(layers = 2): ModelFixture {
  const specs: TensorSpec[] = [{ name: 'model.embed_tokens.weight', dtype: 'F16', shape: [32000, 4096] }];
  for (let layer = 0; layer < layers; layer++) {
    for (const linear of llamaLinears(layer, LLAMA2_7B)) {
      specs.push(
        { name: `${linear.module}.weight`, dtype: 'I8', shape: [linear.out, linear.in] },
        { name: `${linear.module}.SCB`, dtype: 'F32', shape: [linear.out] },
        { name: `${linear.module}.weight_format`, dtype: 'U8', shape: [] },
      );
    }
    specs.push(...llamaNorms(layer, 4096, 'F16'));
  }
  specs.push(
    { name: 'model.norm.weight', dtype: 'F16', shape: [4096] },
    { name: 'lm_head.weight', dtype: 'F16', shape: [32000, 4096] },
  );
  return { fileName: 'model.safetensors', specs, metadata: { format: 'pt' } };
}
