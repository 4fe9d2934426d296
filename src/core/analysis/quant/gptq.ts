/**
 * GPTQ (AutoGPTQ / GPTQModel / optimum) and its Marlin repack.
 * GPTQ packs along the INPUT dim: qweight [K·bits/P, N], scales [ceil(K/g), N], qzeros [ceil(K/g), N·bits/P],
 * g_idx [K] (P = container bits: I32 → 32). AWQ uses the same three names but packs along the OUTPUT dim, so the
 * test is `qweight.shape[1] == scales.shape[1]` (docs/format-notes.md#quantization-signatures-gptq-vs-awq; AutoGPTQ
 * auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py).
 */
import { makeFinding } from '../../findings/make-finding';
import type { Finding } from '../../model';
import { asNumber } from '../values';
import {
  CONTAINER_BITS,
  grouping,
  isPositiveInteger,
  mode,
  PER_CHANNEL_GROUP,
  siblingRows,
  type QuantContext,
  type QuantDetection,
  type QuantDetector,
  type QuantModule,
} from './quant-types';
import { freeRowsEndingWith } from './scan';
import { plural } from '../../number-format';
import { ModuleList } from './module-list';

/** Bit widths GPTQ kernels implement (GPTQModel adds 5–7 via its planar packer). */
const GPTQ_BITS = new Set([2, 3, 4, 5, 6, 7, 8]);

export interface PackedModuleShape {
  module: QuantModule;
  bits: number | null;
  groupSize: number | null;
  inFeatures: number | null;
}

/** The GPTQ reading of one `.qweight`, or null when the shapes are not GPTQ-oriented. */
function readGptqModule(context: QuantContext, qweightRow: number, base: string): PackedModuleShape | null {
  const { index } = context;
  const scales = index.sibling(qweightRow, '.qweight', '.scales');
  if (scales < 0 || index.rank(qweightRow) !== 2 || index.rank(scales) !== 2) {
    return null;
  }
  const container = CONTAINER_BITS[index.dtype(qweightRow)];
  const n = index.dim(scales, 1);
  if (container === undefined || index.dim(qweightRow, 1) !== n) {
    return null;
  }
  const qzeros = index.sibling(qweightRow, '.qweight', '.qzeros');
  const gIdx = index.sibling(qweightRow, '.qweight', '.g_idx');
  let bits: number | null = null;
  if (qzeros >= 0 && index.rank(qzeros) === 2) {
    const candidate = (index.dim(qzeros, 1) * container) / n;
    bits = GPTQ_BITS.has(candidate) ? candidate : null;
  }
  if (bits === null && gIdx >= 0) {
    const candidate = (index.dim(qweightRow, 0) * container) / index.dim(gIdx, 0);
    bits = GPTQ_BITS.has(candidate) ? candidate : null;
  }
  const k = gIdx >= 0 ? index.dim(gIdx, 0) : bits !== null ? (index.dim(qweightRow, 0) * container) / bits : null;
  const groups = index.dim(scales, 0);
  const groupSize =
    k !== null && isPositiveInteger(k) ? (groups === 1 ? PER_CHANNEL_GROUP : Math.ceil(k / groups)) : null;
  const logical = k !== null && isPositiveInteger(k) ? k * n : (index.dim(qweightRow, 0) * container * n) / 4;
  return {
    module: {
      name: base,
      weightRow: qweightRow,
      rows: siblingRows(context, qweightRow, '.qweight', ['.qweight', '.qzeros', '.scales', '.g_idx']),
      logicalParams: logical,
    },
    bits,
    groupSize,
    inFeatures: k,
  };
}

export const gptqDetector: QuantDetector = {
  family: 'gptq',
  detect(context) {
    const { index } = context;
    const readings: PackedModuleShape[] = [];
    const findings: Finding[] = [];
    const orphans: number[] = [];
    for (const { row, base } of freeRowsEndingWith(context, '.qweight')) {
      if (index.sibling(row, '.qweight', '.scales') < 0) {
        orphans.push(row);
        continue;
      }
      const reading = readGptqModule(context, row, base);
      if (reading) {
        readings.push(reading);
      }
    }
    if (orphans.length > 0) {
      findings.push(
        makeFinding(
          'quant-incomplete-module',
          `${orphans.length} \`.qweight\` tensor(s) have no \`.scales\` beside them, so they cannot be dequantized; the file may be cut or renamed.`,
          orphans,
        ),
      );
    }
    if (readings.length === 0) {
      return findings.length > 0 ? emptyDetection('gptq', findings) : null;
    }
    const bits = mode(readings.map((r) => r.bits).filter((b): b is number => b !== null));
    const groupSize = mode(readings.map((r) => r.groupSize).filter((g): g is number => g !== null));
    const evidence = [
      `${plural(readings.length, 'module')} with .qweight/.qzeros/.scales where qweight.shape[1] == scales.shape[1] (packed along the input dim: GPTQ, not AWQ)`,
    ];
    const withGIdx = readings.filter((r) => r.module.rows.some((row) => index.names[row].endsWith('.g_idx'))).length;
    if (withGIdx > 0) {
      evidence.push(`${plural(withGIdx, 'module carries', 'modules carry')} .g_idx (input-column group map, I32 [K])`);
    }
    const first = readings[0];
    evidence.push(
      `${index.names[first.module.weightRow]}: ${index.dtype(first.module.weightRow)} ${JSON.stringify(index.shape(first.module.weightRow))} → bits = qzeros cols × ${CONTAINER_BITS[index.dtype(first.module.weightRow)]} / N`,
    );
    metadataEvidence(context, bits, groupSize, evidence, findings);
    const checkpointFormat = context.index.metadata.get('gptq_checkpoint_format');
    return {
      family: 'gptq',
      format: checkpointFormat ?? 'gptq',
      bits,
      ...grouping(groupSize),
      weightDtype: index.dtype(first.module.weightRow),
      modules: ModuleList.of(readings.map((r) => r.module)),
      auxRows: [],
      confidence: bits !== null && groupSize !== null ? 'high' : 'medium',
      evidence,
      findings,
      ...(bits === null
        ? { needsConfig: ['bits (no qzeros/g_idx to derive them): config.json quantization_config.bits'] }
        : {}),
    };
  },
};

/** AutoGPTQ writes its settings into __metadata__; compare them with the shapes. */
function metadataEvidence(
  context: QuantContext,
  bits: number | null,
  groupSize: number | null,
  evidence: string[],
  findings: Finding[],
): void {
  const metadata = context.index.metadata;
  const declaredBits = asNumber(metadata.get('gptq_bits'));
  const declaredGroup = asNumber(metadata.get('gptq_group_size'));
  if (declaredBits === null && declaredGroup === null) {
    return;
  }
  evidence.push(
    `__metadata__ (AutoGPTQ): gptq_bits=${metadata.get('gptq_bits') ?? '–'}, gptq_group_size=${metadata.get('gptq_group_size') ?? '–'}`,
  );
  const bitsDisagree = declaredBits !== null && bits !== null && declaredBits !== bits;
  const groupDisagree = declaredGroup !== null && groupSize !== null && declaredGroup !== groupSize;
  if (bitsDisagree || groupDisagree) {
    findings.push(
      makeFinding(
        'quant-config-mismatch',
        `__metadata__ says gptq_bits=${declaredBits ?? '–'} / gptq_group_size=${declaredGroup ?? '–'}, but the tensor shapes give ${bits ?? '?'} bits / group ${groupSize ?? '?'}. Trust the shapes; a loader that trusts the metadata will unpack the weights wrongly.`,
      ),
    );
  }
}

function emptyDetection(family: QuantDetection['family'], findings: Finding[]): QuantDetection {
  return {
    family,
    format: family,
    bits: null,
    groupSize: null,
    granularity: null,
    weightDtype: null,
    modules: new ModuleList(),
    auxRows: [],
    confidence: 'low',
    evidence: [],
    findings,
  };
}

/**
 * GPTQ Marlin repack (AutoGPTQ `qlinear_marlin.py`): `B` I32 [K/16, N·16·bits/32] and `s` F16 [K/g, N].
 * Logical = 16·B.shape[0] × s.shape[1].
 */
export const gptqMarlinDetector: QuantDetector = {
  family: 'gptq-marlin',
  detect(context) {
    const { index } = context;
    const modules: QuantModule[] = [];
    const bitsSeen: number[] = [];
    const groups: number[] = [];
    for (const { row, base } of freeRowsEndingWith(context, '.B')) {
      if (index.dtype(row) !== 'I32' || index.rank(row) !== 2) {
        continue;
      }
      const s = index.sibling(row, '.B', '.s');
      if (s < 0 || index.rank(s) !== 2) {
        continue;
      }
      const k = 16 * index.dim(row, 0);
      const n = index.dim(s, 1);
      bitsSeen.push((index.dim(row, 1) * 32) / (16 * n));
      groups.push(index.dim(s, 0) === 1 ? PER_CHANNEL_GROUP : k / index.dim(s, 0));
      modules.push({
        name: base,
        weightRow: row,
        rows: siblingRows(context, row, '.B', ['.B', '.s', '.workspace']),
        logicalParams: k * n,
      });
    }
    if (modules.length === 0) {
      return null;
    }
    const groupSize = mode(groups);
    return {
      family: 'gptq-marlin',
      format: 'marlin',
      bits: mode(bitsSeen),
      ...grouping(groupSize),
      weightDtype: 'I32',
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: 'medium',
      evidence: [`${plural(modules.length, 'module')} with Marlin-packed .B (I32 [K/16, 2N]) and .s scales`],
      findings: [],
    };
  },
};
