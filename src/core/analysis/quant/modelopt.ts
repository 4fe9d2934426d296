/**
 * NVIDIA ModelOpt unified HF export (docs/format-notes.md#quantization-signatures-nvidia-modelopt). Names stay the
 * original module names, so only dtypes reveal it: NVFP4 = `weight` U8 [N, K/2] + `weight_scale` F8_E4M3 [N, K/16] +
 * `weight_scale_2` F32 [] (+ `input_scale`); INT4-AWQ / W4A8-AWQ = `weight` U8 packed int4 + float per-group
 * `weight_scale` (+ `pre_quant_scale`). ComfyUI NVFP4 has the same names but a `.comfy_quant` per layer and is claimed
 * first. ModelOpt FP8 is indistinguishable from other per-tensor FP8 and is left to the FP8 detector.
 */
import { isFloat8, isHighPrecisionFloat, mode, siblingRows, type QuantDetector, type QuantModule } from './quant-types';
import { freeWeightsWithSidecar } from './scan';
import { ModuleList } from './module-list';

const SIDECARS = ['.weight', '.weight_scale', '.weight_scale_2', '.input_scale', '.pre_quant_scale'];

export const modeloptDetector: QuantDetector = {
  family: 'modelopt',
  detect(context) {
    const { index } = context;
    const modules: QuantModule[] = [];
    const formats: string[] = [];
    const groups: number[] = [];
    for (const { row, base, weight } of freeWeightsWithSidecar(context, '.weight_scale')) {
      if (index.dtype(weight) !== 'U8' || index.rank(weight) !== 2 || index.rank(row) !== 2) {
        continue;
      }
      const k = index.dim(weight, 1) * 2;
      const scaleDtype = index.dtype(row);
      if (isFloat8(scaleDtype) && index.sibling(row, '.weight_scale', '.weight_scale_2') >= 0) {
        formats.push('nvfp4');
      } else if (isHighPrecisionFloat(scaleDtype)) {
        formats.push('int4-awq');
      } else {
        continue;
      }
      groups.push(k / index.dim(row, 1));
      modules.push({
        name: base,
        weightRow: weight,
        rows: siblingRows(context, row, '.weight_scale', SIDECARS),
        logicalParams: index.dim(weight, 0) * k,
      });
    }
    if (modules.length === 0) {
      return null;
    }
    const format = mode(formats) ?? 'nvfp4';
    return {
      family: 'modelopt',
      format,
      bits: 4,
      groupSize: mode(groups),
      granularity: 'group',
      weightDtype: 'U8',
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: 'high',
      evidence: [
        format === 'nvfp4'
          ? `${modules.length} U8 weights [N, K/2] with F8_E4M3 .weight_scale [N, K/16] and .weight_scale_2 F32 []: ModelOpt NVFP4 (two E2M1 values per byte)`
          : `${modules.length} U8 packed int4 weights with float per-group .weight_scale: ModelOpt INT4-AWQ`,
      ],
      findings: [],
    };
  },
};
