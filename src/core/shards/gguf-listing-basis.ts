/**
 * What the Hub GGUF list needs from the model that is open, to size every quant without reading another header: the
 * parameter count (bits per weight = file bytes × 8 / parameters) and, at a context, the KV cache and the runtime
 * buffers on top of the file. Neither depends on the quant, so one header serves every row:
 * - an open GGUF: llama.cpp's allocation from its own metadata (estimateGgufMemory: f16 cache, every layer on the
 *   GPU, compute buffers included);
 * - an open safetensors (or PyTorch) model with a memory section: its KV cache at 2 bytes per element (llama.cpp's
 *   default f16 cache), compute buffers not counted (they are llama.cpp's, not in that section), and said so.
 * Pure: the parsed header and the memory section in, functions of the context out.
 */
import { ggufMemoryBasis } from '../analysis/memory/gguf-section';
import { estimateGgufMemory } from '../analysis/memory/gguf-memory';
import { GgufKeys } from '../analysis/memory/gguf-inputs';
import { estimateMemory } from '../analysis/memory/estimate';
import type { MemorySection } from '../analysis/memory/memory-types';
import type { ParsedHeader } from '../model';

export interface GgufListingCost {
  /** KV cache plus any recurrent state at the context. */
  kvBytes: number;
  /** Runtime buffers counted on top (llama.cpp's compute buffers); 0 when not known. */
  overheadBytes: number;
}

export interface GgufListingBasis {
  /** Parameters of the model; null when nothing open says. */
  params: number | null;
  /** Where the parameter count comes from, in words. */
  paramsSource: string | null;
  /** The cost at a context; null when the open model's attention layout is unknown. */
  costAt: ((contextTokens: number) => GgufListingCost) | null;
  /** What the fit adds up, in words. */
  costSource: string;
  /**
   * A mixture of experts: per layer, the share of the open file's tensor bytes in its routed experts (what
   * `--n-cpu-moe` keeps in RAM, llama.cpp's `ffn_*_exps`); null for a dense model or a non-GGUF one.
   */
  expertShares: number[] | null;
}

/** The basis from the open model: a GGUF's own header, else the open model's header and memory section. */
export function ggufListingBasis(
  header: ParsedHeader | null,
  memory: MemorySection | undefined,
  openName: string,
): GgufListingBasis {
  const gguf = header ? ggufMemoryBasis(header) : null;
  if (gguf) {
    const blocks = new GgufKeys(gguf.metadata).blockCount();
    const params = header?.gguf ? totalElements(header) : null;
    return {
      expertShares: blocks === null ? null : expertSharesOf(gguf.metadata, gguf.tensors, blocks),
      params,
      paramsSource: params !== null ? `the header of ${openName}` : null,
      costAt:
        blocks === null
          ? null
          : (contextTokens) => {
              const estimate = estimateGgufMemory(gguf.metadata, gguf.tensors, {
                contextTokens,
                cacheTypeK: 'f16',
                cacheTypeV: 'f16',
                gpuLayers: blocks + 1,
              });
              return estimate
                ? { kvBytes: estimate.kvBytes + estimate.stateBytes, overheadBytes: estimate.vram.computeBytes }
                : { kvBytes: 0, overheadBytes: 0 };
            },
      costSource:
        'file + f16 KV cache + compute buffers, every layer on the GPU (-ngl all), as llama.cpp allocates them ' +
        `from the metadata of ${openName}`,
    };
  }
  const params = memory ? memory.weights.params : header ? totalElements(header) : null;
  const paramsSource = params === null ? null : `the header of ${openName}`;
  if (!memory?.kv) {
    return {
      expertShares: null,
      params,
      paramsSource,
      costAt: null,
      costSource: `the attention layout of ${openName} is unknown, so the KV cache cannot be sized`,
    };
  }
  return {
    expertShares: null,
    params,
    paramsSource,
    costAt: (contextTokens) => {
      const estimate = estimateMemory(memory, { tokens: Math.max(1, contextTokens), batch: 1, cacheDtype: 'fp16' });
      return { kvBytes: estimate.kvBytes + estimate.stateBytes, overheadBytes: 0 };
    },
    costSource: `file + f16 KV cache from the attention layout of ${openName} (${memory.config}); compute buffers not counted`,
  };
}

/** Each layer's routed expert bytes over the file's tensor bytes; null when no layer has any. */
function expertSharesOf(
  metadata: Parameters<typeof estimateGgufMemory>[0],
  tensors: Parameters<typeof estimateGgufMemory>[1],
  blocks: number,
): number[] | null {
  // The split of the weights does not depend on the context or the cache: any setting gives the same layers.
  const estimate = estimateGgufMemory(metadata, tensors, {
    contextTokens: 1,
    cacheTypeK: 'f16',
    cacheTypeV: 'f16',
    gpuLayers: blocks + 1,
  });
  if (!estimate || estimate.expertsBytes === 0 || estimate.weightsBytes === 0) {
    return null;
  }
  return estimate.layers.map((layer) => layer.expertsBytes / estimate.weightsBytes);
}

function totalElements(header: ParsedHeader): number | null {
  let total = 0;
  const { elements, count } = header.tensors;
  for (let row = 0; row < count; row++) {
    if (!Number.isFinite(elements[row])) {
      return null;
    }
    total += elements[row];
  }
  return total > 0 ? total : null;
}
