/**
 * The memory analysis for a GGUF file: the same MemorySection as for safetensors (exact weight bytes, the KV
 * layout, MoE active parameters, the report's fixed contexts), computed with llama.cpp's conventions
 * (gguf-memory.ts) from the key-values the GGUF reader keeps on ParsedHeader.gguf. The Memory view recomputes other
 * settings (context, cache types, GPU layers) from the same basis with estimateGgufMemory.
 */
import { dtypeName } from '../../dtypes';
import type { ParsedHeader } from '../../model';
import { tensorName, tensorShape } from '../../model';
import { groupDigits } from '../../number-format';
import { storedBytes, tensorIndex } from '../tensor-index';
import type { AnalysisInput } from '../analysis-types';
import { reportTokenCounts } from './estimate';
import { GgufKeys, type GgufMetadata, type GgufScalar, type GgufTensorSummary } from './gguf-inputs';
import { ggufKvPlan } from './gguf-kv';
import { estimateGgufMemory, ggufMoe, type GgufMemoryInputs } from './gguf-memory';
import type { MemorySection } from './memory-types';
import { weightsSummary } from './weights';

/** What the GGUF memory estimate reads from a parsed GGUF. */
export interface GgufMemoryBasis {
  metadata: GgufMetadata;
  tensors: GgufTensorSummary[];
  /** Array keys the reader kept only the first items of: per-layer values past those are unknown. */
  partialArrays: string[];
}

const INTEGER_TYPES = new Set(['UINT8', 'INT8', 'UINT16', 'INT16', 'UINT32', 'INT32', 'UINT64', 'INT64']);

/** One value as the reader's text shows it, back as the scalar it was; undefined when the text is not one. */
function scalarOf(type: string | undefined, text: string): GgufScalar | undefined {
  if (type === 'BOOL') {
    return text === 'true' ? true : text === 'false' ? false : undefined;
  }
  if (type === 'STRING') {
    return text;
  }
  if (type !== undefined && INTEGER_TYPES.has(type)) {
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : undefined;
  }
  if (type === 'FLOAT32' || type === 'FLOAT64') {
    const value = Number(text);
    return Number.isFinite(value) ? value : undefined;
  }
  return undefined;
}

function arrayItemOf(type: string | undefined, text: string): GgufScalar | undefined {
  if (type === 'STRING') {
    try {
      const parsed: unknown = JSON.parse(text);
      return typeof parsed === 'string' ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return scalarOf(type, text);
}

/**
 * A parsed GGUF's key-values back as typed values (arrays the reader kept whole), and the array keys it kept only the
 * first items of; null for any other format.
 */
export function ggufMetadataOf(header: ParsedHeader): { metadata: GgufMetadata; partialArrays: string[] } | null {
  const summary = header.gguf;
  if (!summary) {
    return null;
  }
  const metadata = new Map<string, GgufScalar | GgufScalar[]>();
  const partialArrays: string[] = [];
  for (const kv of summary.kvs) {
    if (kv.type === 'ARRAY') {
      const items = kv.items ?? [];
      if ((kv.count ?? 0) > items.length) {
        // Token lists and other long arrays: only their first items travel, and no estimate reads them whole.
        partialArrays.push(kv.key);
        continue;
      }
      const values = items.map((item) => arrayItemOf(kv.elementType, item));
      if (values.every((value) => value !== undefined)) {
        metadata.set(kv.key, values as GgufScalar[]);
      }
      continue;
    }
    const value = scalarOf(kv.type, kv.value);
    if (value !== undefined) {
      metadata.set(kv.key, value);
    }
  }
  return { metadata, partialArrays };
}

/** The metadata and tensors of a parsed GGUF in the shape the estimate reads; null for any other format. */
export function ggufMemoryBasis(header: ParsedHeader, names?: readonly string[]): GgufMemoryBasis | null {
  const read = ggufMetadataOf(header);
  if (read === null) {
    return null;
  }
  const { metadata, partialArrays } = read;
  const columns = header.tensors;
  const tensors: GgufTensorSummary[] = [];
  for (let row = 0; row < columns.count; row++) {
    tensors.push({
      name: names?.[row] ?? tensorName(columns, row),
      ggmlType: dtypeName(columns.dtype[row]) ?? header.unknownDtypes.get(row) ?? 'unknown',
      shape: tensorShape(columns, row),
      bytes: storedBytes(columns, row),
    });
  }
  return { metadata, tensors, partialArrays };
}

/** llama.cpp's defaults: an f16 cache, no flash attention, everything on the GPU (`-ngl 99`). */
export const GGUF_DEFAULT_SETTINGS: GgufMemoryInputs = {
  cacheTypeK: 'f16',
  cacheTypeV: 'f16',
  gpuLayers: Number.MAX_SAFE_INTEGER,
};

export function analyzeGgufMemory(input: AnalysisInput): MemorySection | null {
  const basis = ggufMemoryBasis(input.header, input.names);
  if (!basis || basis.tensors.length === 0) {
    return null;
  }
  const keys = new GgufKeys(basis.metadata);
  const blocks = keys.blockCount();
  const plan = ggufKvPlan(basis.metadata);
  if (blocks === null || !plan) {
    return null;
  }
  const weights = weightsSummary(tensorIndex(input.header, input.names), blocks, null);
  const weightsBytes = basis.tensors.reduce((total, tensor) => total + tensor.bytes, 0);
  const contextLength = plan.contextLength;
  const at = (tokens: number) =>
    estimateGgufMemory(basis.metadata, basis.tensors, { ...GGUF_DEFAULT_SETTINGS, contextTokens: tokens });
  const tokens = reportTokenCounts(contextLength, plan.noMemory !== null);
  const contexts = tokens.flatMap((count) => {
    const estimate = at(count);
    if (!estimate) {
      return [];
    }
    const kvBytes = estimate.kvBytes + estimate.stateBytes;
    return [{ tokens: count, batch: 1, kvBytes, totalBytes: estimate.vram.totalBytes + estimate.ram.totalBytes }];
  });
  // One more token past a padded context: the per-token cost while no sliding window is full yet.
  const small = at(32);
  const larger = at(64);
  const kvBytesPerToken = small && larger ? (larger.kvBytes - small.kvBytes) / 32 : 0;
  const evidence = [
    `Weights: ${groupDigits(weightsBytes)} B, the sum of every tensor's stored bytes (ggml blocks × bytes per block).`,
    ...(plan.noMemory === null
      ? [
          `KV cache from the GGUF metadata (${plan.arch}.*), laid out as llama.cpp lays it out; f16 cache by default (-ctk/-ctv).`,
        ]
      : []),
    ...plan.notes,
  ];
  if (basis.partialArrays.some((key) => key.startsWith(`${plan.arch}.`))) {
    evidence.push(
      `Per-layer arrays longer than the reader keeps (${basis.partialArrays.filter((key) => key.startsWith(`${plan.arch}.`)).join(', ')}) are not read: their layers use the scalar keys.`,
    );
  }
  const section: MemorySection = {
    weightsBytes,
    kvBytesPerToken,
    cacheDtype: 'fp16',
    contexts,
    config: 'gguf',
    maxContext: contextLength,
    maxContextSource: contextLength !== null ? `${plan.arch}.context_length` : null,
    // The GGUF Memory tab sizes llama.cpp's own cache and -ngl split; the tensor-parallel and rope figures of the
    // config.json path do not apply.
    ropeScaling: null,
    attentionHeads: null,
    kvHeads: null,
    modelType: plan.arch,
    weights: { ...weights.summary, bytes: weightsBytes },
    kv: plan.kvModel,
    lora: null,
    evidence,
  };
  const moe = ggufMoe(basis.metadata, basis.tensors);
  if (moe) {
    const activeParams = moe.activeParams === null ? null : Math.round(moe.activeParams);
    const withoutInput = moe.activeParamsWithoutInputEmbedding;
    section.moe = {
      ...moe,
      activeParams,
      activeParamsWithoutInputEmbedding: withoutInput === null ? null : Math.round(withoutInput),
    };
    if (activeParams !== null) {
      section.activeParams = activeParams;
    }
  }
  return section;
}
