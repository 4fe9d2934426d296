/**
 * The packed weights of compressed-tensors (`pack-quantized` ints, `nvfp4-pack-quantized`, `mxfp4-pack-quantized`)
 * and of ModelOpt's NVFP4 export, dequantized from their companions read whole (core/values/packed.ts names them,
 * core/values/dequant.ts does the arithmetic). The caller reads the bytes; these say what the values mean.
 */
import { decodeValues, E2M1_VALUES } from '../core/values/decode';
import { compressedIntBits, dequantizeCompressedInt, dequantizeFp4Groups } from '../core/values/dequant';
import type { CompressedIntPlan, Fp4Plan } from '../core/values/packed';
import { ValuesUnavailable } from '../core/values/tensor-values';
import type { DequantizedWeight } from './values-packed';

/** How the caller reads a plan's rows: whole bytes, and bytes decoded as the row's dtype. */
export interface PlanReader {
  bytes: (row: number) => Promise<Uint8Array>;
  floats: (row: number, bytes: Uint8Array) => ArrayLike<number>;
}

/** Why a packed weight's values are not dequantized, as every packed layout says it. */
export function notDequantized(message: string): ValuesUnavailable {
  return new ValuesUnavailable(`Not dequantized: ${message}.`);
}

/** N and K from `weight_shape` (two integers), else K from g_idx's length. */
async function logicalShape(plan: CompressedIntPlan, read: PlanReader): Promise<[number, number]> {
  if (plan.weightShape !== null) {
    const dims = read.floats(plan.weightShape, await read.bytes(plan.weightShape));
    if (dims.length === 2 && dims[0] === plan.outFeatures && Number.isInteger(dims[1]) && dims[1] > 0) {
      return [dims[0], dims[1]];
    }
    throw notDequantized(`its weight_shape [${Array.from(dims).join(', ')}] does not match the packed rows`);
  }
  return [plan.outFeatures, plan.inFeatures as number];
}

export async function compressedIntWeight(
  plan: CompressedIntPlan,
  read: PlanReader,
  dtypeOf: (row: number) => string,
  checkSize: (elements: number) => void,
): Promise<DequantizedWeight> {
  const [n, k] = await logicalShape(plan, read);
  checkSize(n * k);
  const packed = await read.bytes(plan.weight);
  const bits = compressedIntBits(packed.length / 4 / n, k);
  if (bits === null) {
    throw notDequantized(`its packed rows fit no bit width for ${k} columns`);
  }
  const scales = read.floats(plan.scales, await read.bytes(plan.scales));
  const gIdx = plan.gIdx !== null ? read.floats(plan.gIdx, await read.bytes(plan.gIdx)) : undefined;
  let zeroPoint: { packed: Uint8Array } | { values: ArrayLike<number> } | null = null;
  if (plan.zeroPoint !== null) {
    const bytes = await read.bytes(plan.zeroPoint);
    // Packed along N as the weight is (I32 words), or one signed value per scale as older files keep them.
    const packedBytes = 4 * Math.ceil(n / Math.floor(32 / bits)) * (scales.length / n);
    zeroPoint =
      dtypeOf(plan.zeroPoint) === 'I32' && bytes.length === packedBytes
        ? { packed: bytes }
        : { values: read.floats(plan.zeroPoint, bytes) };
  }
  const values = dequantizeCompressedInt({ packed, scales, zeroPoint, gIdx, bits, outFeatures: n, inFeatures: k });
  if (values === null) {
    throw notDequantized('the compressed-tensors weight, scales and zero points do not fit together');
  }
  const groups = scales.length / n;
  const grouping = gIdx
    ? 'groups by weight_g_idx'
    : groups === 1
      ? 'one scale per output channel'
      : `group ${k / groups}`;
  return {
    values,
    shape: [n, k],
    detail: `${bits}-bit compressed-tensors pack-quantized, W = (q − ${zeroPoint ? 'weight_zero_point' : '0'}) × weight_scale, ${grouping}; shown as W [N, K]`,
  };
}

export async function fp4Weight(
  plan: Fp4Plan,
  read: PlanReader,
  dtypeOf: (row: number) => string,
): Promise<DequantizedWeight> {
  const packed = await read.bytes(plan.weight);
  const scaleBytes = await read.bytes(plan.scales);
  // MXFP4's scales are E8M0 exponent bytes stored as U8: 2^(e − 127).
  const stored =
    plan.scheme === 'MXFP4' && dtypeOf(plan.scales) === 'U8'
      ? decodeValues('F8_E8M0', scaleBytes)
      : read.floats(plan.scales, scaleBytes);
  if (stored === null) {
    throw notDequantized('its scales are not decoded');
  }
  let second = 1;
  if (plan.secondScale !== null) {
    second = read.floats(plan.secondScale, await read.bytes(plan.secondScale))[0];
    if (!Number.isFinite(second) || second === 0) {
      throw notDequantized(`its second-level scale is ${second}`);
    }
  }
  // compressed-tensors divides by weight_global_scale, ModelOpt multiplies by weight_scale_2, both in float32.
  const divide = plan.producer === 'compressed-tensors';
  const groupScales = Float32Array.from(stored, (s) => (divide ? Math.fround(s / second) : Math.fround(s * second)));
  const values = dequantizeFp4Groups(
    packed,
    groupScales,
    E2M1_VALUES,
    plan.outFeatures,
    plan.inFeatures,
    plan.groupSize,
  );
  if (values === null) {
    throw notDequantized(`the ${plan.scheme} weight and its scales do not fit together`);
  }
  const secondText = plan.secondScale === null ? '' : divide ? ' ÷ weight_global_scale' : ' × weight_scale_2';
  const scaleText = plan.scheme === 'MXFP4' ? '2^(weight_scale − 127)' : `weight_scale${secondText}`;
  return {
    values,
    shape: plan.shape,
    detail: `${plan.scheme} (${plan.producer}), x = E2M1 × ${scaleText}, one scale per ${plan.groupSize} values; shown as W [N, K]`,
  };
}
