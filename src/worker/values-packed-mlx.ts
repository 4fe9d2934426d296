/**
 * MLX's packed weights (mlx-lm, mlx-community), dequantized from the codes, scales and biases read whole
 * (core/values/packed.ts plans them with the bits, group size and mode the quantization detector resolved;
 * core/values/dequant.ts does the arithmetic). The caller reads the bytes; this says what the values mean.
 */
import { decodeValues, E2M1_VALUES, E4M3_VALUES } from '../core/values/decode';
import { dequantizeMlx } from '../core/values/dequant';
import type { MlxPlan } from '../core/values/packed';
import type { DequantizedWeight } from './values-packed';
import { notDequantized, type PlanReader } from './values-packed-compressed';

/** The floating-point modes: each code's level table and the scales' format (one U8 per group). */
const FLOAT_MODES: Readonly<Record<string, { levels: Float32Array; scale: 'F8_E8M0' | 'F8_E4M3'; code: string }>> = {
  mxfp4: { levels: E2M1_VALUES, scale: 'F8_E8M0', code: 'E2M1' },
  nvfp4: { levels: E2M1_VALUES, scale: 'F8_E4M3', code: 'E2M1' },
  mxfp8: { levels: E4M3_VALUES, scale: 'F8_E8M0', code: 'E4M3' },
};

export async function mlxWeight(plan: MlxPlan, read: PlanReader): Promise<DequantizedWeight> {
  const { bits, groupSize, mode } = plan.packing;
  const float = FLOAT_MODES[mode];
  if (mode !== 'affine' && !float) {
    throw notDequantized(`MLX's ${mode} mode is not one this page decodes`);
  }
  const packed = await read.bytes(plan.weight);
  const scaleBytes = await read.bytes(plan.scales);
  const scales = float ? decodeValues(float.scale, scaleBytes) : read.floats(plan.scales, scaleBytes);
  const biases = plan.biases === null ? null : read.floats(plan.biases, await read.bytes(plan.biases));
  const values =
    scales &&
    dequantizeMlx(packed, scales, biases, float ? float.levels : null, {
      rows: plan.outFeatures,
      k: plan.inFeatures,
      bits,
      group: groupSize,
    });
  if (!values) {
    throw notDequantized(`the MLX weight, scales${biases ? ' and biases' : ''} do not fit together`);
  }
  const formula = float
    ? `x = ${float.code} × ${float.scale === 'F8_E8M0' ? '2^(scales − 127)' : 'scales (E4M3)'}`
    : 'W = scales × q + biases';
  return {
    values,
    shape: plan.shape,
    detail: `${bits}-bit MLX ${mode}, ${formula}, group ${groupSize}; shown as W [N, K]`,
  };
}
