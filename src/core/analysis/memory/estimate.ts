/**
 * Memory at a chosen context, batch and cache dtype, from a MemorySection: weights + KV cache (+ fixed recurrent
 * state) + a stated runtime overhead, how many of each common GPU that takes, and the same for training. Pure and
 * cheap, so the Memory view calls it on every input change; the report calls it for its fixed contexts.
 */
import { groupDigits } from '../../number-format';
import { CACHE_DTYPE_BYTES, type CacheDtype, type MemoryContext, type MemorySection } from './types';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** One card per marketed size; capacity is what nvidia-smi reports (memory-facts §8), not the marketing number. */
const GPUS: ReadonlyArray<{ id: string; name: string; marketedGB: number; capacityBytes: number }> = [
  { id: '24', name: 'RTX 4090 / L4 / A10 (24 GB)', marketedGB: 24, capacityBytes: 24_564 * MiB },
  { id: '48', name: 'L40S / RTX 6000 Ada (48 GB)', marketedGB: 48, capacityBytes: 46_068 * MiB },
  { id: '80', name: 'H100 / A100 (80 GB)', marketedGB: 80, capacityBytes: 81_559 * MiB },
  { id: '141', name: 'H200 (141 GB)', marketedGB: 141, capacityBytes: 143_771 * MiB },
  { id: '192', name: 'B200 (192 GB)', marketedGB: 192, capacityBytes: 183_359 * MiB },
];

/** vLLM's default gpu_memory_utilization: the share of each GPU the engine lets itself use. */
export const GPU_MEMORY_UTILIZATION = 0.9;

/**
 * Per GPU, on top of weights and KV: CUDA context, peak activations of one prefill chunk and CUDA graphs. vLLM
 * startup logs show 1.3–5 GiB in total; 2 GiB is a middle value, stated wherever it is used.
 */
export const RUNTIME_OVERHEAD_BYTES = 2 * GiB;

/** Past this many GPUs the count is shown as "more than" (multi-node territory). */
const MAX_GPU_COUNT = 64;

/** Mixed-precision AdamW per parameter: bf16 weights 2 + bf16 grads 2 + fp32 master 4 + fp32 moments 8 (ZeRO). */
const FULL_FINETUNE_BYTES_PER_PARAM = 16;

/** Per trainable LoRA parameter: fp32 weight 4 + grad 4 + Adam moments 8. */
const LORA_BYTES_PER_TRAINABLE = 16;

export const DEFAULT_CONTEXTS = [4096, 8192, 32768];

export interface MemoryInputs {
  tokens: number;
  batch: number;
  cacheDtype: CacheDtype;
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
  /** GPUs needed (weights and cache split evenly, e.g. tensor parallel); null when more than MAX_GPU_COUNT. */
  count: number | null;
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

function gpuFits(payloadBytes: number): GpuFit[] {
  return GPUS.map((gpu) => {
    const usableBytes = gpu.capacityBytes * GPU_MEMORY_UTILIZATION - RUNTIME_OVERHEAD_BYTES;
    const needed = Math.max(1, Math.ceil(payloadBytes / usableBytes));
    return {
      id: gpu.id,
      name: gpu.name,
      capacityBytes: gpu.capacityBytes,
      usableBytes,
      count: needed > MAX_GPU_COUNT ? null : needed,
    };
  });
}

/** Bytes per token of every KV layer while no window is full yet, in the given cache dtype. */
export function kvBytesPerToken(section: Pick<MemorySection, 'kv'>, cacheDtype: CacheDtype): number {
  const bytes = CACHE_DTYPE_BYTES[cacheDtype];
  return (section.kv?.groups ?? []).reduce((sum, group) => sum + group.layers * group.elementsPerToken * bytes, 0);
}

export function estimateMemory(section: MemorySection, inputs: MemoryInputs): MemoryEstimate {
  const tokens = Math.max(0, Math.floor(inputs.tokens));
  const batch = Math.max(1, Math.floor(inputs.batch));
  const cacheBytes = CACHE_DTYPE_BYTES[inputs.cacheDtype];
  const kvLines: KvLine[] = (section.kv?.groups ?? []).map((group) => {
    const tokensKept = group.window === null ? tokens : Math.min(group.window, tokens);
    const bytes = batch * tokensKept * group.layers * group.elementsPerToken * cacheBytes;
    return {
      label: group.label,
      layers: group.layers,
      tokensKept,
      bytes,
      formula:
        `${batch} × ${groupDigits(tokensKept)} tokens × ${group.layers} layers × ${groupDigits(group.elementsPerToken)} ` +
        `elements × ${cacheBytes} B (${inputs.cacheDtype}); elements per token and layer: ${group.formula}`,
    };
  });
  const kvBytes = kvLines.reduce((sum, line) => sum + line.bytes, 0);
  const state = section.kv?.state ?? null;
  const stateBytes = state ? batch * state.bytesPerSequence : 0;
  const weightsBytes = section.weightsBytes;
  const totalBytes = weightsBytes + kvBytes + stateBytes + RUNTIME_OVERHEAD_BYTES;
  return {
    inputs: { tokens, batch, cacheDtype: inputs.cacheDtype },
    weightsBytes,
    kvLines,
    kvBytes,
    stateBytes,
    stateFormula: state ? `${batch} sequences × ${groupDigits(state.bytesPerSequence)} B (${state.formula})` : null,
    overheadBytes: RUNTIME_OVERHEAD_BYTES,
    totalBytes,
    gpus: gpuFits(weightsBytes + kvBytes + stateBytes),
    training: trainingEstimates(section),
  };
}

function trainingEstimates(section: MemorySection): TrainingEstimate[] {
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
    gpus: gpuFits(fullPayload),
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
      gpus: gpuFits(base + adapter),
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

/** The report's contexts: 4096, 8192 and 32768 tokens at batch 1, plus the model's maximum when known. */
export function reportContexts(section: MemorySection): MemoryContext[] {
  const tokens = [...DEFAULT_CONTEXTS];
  if (section.maxContext !== null && !tokens.includes(section.maxContext)) {
    tokens.push(section.maxContext);
  }
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
