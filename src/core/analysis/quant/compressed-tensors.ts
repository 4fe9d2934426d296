/**
 * compressed-tensors (llm-compressor; docs/format-notes.md#quantization-signatures-compressed-tensors).
 * pack-quantized int: `weight_packed` I32 [N, ceil(K·bits/32)], `weight_scale` [N, K/g] (or [N,1]),
 * `weight_shape` I64 [2] = [N, K] (its 16 bytes are fetched: they make bits exact), optional
 * `weight_zero_point`, `weight_g_idx`.
 * nvfp4-pack-quantized: `weight_packed` U8 [N, K/2], `weight_scale` F8_E4M3 [N, K/16], `weight_global_scale` F32 [1].
 * mxfp4-pack-quantized: `weight_packed` U8 [N, K/2], `weight_scale` U8 (E8M0) [N, K/32].
 * int-quantized (W8A8 int8): `weight` I8 [N, K] + `weight_scale`.
 * Bookkeeping tensors (`weight_shape`, `weight_g_idx`) are never multiplied by a packing factor.
 */
import { hiddenSizeFromNorms, INPUT_IS_HIDDEN, lastSegment } from '../anchors';
import { decodeNumbers } from '../values';
import {
  grouping,
  isFloat8,
  mode,
  PER_CHANNEL_GROUP,
  siblingRows,
  type QuantDetector,
  type QuantModule,
} from './quant-types';
import { freeRowsEndingWith, freeWeightsWithSidecar } from './scan';
import { plural } from '../../number-format';
import { ModuleList } from './module-list';

const SIDECARS = [
  '.weight_packed',
  '.weight_scale',
  '.weight_shape',
  '.weight_zero_point',
  '.weight_g_idx',
  '.weight_global_scale',
  '.input_global_scale',
  '.input_scale',
];

const INT_BITS = new Set([2, 3, 4, 8]);

export const compressedTensorsDetector: QuantDetector = {
  family: 'compressed-tensors',
  tensorBytesWanted: (index) => index.rowsEndingWith('.weight_shape').filter((row) => index.elements(row) <= 4),
  detect(context) {
    const { index, tensorBytes, config } = context;
    const modules: QuantModule[] = [];
    const formats: string[] = [];
    const bitsSeen: number[] = [];
    const groups: number[] = [];
    const evidence: string[] = [];
    const needsConfig: string[] = [];
    let shapesRead = 0;
    let assumed = 0;
    const hidden = hiddenSizeFromNorms(index);
    for (const { row, base } of freeRowsEndingWith(context, '.weight_packed')) {
      if (index.rank(row) !== 2) {
        continue;
      }
      const scale = index.sibling(row, '.weight_packed', '.weight_scale');
      const n = index.dim(row, 0);
      const packedCols = index.dim(row, 1);
      const rows = siblingRows(context, row, '.weight_packed', SIDECARS);
      if (index.dtype(row) === 'U8') {
        const scaleDtype = scale >= 0 ? index.dtype(scale) : '';
        const k = packedCols * 2;
        const nvfp4 = isFloat8(scaleDtype) || index.sibling(row, '.weight_packed', '.weight_global_scale') >= 0;
        formats.push(nvfp4 ? 'nvfp4-pack-quantized' : 'mxfp4-pack-quantized');
        bitsSeen.push(4);
        if (scale >= 0 && index.rank(scale) === 2) {
          groups.push(k / index.dim(scale, 1));
        }
        modules.push({ name: base, weightRow: row, rows, logicalParams: n * k });
        continue;
      }
      // Integer pack: K from the weight_shape bytes, else from config group × scale cols, else from anchors.
      let k: number | null = null;
      const shapeRow = index.sibling(row, '.weight_packed', '.weight_shape');
      const shapeBytes = shapeRow >= 0 ? tensorBytes.get(shapeRow) : undefined;
      const shapeValues = shapeBytes ? decodeNumbers(index.dtype(shapeRow), shapeBytes, 2) : null;
      if (shapeValues && shapeValues.length === 2 && shapeValues[0] === n) {
        k = shapeValues[1];
        shapesRead++;
      } else if (config?.groupSize && scale >= 0 && index.rank(scale) === 2 && index.dim(scale, 1) > 1) {
        k = config.groupSize * index.dim(scale, 1);
      } else if (hidden && INPUT_IS_HIDDEN.has(lastSegment(base))) {
        k = hidden.size;
      }
      let bits = k !== null ? (packedCols * 32) / k : null;
      if (k === null || bits === null || !INT_BITS.has(bits)) {
        bits = config?.bits ?? 4;
        k = (packedCols * 32) / bits;
        assumed++;
      }
      const inFeatures: number = k;
      formats.push('pack-quantized');
      bitsSeen.push(bits);
      if (scale >= 0 && index.rank(scale) === 2) {
        groups.push(index.dim(scale, 1) === 1 ? PER_CHANNEL_GROUP : inFeatures / index.dim(scale, 1));
      }
      modules.push({ name: base, weightRow: row, rows, logicalParams: n * inFeatures });
    }
    // int-quantized W8A8: I8 weight + weight_scale (bitsandbytes SCB and ComfyUI comfy_quant were claimed earlier).
    for (const { row, base, weight } of freeWeightsWithSidecar(context, '.weight_scale')) {
      if (index.dtype(weight) !== 'I8' || index.rank(weight) !== 2) {
        continue;
      }
      formats.push('int-quantized');
      bitsSeen.push(8);
      groups.push(
        index.elements(row) === index.dim(weight, 0) || index.elements(row) === 1
          ? PER_CHANNEL_GROUP
          : index.dim(weight, 1) / index.dim(row, -1),
      );
      modules.push({
        name: base,
        weightRow: weight,
        rows: siblingRows(context, row, '.weight_scale', [
          '.weight',
          '.weight_scale',
          '.weight_zero_point',
          '.input_scale',
        ]),
        logicalParams: index.elements(weight),
      });
    }
    if (modules.length === 0) {
      return null;
    }
    const format = mode(formats) ?? 'pack-quantized';
    evidence.push(`${plural(modules.length, 'module')} in compressed-tensors layout (${format}: ${describe(format)})`);
    if (shapesRead > 0) {
      evidence.push(`in_features read from ${shapesRead} .weight_shape tensor(s) (I64 [2] = [N, K])`);
    }
    if (assumed > 0) {
      needsConfig.push(
        `bits for ${assumed} packed module(s): .weight_shape was not read and no group size is known; assumed ${config?.bits ?? 4}-bit. config.json quantization_config.config_groups settles it.`,
      );
    }
    const groupSize = mode(groups);
    return {
      family: 'compressed-tensors',
      format,
      bits: mode(bitsSeen),
      ...grouping(groupSize),
      weightDtype: index.dtype(modules[0].weightRow),
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: assumed > 0 ? 'low' : 'high',
      evidence,
      findings: [],
      ...(needsConfig.length > 0 ? { needsConfig } : {}),
    };
  },
};

function describe(format: string): string {
  switch (format) {
    case 'nvfp4-pack-quantized':
      return 'U8 weight_packed with F8_E4M3 group-16 scales and a global scale';
    case 'mxfp4-pack-quantized':
      return 'U8 weight_packed with E8M0 group-32 scales';
    case 'int-quantized':
      return 'I8 weight with weight_scale';
    default:
      return 'I32 weight_packed with weight_scale and weight_shape';
  }
}
