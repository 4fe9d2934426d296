/**
 * The contract between the quantization orchestrator (quantization.ts) and its per-family detectors.
 * A detector is a small pure function over the shared TensorIndex: it recognises its family's signature, groups
 * the tensors of each quantized module, and states the module's logical (unpacked) parameter count. Shared
 * arithmetic (bits per weight, layer lists, precision summary) lives in the orchestrator so every family is
 * measured the same way.
 */
import type { DataSample } from '../sampling';
import type { Finding } from '../../model';
import type { Confidence, LayerConfigGroup, QuantFamily, QuantGranularity } from '../report-sections';
import type { TensorIndex } from '../tensor-index';
import type { QuantConfigHint } from './config-hint';
import type { ModuleList } from './module-list';

export interface QuantModule {
  /** Module path, e.g. `model.layers.0.self_attn.q_proj`. */
  name: string;
  /** Row of the packed/quantized weight tensor. */
  weightRow: number;
  /** Weight plus every sidecar (scales, zeros, g_idx, maps, JSON configs); never the bias. */
  rows: number[];
  /** Elements of the original weight. */
  logicalParams: number;
}

export interface QuantDetection {
  family: QuantFamily;
  format: string;
  bits: number | null;
  groupSize: number | null;
  granularity: QuantGranularity | null;
  blockSize?: [number, number];
  weightDtype: string | null;
  modules: ModuleList;
  /** File-level tensors that belong to the format but carry no parameters (markers, KV-cache scales). */
  auxRows: number[];
  confidence: Confidence;
  evidence: string[];
  needsConfig?: string[];
  perLayerConfigs?: LayerConfigGroup[];
  /** How many per-layer configs were read of how many the file holds (ComfyUI comfy_quant). */
  configSample?: DataSample;
  findings: Finding[];
  /** Set when bits / group size came from config.json rather than the header. */
  fromConfig?: boolean;
}

export interface QuantContext {
  index: TensorIndex;
  /** 1 for rows an earlier (more specific) detector already took. Detectors must skip them. */
  claimed: Uint8Array;
  /** How many rows of each dtype code are claimed, so a detector can tell without a pass that none is left. */
  claimedByCode: Uint32Array;
  fileName: string;
  config: QuantConfigHint | null;
  tensorBytes: ReadonlyMap<number, Uint8Array>;
  /** AnalysisInput.tensorBytesSampled: unread rows were left out on purpose. */
  tensorBytesSampled?: boolean;
}

export interface QuantDetector {
  family: QuantFamily;
  /** Rows whose bytes this detector reads (tiny JSON or integer tensors). */
  tensorBytesWanted?: (index: TensorIndex) => number[];
  detect: (context: QuantContext) => QuantDetection | null;
}

/** Strips a suffix; callers have checked endsWith. */
export function stripSuffix(name: string, suffix: string): string {
  return name.slice(0, name.length - suffix.length);
}

export function isFloat8(dtype: string): boolean {
  return dtype.startsWith('F8_') && dtype !== 'F8_E8M0';
}

export function isHighPrecisionFloat(dtype: string): boolean {
  return dtype === 'F16' || dtype === 'BF16' || dtype === 'F32' || dtype === 'F64';
}

/** Integer container widths GPTQ-style packers use. */
export const CONTAINER_BITS: Readonly<Record<string, number>> = { I8: 8, U8: 8, I16: 16, I32: 32, U32: 32, I64: 64 };

/**
 * For `row`, named `<module><suffix>`: the rows `<module><sibling suffix>` for each of `siblingSuffixes` that exists
 * and is free; the order follows `siblingSuffixes`.
 */
export function siblingRows(
  context: QuantContext,
  row: number,
  suffix: string,
  siblingSuffixes: readonly string[],
): number[] {
  const rows: number[] = [];
  for (const siblingSuffix of siblingSuffixes) {
    // The row itself needs no lookup: detectors list their own suffix among the module's rows.
    const sibling = siblingSuffix === suffix ? row : context.index.sibling(row, suffix, siblingSuffix);
    if (sibling >= 0 && context.claimed[sibling] === 0) {
      rows.push(sibling);
    }
  }
  return rows;
}

/** A group size that stands for one scale per output channel (GPTQ's `group_size: -1`; the detectors use it too). */
export const PER_CHANNEL_GROUP = -1;

/** What a detection reports for its most-seen group size: PER_CHANNEL_GROUP is channel-wise, with no group size. */
export function grouping(groupSize: number | null): Pick<QuantDetection, 'groupSize' | 'granularity'> {
  if (groupSize === PER_CHANNEL_GROUP) {
    return { groupSize: null, granularity: 'channel' };
  }
  return { groupSize, granularity: groupSize === null ? null : 'group' };
}

/** Most frequent value (ties: the first seen); null for an empty list. */
export function mode<T>(values: Iterable<T>): T | null {
  const counts = new Map<T, number>();
  let best: T | null = null;
  let bestCount = 0;
  for (const value of values) {
    const count = (counts.get(value) ?? 0) + 1;
    counts.set(value, count);
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

export function isPositiveInteger(value: number): boolean {
  return Number.isInteger(value) && value > 0;
}
