/**
 * Memory at a chosen context, batch and cache dtype, from a MemorySection: weights + KV cache (+ fixed recurrent
 * state) + a stated runtime overhead, how many of each common GPU that takes, and the same for training. Pure and
 * cheap, so the Memory view calls it on every input change; the report calls it for its fixed contexts.
 */
import { groupDigits, plural } from '../../number-format';
import { MAX_GPU_COUNT, parallelLayout, type HeadLayout, type ParallelLayout } from './parallel';
import {
  CACHE_DTYPE_BYTES,
  type CacheDtype,
  type CrossAttentionCache,
  type MemoryContext,
  type MemorySection,
} from './memory-types';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

export interface GpuModel {
  id: string;
  name: string;
  capacityBytes: number;
}

/** One card per marketed size; capacity is what nvidia-smi reports (public nvidia-smi outputs), not the marketing number. */
export const GPUS: readonly GpuModel[] = [
  { id: '24', name: 'RTX 4090 / L4 / A10 (24 GB)', capacityBytes: 24_564 * MiB },
  { id: '48', name: 'L40S / RTX 6000 Ada (48 GB)', capacityBytes: 46_068 * MiB },
  { id: '80', name: 'H100 / A100 (80 GB)', capacityBytes: 81_559 * MiB },
  { id: '141', name: 'H200 (141 GB)', capacityBytes: 143_771 * MiB },
  { id: '192', name: 'B200 (192 GB)', capacityBytes: 183_359 * MiB },
];

/** vLLM's default gpu_memory_utilization: the share of each GPU the engine lets itself use. */
export const GPU_MEMORY_UTILIZATION = 0.9;

/**
 * Per GPU, on top of weights and KV: CUDA context, peak activations of one prefill chunk and CUDA graphs. vLLM
 * startup logs show 1.3–5 GiB in total; 2 GiB is a middle value, stated wherever it is used.
 */
export const RUNTIME_OVERHEAD_BYTES = 2 * GiB;

/** Mixed-precision AdamW per parameter: bf16 weights 2 + bf16 grads 2 + fp32 master 4 + fp32 moments 8 (ZeRO). */
const FULL_FINETUNE_BYTES_PER_PARAM = 16;

/** Per trainable LoRA parameter: fp32 weight 4 + grad 4 + Adam moments 8. */
const LORA_BYTES_PER_TRAINABLE = 16;

export const DEFAULT_CONTEXTS = [4096, 8192, 32768];

export interface MemoryInputs {
  tokens: number;
  batch: number;
  cacheDtype: CacheDtype;
  /** A GPU of the user's own, compared after the common ones. */
  ownGpu?: GpuModel | null;
}

export interface KvLine {
  label: string;
  layers: number;
  /** Tokens each sequence keeps in these layers: the context, or the window when smaller. */
  tokensKept: number;
  bytes: number;
  formula: string;
}

export interface GpuFit {
  id: string;
  name: string;
  capacityBytes: number;
  /** capacity × utilization − overhead: what weights and cache may use on one GPU. */
  usableBytes: number;
  /** GPUs needed; null when more than MAX_GPU_COUNT. */
  count: number | null;
  /**
   * Inference: the tensor-parallel size and pipeline stages (parallel.ts), null when past MAX_GPU_COUNT. Absent for
   * training, whose state ZeRO-3 / FSDP shards evenly over any number of GPUs.
   */
  layout?: ParallelLayout | null;
}

export interface MemoryLine {
  label: string;
  bytes: number;
  formula: string;
}

export interface TrainingEstimate {
  id: 'full' | 'lora';
  label: string;
  lines: MemoryLine[];
  totalBytes: number;
  gpus: GpuFit[];
}

export interface MemoryEstimate {
  inputs: MemoryInputs;
  weightsBytes: number;
  kvLines: KvLine[];
  /** KV cache of attention layers. */
  kvBytes: number;
  /** Fixed state of linear-attention / state-space layers, batch × per-sequence state. */
  stateBytes: number;
  stateFormula: string | null;
  overheadBytes: number;
  totalBytes: number;
  gpus: GpuFit[];
  training: TrainingEstimate[];
}

const usableOf = (capacityBytes: number) => capacityBytes * GPU_MEMORY_UTILIZATION - RUNTIME_OVERHEAD_BYTES;

/** Training: ZeRO-3 / FSDP shards weights, gradients and optimizer state evenly over any number of GPUs. */
function shardedFits(gpus: readonly GpuModel[], payloadBytes: number): GpuFit[] {
  return gpus.map((gpu) => {
    const usableBytes = usableOf(gpu.capacityBytes);
    const needed = usableBytes > 0 ? Math.max(1, Math.ceil(payloadBytes / usableBytes)) : Infinity;
    return {
      id: gpu.id,
      name: gpu.name,
      capacityBytes: gpu.capacityBytes,
      usableBytes,
      count: needed > MAX_GPU_COUNT ? null : needed,
    };
  });
}

/** Inference: the smallest tensor-parallel size vLLM accepts that fits, then pipeline stages (parallel.ts). */
function inferenceFits(
  gpus: readonly GpuModel[],
  section: MemorySection,
  payload: Parameters<typeof parallelLayout>[0],
): GpuFit[] {
  const heads: HeadLayout = {
    attentionHeads: section.attentionHeads,
    kvHeads: section.kvHeads,
    latent: section.kv?.attention === 'MLA',
  };
  return gpus.map((gpu) => {
    const usableBytes = usableOf(gpu.capacityBytes);
    const layout = parallelLayout(payload, heads, usableBytes);
    return {
      id: gpu.id,
      name: gpu.name,
      capacityBytes: gpu.capacityBytes,
      usableBytes,
      count: layout?.gpus ?? null,
      layout,
    };
  });
}

/** Bytes per token of every KV layer while no window is full yet, in the given cache dtype. */
export function kvBytesPerToken(section: Pick<MemorySection, 'kv'>, cacheDtype: CacheDtype): number {
  const bytes = CACHE_DTYPE_BYTES[cacheDtype];
  return (section.kv?.groups ?? []).reduce((sum, group) => sum + group.layers * group.elementsPerToken * bytes, 0);
}

export function estimateMemory(section: MemorySection, inputs: MemoryInputs): MemoryEstimate {
  const { tokens, batch } = inputs;
  // The view checks what the user typed and keeps the last valid figure; anything else here is a caller's bug.
  if (!Number.isInteger(tokens) || tokens < 1 || !Number.isInteger(batch) || batch < 1) {
    throw new RangeError(`estimateMemory needs whole numbers ≥ 1, got ${tokens} tokens and batch ${batch}`);
  }
  const cacheBytes = CACHE_DTYPE_BYTES[inputs.cacheDtype];
  const gpus = inputs.ownGpu ? [...GPUS, inputs.ownGpu] : GPUS;
  const kvLines: KvLine[] = (section.kv?.groups ?? []).map((group) => {
    const tokensKept = group.window === null ? tokens : Math.min(group.window, tokens);
    const bytes = batch * tokensKept * group.layers * group.elementsPerToken * cacheBytes;
    return {
      label: group.label,
      layers: group.layers,
      tokensKept,
      bytes,
      formula:
        `${batch} × ${plural(tokensKept, 'token')} × ${plural(group.layers, 'layer')} × ` +
        `${plural(group.elementsPerToken, 'element')} × ${cacheBytes} B (${inputs.cacheDtype}); ` +
        `elements per token and layer: ${group.formula}`,
    };
  });
  const cross = section.kv?.crossAttention;
  if (cross) {
    kvLines.push(crossAttentionLine(cross, inputs));
  }
  const kvBytes = kvLines.reduce((sum, line) => sum + line.bytes, 0);
  const state = section.kv?.state ?? null;
  const stateBytes = state ? batch * state.bytesPerSequence : 0;
  const weightsBytes = section.weightsBytes;
  const totalBytes = weightsBytes + kvBytes + stateBytes + RUNTIME_OVERHEAD_BYTES;
  return {
    inputs: { tokens, batch, cacheDtype: inputs.cacheDtype, ownGpu: inputs.ownGpu ?? null },
    weightsBytes,
    kvLines,
    kvBytes,
    stateBytes,
    stateFormula: state
      ? `${plural(batch, 'sequence')} × ${groupDigits(state.bytesPerSequence)} B (${state.formula})`
      : null,
    overheadBytes: RUNTIME_OVERHEAD_BYTES,
    totalBytes,
    gpus: inferenceFits(gpus, section, { weightsBytes, kvBytes, stateBytes }),
    training: trainingEstimates(gpus, section),
  };
}

/**
 * The cross-attention cache of the encoder's output: Whisper keeps its fixed positions; a text encoder-decoder is
 * taken to read an input as long as the context asked for (a translation's), within the encoder's limit.
 */
function crossAttentionLine(cross: CrossAttentionCache, inputs: MemoryInputs): KvLine {
  const { batch, cacheDtype } = inputs;
  const cacheBytes = CACHE_DTYPE_BYTES[cacheDtype];
  const tokensKept =
    cross.inputLimit === null
      ? inputs.tokens
      : cross.fixedInput
        ? cross.inputLimit
        : Math.min(inputs.tokens, cross.inputLimit);
  const input = cross.fixedInput
    ? cross.positions
    : tokensKept < inputs.tokens
      ? `${cross.positions} (the encoder's limit)`
      : `${cross.positions} (as many as the context)`;
  return {
    label: cross.label,
    layers: cross.layers,
    tokensKept,
    bytes: batch * tokensKept * cross.layers * cross.elementsPerToken * cacheBytes,
    formula:
      `${batch} × ${groupDigits(tokensKept)} ${input} × ${plural(cross.layers, 'layer')} × ` +
      `${plural(cross.elementsPerToken, 'element')} × ${cacheBytes} B (${cacheDtype}); ${cross.formula}`,
  };
}

function trainingEstimates(gpus: readonly GpuModel[], section: MemorySection): TrainingEstimate[] {
  const params = section.weights.params;
  const out: TrainingEstimate[] = [];
  const full: MemoryLine[] = [
    { label: 'bf16 weights', bytes: params * 2, formula: `${groupDigits(params)} params × 2 B` },
    { label: 'bf16 gradients', bytes: params * 2, formula: `${groupDigits(params)} params × 2 B` },
    { label: 'fp32 master weights', bytes: params * 4, formula: `${groupDigits(params)} params × 4 B` },
    { label: 'fp32 Adam moments (m, v)', bytes: params * 8, formula: `${groupDigits(params)} params × 8 B` },
  ];
  const fullPayload = params * FULL_FINETUNE_BYTES_PER_PARAM;
  out.push({
    id: 'full',
    label: 'Full fine-tuning, mixed-precision AdamW',
    lines: [...full, overheadLine()],
    totalBytes: fullPayload + RUNTIME_OVERHEAD_BYTES,
    gpus: shardedFits(gpus, fullPayload),
  });
  if (section.lora) {
    const { trainableParams, rank } = section.lora;
    const base = section.weightsBytes;
    const adapter = trainableParams * LORA_BYTES_PER_TRAINABLE;
    out.push({
      id: 'lora',
      label: `LoRA, rank ${rank}, base frozen as stored`,
      lines: [
        { label: 'frozen base weights', bytes: base, formula: 'weights as stored in the header' },
        {
          label: 'adapter weights, gradients, Adam moments (fp32)',
          bytes: adapter,
          formula: `${groupDigits(trainableParams)} trainable params × 16 B (4 weight + 4 grad + 8 Adam)`,
        },
        overheadLine(),
      ],
      totalBytes: base + adapter + RUNTIME_OVERHEAD_BYTES,
      gpus: shardedFits(gpus, base + adapter),
    });
  }
  return out;
}

function overheadLine(): MemoryLine {
  return {
    label: 'runtime overhead (activations not included)',
    bytes: RUNTIME_OVERHEAD_BYTES,
    formula: '2 GiB per GPU: CUDA context, workspace; activations grow with batch × sequence and are extra',
  };
}

/**
 * The contexts a report sizes: DEFAULT_CONTEXTS and the model's maximum when known. A model without a cache (an
 * encoder) reads its whole input in one pass, which ends at its position limit: no longer context exists for it.
 */
export function reportTokenCounts(maxContext: number | null, cacheless: boolean): number[] {
  const tokens = DEFAULT_CONTEXTS.filter((count) => !cacheless || maxContext === null || count <= maxContext);
  if (maxContext !== null && !tokens.includes(maxContext)) {
    tokens.push(maxContext);
  }
  return tokens;
}

/** The report's contexts: 4096, 8192 and 32768 tokens at batch 1, plus the model's maximum when known. */
export function reportContexts(section: MemorySection): MemoryContext[] {
  const tokens = reportTokenCounts(section.maxContext, section.kv?.attention === 'encoder');
  return tokens.map((count) => {
    const estimate = estimateMemory(section, { tokens: count, batch: 1, cacheDtype: section.cacheDtype });
    return {
      tokens: count,
      batch: 1,
      kvBytes: estimate.kvBytes + estimate.stateBytes,
      totalBytes: estimate.totalBytes,
    };
  });
}
