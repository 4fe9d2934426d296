/**
 * MLX (mlx-lm / mlx-community; docs/format-notes.md#quantization-signatures-mlx): `<m>.weight` U32 [N, K·bits/32]
 * packed along the input, `<m>.scales` [N, K/g] and, in affine mode, `<m>.biases` [N, K/g]. Shapes fix only bits × g
 * (= 32·weight cols / scale cols: 4-bit g64 and 8-bit g32 both give 256), so the detector resolves the pair from
 * config.json, then from anchor dims (hidden_size from a norm, for modules whose input is the residual stream), and
 * only then assumes mlx-lm's default group size 64. A `.scales` next to a float `.weight` (GPTQ, or a plain layer that
 * happens to be called `scales`) is not MLX.
 */
import { makeFinding } from '../../findings/make-finding';
import type { Finding } from '../../model';
import { hiddenSizeFromNorms, INPUT_IS_HIDDEN, lastSegment } from '../anchors';
import {
  mode,
  siblingRows,
  type QuantContext,
  type QuantDetection,
  type QuantDetector,
  type QuantModule,
} from './quant-types';
import type { TensorIndex } from '../tensor-index';
import type { QuantConfigHint } from './config-hint';
import { freeWeightsWithSidecar } from './scan';
import { plural } from '../../number-format';
import { ModuleList } from './module-list';

const AFFINE_BITS = new Set([2, 3, 4, 5, 6, 8]);
/** mlx-lm's default group size, used only when nothing else settles bits vs group. */
const MLX_DEFAULT_GROUP = 64;

/** MLX's non-affine modes use a U8 scale and no biases; bits × group identifies the mode. */
const U8_SCALE_MODES: Readonly<Record<number, { mode: string; bits: number; group: number }>> = {
  128: { mode: 'mxfp4', bits: 4, group: 32 },
  64: { mode: 'nvfp4', bits: 4, group: 16 },
  256: { mode: 'mxfp8', bits: 8, group: 32 },
};

interface Candidate {
  base: string;
  weight: number;
  scales: number;
  affine: boolean;
  /** bits × group size. */
  product: number;
}

/** A module's bits, group size and mode (`affine`, `mxfp4`, `nvfp4`, `mxfp8`), as the detector resolves them. */
export interface MlxPacking {
  bits: number;
  groupSize: number;
  mode: string;
}

export const mlxDetector: QuantDetector = {
  family: 'mlx',
  detect: (context) => detectMlx(context)?.detection ?? null,
};

function detectMlx(context: QuantContext): { detection: QuantDetection; packings: Map<number, MlxPacking> } | null {
  const { index, config } = context;
  const candidates: Candidate[] = [];
  for (const { row, base, weight } of freeWeightsWithSidecar(context, '.scales')) {
    if (index.dtype(weight) !== 'U32' || index.rank(weight) < 2) {
      continue;
    }
    const biases = index.sibling(row, '.scales', '.biases');
    const scaleDtype = index.dtype(row);
    const affine = biases >= 0 && scaleDtype !== 'U8';
    if (!affine && scaleDtype !== 'U8') {
      continue;
    }
    if (index.rank(row) !== index.rank(weight) || index.dim(row, -2) !== index.dim(weight, -2)) {
      continue;
    }
    const product = (index.dim(weight, -1) * 32) / index.dim(row, -1);
    candidates.push({ base, weight, scales: row, affine, product });
  }
  if (candidates.length === 0) {
    return null;
  }

  const evidence: string[] = [];
  const findings: Finding[] = [];
  const needsConfig: string[] = [];
  const formatIsMlx = index.metadata.get('format') === 'mlx';
  evidence.push(
    `${plural(candidates.length, 'module')} with U32 .weight + .scales${candidates.some((c) => c.affine) ? ' + .biases' : ''} (MLX packing along the input dim)`,
  );
  if (formatIsMlx) {
    evidence.push('__metadata__ format = "mlx"');
  }

  // Global (bits, group): config first, then anchors.
  let globalBits: number | null = null;
  let globalGroup: number | null = null;
  let fromConfig = false;
  let confidence: 'high' | 'medium' | 'low' = 'medium';
  if (config && config.method === 'mlx' && config.bits !== null && config.groupSize !== null) {
    globalBits = config.bits;
    globalGroup = config.groupSize;
    fromConfig = true;
    confidence = 'high';
    evidence.push(`${config.source}: bits=${globalBits}, group_size=${globalGroup}`);
  } else {
    const hidden = hiddenSizeFromNorms(index);
    if (hidden) {
      const anchored: string[] = [];
      for (const candidate of candidates) {
        if (candidate.affine && INPUT_IS_HIDDEN.has(lastSegment(candidate.base))) {
          const bits = (index.dim(candidate.weight, -1) * 32) / hidden.size;
          if (AFFINE_BITS.has(bits)) {
            anchored.push(`${bits}/${candidate.product / bits}`);
          }
        }
      }
      const best = mode(anchored);
      if (best) {
        [globalBits, globalGroup] = best.split('/').map(Number);
        confidence = 'high';
        evidence.push(
          `anchor: ${hidden.tensor} has length ${hidden.size} = in_features of q/k/v/gate/up/embedding, so bits = packed cols × 32 / ${hidden.size} = ${globalBits} and group = ${globalGroup}`,
        );
      }
    }
  }

  const modules: QuantModule[] = [];
  const packings = new Map<number, MlxPacking>();
  const modes: string[] = [];
  const bitsSeen: number[] = [];
  const groupsSeen: number[] = [];
  let assumed = 0;
  const mismatched: number[] = [];
  for (const candidate of candidates) {
    let bits: number;
    let group: number;
    let modeName = 'affine';
    const override = config?.perModule.get(candidate.base);
    if (!candidate.affine) {
      const known = U8_SCALE_MODES[candidate.product];
      if (!known) {
        continue;
      }
      ({ bits, group, mode: modeName } = known);
    } else if (override && override.bits !== null && override.groupSize !== null) {
      bits = override.bits;
      group = override.groupSize;
    } else if (globalBits !== null && globalGroup !== null && globalBits * globalGroup === candidate.product) {
      bits = globalBits;
      group = globalGroup;
    } else if (globalGroup !== null && AFFINE_BITS.has(candidate.product / globalGroup)) {
      // Mixed recipes (e.g. 6-bit embeddings in a 4-bit model) change bits far more often than group size.
      group = globalGroup;
      bits = candidate.product / globalGroup;
      if (fromConfig) {
        mismatched.push(candidate.weight);
      }
    } else {
      group = MLX_DEFAULT_GROUP;
      bits = candidate.product / MLX_DEFAULT_GROUP;
      assumed++;
      if (!AFFINE_BITS.has(bits)) {
        continue;
      }
    }
    modes.push(modeName);
    bitsSeen.push(bits);
    groupsSeen.push(group);
    modules.push({
      name: candidate.base,
      weightRow: candidate.weight,
      rows: siblingRows(context, candidate.scales, '.scales', ['.weight', '.scales', '.biases']),
      logicalParams: (index.elements(candidate.weight) * 32) / bits,
    });
    packings.set(candidate.weight, { bits, groupSize: group, mode: modeName });
  }
  if (modules.length === 0) {
    return null;
  }
  if (assumed > 0) {
    confidence = 'low';
    needsConfig.push(
      `bits vs group size for ${assumed} module(s): shapes fix only bits × group; assumed mlx-lm's default group ${MLX_DEFAULT_GROUP}. config.json "quantization" {bits, group_size} settles it.`,
    );
  }
  if (mismatched.length > 0) {
    findings.push(
      makeFinding(
        'quant-config-mismatch',
        `${mismatched.length} module(s) are packed with a different bits × group size than config.json "quantization" says and have no per-layer override there.`,
        mismatched,
      ),
    );
  }
  const distinctBits = new Set(bitsSeen);
  if (distinctBits.size > 1) {
    evidence.push(`mixed bit widths across modules: ${[...distinctBits].sort((a, b) => a - b).join(', ')}`);
  }
  const detection: QuantDetection = {
    family: 'mlx',
    format: mode(modes) ?? 'affine',
    bits: distinctBits.size === 1 ? bitsSeen[0] : mode(bitsSeen),
    groupSize: mode(groupsSeen),
    granularity: 'group',
    weightDtype: 'U32',
    modules: ModuleList.of(modules),
    auxRows: [],
    confidence,
    evidence,
    findings,
    fromConfig,
    ...(needsConfig.length > 0 ? { needsConfig } : {}),
  };
  return { detection, packings };
}

/**
 * Each MLX weight row's bits, group size and mode, as the detector resolves them (config.json's `quantization`
 * with its per-module overrides, else anchors, else mlx-lm's default group): what "Read values" dequantizes by.
 */
export function mlxPackings(index: TensorIndex, config: QuantConfigHint | null): Map<number, MlxPacking> {
  const found = detectMlx({
    index,
    claimed: new Uint8Array(index.count),
    claimedByCode: new Uint32Array(256),
    fileName: '',
    config,
    tensorBytes: new Map(),
  });
  return found?.packings ?? new Map();
}
