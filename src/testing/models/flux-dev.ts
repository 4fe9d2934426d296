/**
 * FLUX.1-dev transformer in Black Forest Labs' original naming (as shipped in black-forest-labs/FLUX.1-dev
 * flux1-dev.safetensors): 19 double_blocks and 38 single_blocks at hidden 3072; two of each here.
 * The builder takes a function for the big linears, so the same skeleton serves the BF16 original, the
 * Kijai/flux-fp8 unscaled FP8 cast and the AX1Y2JP/FLUX.1-dev-INT8-ConvRot ComfyUI int8 file. Which linears
 * are "quantizable" matches the ConvRot file's counts (seed 003: 266 I8 = 19×10 + 38×2; modulation stays BF16).
 */
import type { TensorSpec } from '../build-safetensors';
import { f32Bytes, jsonBytes } from './common';
import type { ModelFixture } from './header-from-specs';

export type LinearWriter = (module: string, out: number, inFeatures: number) => TensorSpec[];

/** Linears the ComfyUI quantizers convert (attention qkv/proj, MLPs, per-stream modulation, single-block linears). */
const DOUBLE_LINEARS: ReadonlyArray<[string, number, number]> = [
  ['img_mod.lin', 18432, 3072],
  ['img_attn.qkv', 9216, 3072],
  ['img_attn.proj', 3072, 3072],
  ['img_mlp.0', 12288, 3072],
  ['img_mlp.2', 3072, 12288],
  ['txt_mod.lin', 18432, 3072],
  ['txt_attn.qkv', 9216, 3072],
  ['txt_attn.proj', 3072, 3072],
  ['txt_mlp.0', 12288, 3072],
  ['txt_mlp.2', 3072, 12288],
];
const SINGLE_LINEARS: ReadonlyArray<[string, number, number]> = [
  ['linear1', 21504, 3072],
  ['linear2', 3072, 15360],
];

function fluxSpecs(linear: LinearWriter, blocks = 2): TensorSpec[] {
  const specs: TensorSpec[] = [];
  const plain = (module: string, out: number, inFeatures: number): TensorSpec[] => [
    { name: `${module}.weight`, dtype: 'BF16', shape: [out, inFeatures] },
    { name: `${module}.bias`, dtype: 'BF16', shape: [out] },
  ];
  specs.push(
    ...plain('img_in', 3072, 64),
    ...plain('time_in.in_layer', 3072, 256),
    ...plain('time_in.out_layer', 3072, 3072),
    ...plain('vector_in.in_layer', 3072, 768),
    ...plain('vector_in.out_layer', 3072, 3072),
    ...plain('guidance_in.in_layer', 3072, 256),
    ...plain('guidance_in.out_layer', 3072, 3072),
    ...plain('txt_in', 3072, 4096),
  );
  for (let block = 0; block < blocks; block++) {
    const base = `double_blocks.${block}.`;
    for (const [suffix, out, k] of DOUBLE_LINEARS) {
      specs.push(...linear(base + suffix, out, k), { name: `${base}${suffix}.bias`, dtype: 'BF16', shape: [out] });
    }
    for (const stream of ['img', 'txt']) {
      specs.push(
        { name: `${base}${stream}_attn.norm.query_norm.scale`, dtype: 'BF16', shape: [128] },
        { name: `${base}${stream}_attn.norm.key_norm.scale`, dtype: 'BF16', shape: [128] },
      );
    }
  }
  for (let block = 0; block < blocks; block++) {
    const base = `single_blocks.${block}.`;
    for (const [suffix, out, k] of SINGLE_LINEARS) {
      specs.push(...linear(base + suffix, out, k), { name: `${base}${suffix}.bias`, dtype: 'BF16', shape: [out] });
    }
    specs.push(
      { name: `${base}norm.query_norm.scale`, dtype: 'BF16', shape: [128] },
      { name: `${base}norm.key_norm.scale`, dtype: 'BF16', shape: [128] },
      ...plain(`${base}modulation.lin`, 9216, 3072),
    );
  }
  specs.push(...plain('final_layer.linear', 64, 3072), ...plain('final_layer.adaLN_modulation.1', 6144, 3072));
  return specs;
}

/** Kijai/flux-fp8 flux1-dev-fp8.safetensors: the big linears cast to F8_E4M3 with no scale tensor at all. */
export function fluxFp8CastFixture(): ModelFixture {
  const cast: LinearWriter = (module, out, inFeatures) => [
    { name: `${module}.weight`, dtype: 'F8_E4M3', shape: [out, inFeatures] },
  ];
  return { fileName: 'flux1-dev-fp8.safetensors', specs: fluxSpecs(cast) };
}

export const CONVROT_CONFIG = { format: 'int8_tensorwise', per_row: true, convrot: true, convrot_groupsize: 256 };

/**
 * AX1Y2JP/FLUX.1-dev-INT8-ConvRot flux1-dev-int8-convrot.safetensors: per quantized linear an I8 weight, an F32
 * per-row weight_scale [N, 1] and a U8 `.comfy_quant` holding the JSON config (seed 003 shows the config).
 */
export function fluxInt8ConvrotFixture(
  config: Record<string, unknown> = CONVROT_CONFIG,
  fileName = 'flux1-dev-int8-convrot.safetensors',
): ModelFixture {
  const tensorData: Record<string, Uint8Array> = {};
  const configBytes = jsonBytes(config);
  const int8: LinearWriter = (module, out, inFeatures) => {
    tensorData[`${module}.comfy_quant`] = configBytes;
    tensorData[`${module}.weight_scale`] = f32Bytes(0.01);
    return [
      { name: `${module}.weight`, dtype: 'I8', shape: [out, inFeatures] },
      { name: `${module}.weight_scale`, dtype: 'F32', shape: [out, 1] },
      { name: `${module}.comfy_quant`, dtype: 'U8', shape: [configBytes.length] },
    ];
  };
  return { fileName, specs: fluxSpecs(int8), tensorData };
}
