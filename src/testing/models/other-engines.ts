/**
 * Engine-specific formats on Llama-3(.1)-8B shapes (hidden 4096, intermediate 14336, kv 1024), one layer each
 * (docs/format-notes.md#quantization-signatures-other-engines; shapes derived from each packer's code):
 * - EXL2 as in turboderp/Llama-3-8B-Instruct-exl2 (4.0bpw branch), uniform 4-bit row groups of 128;
 * - EXL3 as in turboderp/Llama-3.1-8B-Instruct-exl3 (4.0bpw): trellis I16 [K/16, N/16, 64];
 * - HQQ as in mobiuslabsgmbh/Llama-3.1-8b-instruct_4bitgs64_hqq_calib: W_q U8 packed, F16 scale/zero per
 *   group of 64, with the nbits/group_size/shape tensors supplied as data;
 * - optimum-quanto qint8: weight._data I8 [N, K], weight._scale F16 [N, 1], input/output scales F32 [].
 */
import type { TensorSpec } from '../build-safetensors';
import { i32Bytes, i64Bytes, llamaLinears, llamaNorms } from './common';
import { LLAMA3_8B } from './fp8-llama3-8b';
import type { ModelFixture } from './header-from-specs';

function oneLayer(linear: (module: string, out: number, k: number) => TensorSpec[]): TensorSpec[] {
  return [
    { name: 'model.embed_tokens.weight', dtype: 'F16', shape: [128256, 4096] },
    ...llamaLinears(0, LLAMA3_8B).flatMap((l) => linear(l.module, l.out, l.in)),
    ...llamaNorms(0, 4096, 'F16'),
    { name: 'model.norm.weight', dtype: 'F16', shape: [4096] },
    { name: 'lm_head.weight', dtype: 'F16', shape: [128256, 4096] },
  ];
}

export function exl2Fixture(): ModelFixture {
  const specs = oneLayer((module, out, k) => {
    const groups = k / 128;
    return [
      { name: `${module}.q_weight`, dtype: 'I32', shape: [(k * 4) / 32, out] },
      { name: `${module}.q_invperm`, dtype: 'I32', shape: [k] },
      { name: `${module}.q_scale`, dtype: 'I32', shape: [groups, out / 8] },
      { name: `${module}.q_scale_max`, dtype: 'F16', shape: [groups] },
      { name: `${module}.q_groups`, dtype: 'I16', shape: [2 * groups] },
    ];
  });
  return { fileName: 'output.safetensors', specs, metadata: { format: 'pt' } };
}

export function exl3Fixture(): ModelFixture {
  const specs = oneLayer((module, out, k) => [
    { name: `${module}.trellis`, dtype: 'I16', shape: [k / 16, out / 16, 64] },
    { name: `${module}.suh`, dtype: 'F16', shape: [k] },
    { name: `${module}.svh`, dtype: 'F16', shape: [out] },
  ]);
  return { fileName: 'model.safetensors', specs, metadata: { format: 'pt' } };
}

export function hqqFixture(): ModelFixture {
  const tensorData: Record<string, Uint8Array> = {};
  const specs = oneLayer((module, out, k) => {
    const groups = (out * k) / 64;
    tensorData[`${module}.nbits`] = i32Bytes([4]);
    tensorData[`${module}.group_size`] = i32Bytes([64]);
    tensorData[`${module}.shape`] = i64Bytes([out, k]);
    return [
      { name: `${module}.W_q`, dtype: 'U8', shape: [groups / 2, 64] },
      { name: `${module}.scale`, dtype: 'F16', shape: [groups, 1] },
      { name: `${module}.zero`, dtype: 'F16', shape: [groups, 1] },
      { name: `${module}.nbits`, dtype: 'I32', shape: [] },
      { name: `${module}.group_size`, dtype: 'I32', shape: [] },
      { name: `${module}.shape`, dtype: 'I64', shape: [2] },
      { name: `${module}.axis`, dtype: 'I32', shape: [] },
    ];
  });
  return { fileName: 'qmodel.safetensors', specs, tensorData };
}

export function quantoQint8Fixture(): ModelFixture {
  const specs = oneLayer((module, out, k) => [
    { name: `${module}.weight._data`, dtype: 'I8', shape: [out, k] },
    { name: `${module}.weight._scale`, dtype: 'F16', shape: [out, 1] },
    { name: `${module}.input_scale`, dtype: 'F32', shape: [] },
    { name: `${module}.output_scale`, dtype: 'F32', shape: [] },
  ]);
  return { fileName: 'model.safetensors', specs, metadata: { format: 'pt' } };
}
