/**
 * How many GPUs an inference deployment takes, as sizes an engine accepts rather than a bare ceil(bytes ÷ GPU):
 * the smallest tensor-parallel (TP) size that fits, then pipeline stages when one node is not enough.
 *
 * TP sizes are the powers of two up to one node of 8 GPUs (1, 2, 4, 8: what NVLink nodes and vLLM's custom
 * all-reduce are built for). vLLM requires the size to divide num_attention_heads, and either to divide the KV
 * heads or to be a multiple of them (each GPU then holds a copy of one KV head: QKVParallelLinear's replicas). An
 * MLA latent is one shared "head", so every TP rank keeps the whole latent cache. Past one node the weights are cut
 * into pipeline stages (PP) of TP GPUs each, layers split evenly.
 */
import type { MemorySection } from './memory-types';

/** GPUs in one node (HGX/DGX boards): the largest TP group that stays on NVLink. */
export const GPUS_PER_NODE = 8;

/** Tensor-parallel sizes tried, smallest first: powers of two up to one node. */
const TENSOR_PARALLEL_SIZES = [1, 2, 4, 8];

/** Past this many GPUs the count is shown as "more than" (large multi-node territory). */
export const MAX_GPU_COUNT = 64;

export type HeadLayout = Pick<MemorySection, 'attentionHeads' | 'kvHeads'> & {
  /** The KV cache is an MLA latent: one copy per TP rank. */
  latent: boolean;
};

export interface ParallelLayout {
  tensorParallel: number;
  pipelineStages: number;
  gpus: number;
  nodes: number;
  /** Weights, KV cache and state on each GPU at this layout. */
  perGpuBytes: number;
}

export interface InferencePayload {
  weightsBytes: number;
  kvBytes: number;
  stateBytes: number;
}

/** Whether vLLM accepts `tp` for these heads (unknown heads: any size of the list). */
export function tensorParallelAccepted(tp: number, heads: HeadLayout): boolean {
  const { attentionHeads, kvHeads, latent } = heads;
  if (attentionHeads !== null && attentionHeads % tp !== 0) {
    return false;
  }
  if (latent || kvHeads === null) {
    return true;
  }
  return kvHeads >= tp ? kvHeads % tp === 0 : tp % kvHeads === 0;
}

/** Bytes on each GPU: weights and state split over TP, the cache over at most its KV heads, all over PP stages. */
export function bytesPerGpu(payload: InferencePayload, heads: HeadLayout, tp: number, pp: number): number {
  const kvWays = heads.latent ? 1 : heads.kvHeads === null ? tp : Math.min(tp, heads.kvHeads);
  return (payload.weightsBytes / tp + payload.kvBytes / kvWays + payload.stateBytes / tp) / pp;
}

/** The TP sizes vLLM accepts here, smallest first (always at least 1). */
export function acceptedTensorParallelSizes(heads: HeadLayout): number[] {
  return TENSOR_PARALLEL_SIZES.filter((tp) => tensorParallelAccepted(tp, heads));
}

/**
 * The smallest accepted TP size whose per-GPU share fits `usableBytes`; else the largest accepted TP size with as
 * many pipeline stages as it takes. Null when that needs more than MAX_GPU_COUNT GPUs.
 */
export function parallelLayout(
  payload: InferencePayload,
  heads: HeadLayout,
  usableBytes: number,
): ParallelLayout | null {
  if (!(usableBytes > 0)) {
    return null;
  }
  const sizes = acceptedTensorParallelSizes(heads);
  const layout = (tp: number, pp: number): ParallelLayout => ({
    tensorParallel: tp,
    pipelineStages: pp,
    gpus: tp * pp,
    nodes: Math.ceil((tp * pp) / GPUS_PER_NODE),
    perGpuBytes: bytesPerGpu(payload, heads, tp, pp),
  });
  for (const tp of sizes) {
    if (bytesPerGpu(payload, heads, tp, 1) <= usableBytes) {
      return layout(tp, 1);
    }
  }
  const widest = sizes[sizes.length - 1];
  const stages = Math.ceil(bytesPerGpu(payload, heads, widest, 1) / usableBytes);
  return widest * stages > MAX_GPU_COUNT ? null : layout(widest, stages);
}
