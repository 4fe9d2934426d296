/**
 * Will a GGUF fit: llama.cpp's memory at a chosen context, cache types and GPU-layer count, from the header alone.
 *
 * Conventions (llama.cpp `src/llama-model.cpp` `load_tensors`, the split gguf-parser-go's estimator reproduces):
 * - `-ngl N` offloads the **last** N of the `block_count` repeating layers: layer i is on the GPU iff
 *   `i ≥ block_count − N`; each layer's KV cache and recurrent state live with it (`offload_kqv`, the default);
 * - the input layer (`token_embd` and other input embeddings) always stays in RAM;
 * - the output layer (`output`, `output_norm` and the other tensors outside `blk.N`) goes to the GPU only when
 *   N > block_count (`-ngl 99` style full offload); a model without `output.weight` reuses `token_embd` there, loaded
 *   a second time on the GPU;
 * - `--n-cpu-moe N` keeps the routed experts of the first N layers in RAM whatever `-ngl` says, and `--cpu-moe` those
 *   of every layer: llama.cpp's `common/arg.cpp` adds a CPU buffer override per layer, matching its
 *   `LLM_FFN_EXPS_REGEX` (`\.ffn_(up|down|gate|gate_up)_(ch|)exps`, weights and biases alike) after `blk\.i`;
 * - the context is padded to 256 cells with flash attention, else 32 (llama.cpp `get_padding`); sliding layers keep
 *   `min(context, pad(window × sequences + ubatch))` cells (`src/llama-kv-cache-iswa.cpp`), or all with `--swa-full`;
 * - compute buffers are gguf-parser-go's two largest terms, labelled as an estimate: the attention scores of one
 *   ubatch (F32 `cells × ubatch × heads` without flash attention, F16 `cells × ubatch` with it) and the F32 logits
 *   `n_vocab × ubatch` (an encoder's F32 embeddings `embedding_length × ubatch` instead), on the GPU when any layer
 *   is offloaded; the host output buffer holds the same output again.
 * Cache types and their block sizes are the `-ctk`/`-ctv` list of llama.cpp's `common/arg.cpp` with ggml's
 * `type_traits` (`ggml/src/ggml.c`): a quantized row must be a whole number of blocks, and a quantized V cache
 * needs flash attention.
 */
import { groupDigits } from '../../number-format';
import { GgufKeys, type GgufMetadata, type GgufTensorSummary } from './gguf-inputs';
import { ggufKvPlan, type GgufKvPlan } from './gguf-kv';
import { outputsEmbeddings } from './gguf-kv-archs';
import type { MoeSummary } from './memory-types';

export const GGUF_CACHE_TYPES = ['f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'q4_1', 'iq4_nl', 'q5_0', 'q5_1'] as const;
export type GgufCacheType = (typeof GGUF_CACHE_TYPES)[number];

/** Elements per block and bytes per block of each cache type (ggml `type_traits`). */
export const GGUF_CACHE_BLOCKS: Readonly<Record<GgufCacheType, { elements: number; bytes: number }>> = {
  f32: { elements: 1, bytes: 4 },
  f16: { elements: 1, bytes: 2 },
  bf16: { elements: 1, bytes: 2 },
  q8_0: { elements: 32, bytes: 34 },
  q4_0: { elements: 32, bytes: 18 },
  q4_1: { elements: 32, bytes: 20 },
  iq4_nl: { elements: 32, bytes: 18 },
  q5_0: { elements: 32, bytes: 22 },
  q5_1: { elements: 32, bytes: 24 },
};

/** llama.cpp's default micro-batch (`-ub`): the tokens one compute pass holds. */
export const DEFAULT_UBATCH = 512;

/** KV cells are padded to this many with flash attention (its kernels need it), and to the other without. */
const PAD_FLASH_ATTENTION = 256;
const PAD_PLAIN = 32;

/** Input embeddings, which llama.cpp keeps on the CPU whatever `-ngl` says. */
const INPUT_TENSORS = /^(token_embd|token_embd_norm|position_embd|token_types)\./;
const BLOCK_TENSOR = /^blk\.(\d+)\./;
const ROUTED_EXPERTS = /^blk\.\d+\.ffn_[a-z_]*_exps\./;
/** What `--cpu-moe` and `--n-cpu-moe` keep in RAM: llama.cpp's `LLM_FFN_EXPS_REGEX`, searched in each name. */
const CPU_MOE_TENSORS = /\.ffn_(?:up|down|gate|gate_up)_(?:ch)?exps/;

export interface GgufMemoryInputs {
  /** Context in tokens; 0 or absent = the model's `context_length` (llama.cpp `-c 0`). */
  contextTokens?: number;
  cacheTypeK: GgufCacheType;
  cacheTypeV: GgufCacheType;
  /** `-ngl`: repeating layers to offload, block_count + 1 (or more) to offload the output layer too. */
  gpuLayers: number;
  /** Parallel sequences (`-np`): sliding windows and recurrent states are per sequence. */
  sequences?: number;
  flashAttention?: boolean;
  ubatch?: number;
  /** `--swa-full`: sliding layers keep the whole context. */
  swaFull?: boolean;
  /** `--n-cpu-moe`: the first N layers keep their routed experts in RAM; block_count or more is `--cpu-moe`. */
  cpuMoeLayers?: number;
}

export interface GgufCostLine {
  label: string;
  bytes: number;
  formula: string;
}

export interface GgufLayerCost {
  index: number;
  onGpu: boolean;
  weightsBytes: number;
  /** Routed expert bytes of the layer (`ffn_*_exps`). */
  expertsBytes: number;
  /** Of those, kept in RAM by `--n-cpu-moe` although the layer is on the GPU. */
  expertsInRamBytes: number;
  kvBytes: number;
  stateBytes: number;
}

export interface GgufPlacement {
  weightsBytes: number;
  kvBytes: number;
  stateBytes: number;
  computeBytes: number;
  totalBytes: number;
}

export interface GgufMemoryEstimate {
  /** Cells per full-attention layer: the context padded as llama.cpp pads it. */
  kvCells: number;
  contextTokens: number;
  gpuLayers: number;
  /** `--n-cpu-moe` as applied: 0 to block_count. */
  cpuMoeLayers: number;
  weightsBytes: number;
  /** Routed expert bytes of every layer (what `--cpu-moe` keeps in RAM). */
  expertsBytes: number;
  inputLayer: { bytes: number; tensors: number };
  outputLayer: { bytes: number; tensors: number; onGpu: boolean; tiedEmbeddingBytes: number };
  layers: GgufLayerCost[];
  /** KV per layer group, for display. */
  kvLines: GgufCostLine[];
  /** Why llama.cpp allocates no KV cache at all for this architecture (an encoder, a diffusion model); else null. */
  noKvCache: string | null;
  kvBytes: number;
  stateBytes: number;
  compute: GgufCostLine[];
  vram: GgufPlacement;
  ram: GgufPlacement;
  /** Settings llama.cpp would refuse (quantized V without flash attention, rows not a whole number of blocks). */
  problems: string[];
  notes: string[];
}

/** Bytes of `elements` values in a cache type; null when the row is not a whole number of blocks. */
export function cacheRowBytes(type: GgufCacheType, elements: number): number | null {
  const block = GGUF_CACHE_BLOCKS[type];
  return elements % block.elements === 0 ? (elements / block.elements) * block.bytes : null;
}

function pad(value: number, to: number): number {
  return Math.ceil(value / to) * to;
}

function product(shape: readonly number[]): number {
  return shape.reduce((total, dim) => total * dim, 1);
}

interface WeightSplit {
  total: number;
  perLayer: number[];
  expertsPerLayer: number[];
  input: { bytes: number; tensors: number };
  output: { bytes: number; tensors: number };
  tiedEmbeddingBytes: number;
  vocab: number | null;
}

/** `lmHead`: whether the model ends in an output layer over the vocabulary (an embedding model's encoder does not). */
function splitWeights(tensors: readonly GgufTensorSummary[], blocks: number, lmHead: boolean): WeightSplit {
  const perLayer = new Array<number>(blocks).fill(0);
  const expertsPerLayer = new Array<number>(blocks).fill(0);
  const input = { bytes: 0, tensors: 0 };
  const output = { bytes: 0, tensors: 0 };
  let total = 0;
  let embedding: GgufTensorSummary | null = null;
  let head: GgufTensorSummary | null = null;
  for (const tensor of tensors) {
    total += tensor.bytes;
    const block = BLOCK_TENSOR.exec(tensor.name);
    const layer = block ? Number(block[1]) : -1;
    if (layer >= 0 && layer < blocks) {
      perLayer[layer] += tensor.bytes;
      expertsPerLayer[layer] += CPU_MOE_TENSORS.test(tensor.name) ? tensor.bytes : 0;
    } else if (INPUT_TENSORS.test(tensor.name)) {
      input.bytes += tensor.bytes;
      input.tensors++;
    } else {
      output.bytes += tensor.bytes;
      output.tensors++;
    }
    if (tensor.name === 'token_embd.weight') {
      embedding = tensor;
    } else if (tensor.name === 'output.weight') {
      head = tensor;
    }
  }
  const vocabSource = head ?? embedding;
  return {
    total,
    perLayer,
    expertsPerLayer,
    input,
    output,
    tiedEmbeddingBytes: lmHead && head === null && embedding !== null ? embedding.bytes : 0,
    vocab: vocabSource && vocabSource.shape.length === 2 ? vocabSource.shape[0] : null,
  };
}

interface KvCost {
  perLayer: number[];
  statePerLayer: number[];
  lines: GgufCostLine[];
  problems: string[];
}

function kvCosts(
  plan: GgufKvPlan,
  cells: number,
  swaCells: number,
  sequences: number,
  inputs: GgufMemoryInputs,
): KvCost {
  const problems = new Set<string>();
  const perLayer: number[] = [];
  const statePerLayer: number[] = [];
  const lines = new Map<string, GgufCostLine & { layers: number }>();
  const stateBytes = plan.state ? (plan.state.convElements + plan.state.recurrentElements) * 4 * sequences : 0;
  for (const layer of plan.layers) {
    statePerLayer.push(layer.recurrent ? stateBytes : 0);
    if (layer.attention === null) {
      perLayer.push(0);
      continue;
    }
    const k = cacheRowBytes(inputs.cacheTypeK, layer.kElements);
    const v = layer.vElements === 0 ? 0 : cacheRowBytes(inputs.cacheTypeV, layer.vElements);
    if (k === null || v === null) {
      problems.add(
        `A ${k === null ? `K row of ${layer.kElements}` : `V row of ${layer.vElements}`} elements is not a whole number of ${k === null ? inputs.cacheTypeK : inputs.cacheTypeV} blocks; llama.cpp refuses this cache type for this model.`,
      );
    }
    const rowBytes = (k ?? layer.kElements * 2) + (v ?? layer.vElements * 2);
    const kept = layer.attention === 'full' ? cells : swaCells;
    const bytes = rowBytes * kept;
    perLayer.push(bytes);
    const label =
      layer.attention === 'full'
        ? plan.mla
          ? 'MLA latent'
          : 'full attention'
        : `${layer.attention} (${plan.window} tokens)`;
    const key = `${label}|${rowBytes}|${kept}`;
    const line = lines.get(key);
    if (line) {
      line.layers++;
      line.bytes += bytes;
    } else {
      lines.set(key, { label, layers: 1, bytes, formula: `${groupDigits(kept)} cells × ${groupDigits(rowBytes)} B` });
    }
  }
  if (
    inputs.cacheTypeV !== 'f32' &&
    inputs.cacheTypeV !== 'f16' &&
    inputs.cacheTypeV !== 'bf16' &&
    !inputs.flashAttention
  ) {
    if (plan.layers.some((layer) => layer.vElements > 0)) {
      problems.add(`A quantized V cache (${inputs.cacheTypeV}) needs flash attention; llama.cpp refuses it without.`);
    }
  }
  return {
    perLayer,
    statePerLayer,
    lines: [...lines.values()].map(({ label, layers, bytes, formula }) => ({
      label: `${label}, ${layers} layer${layers === 1 ? '' : 's'}`,
      bytes,
      formula: `${layers} × ${formula} (K ${inputs.cacheTypeK}, V ${inputs.cacheTypeV}) = ${groupDigits(bytes)} B`,
    })),
    problems: [...problems],
  };
}

/**
 * `cacheless`: the model keeps no cache, so it attends over its input's tokens, not over cache cells;
 * `embeddingsOut`: its output is an embedding per token, not logits over `vocab`.
 */
function computeLines(
  keys: GgufKeys,
  cells: number,
  ubatch: number,
  vocab: number | null,
  flash: boolean,
  model: { cacheless: boolean; embeddingsOut: boolean },
): GgufCostLine[] {
  const embedding = keys.int('embedding_length');
  const unit = model.cacheless ? 'tokens' : 'cells';
  const heads = Math.max(0, ...(keys.perLayer('attention.head_count', 1) ?? [0]));
  const lines: GgufCostLine[] = [];
  if (heads > 0) {
    lines.push(
      flash
        ? {
            label: 'attention scratch (flash attention)',
            bytes: cells * ubatch * 2,
            formula: `${groupDigits(cells)} ${unit} × ${ubatch} ubatch × 2 B (F16)`,
          }
        : {
            label: 'attention scores KQ',
            bytes: cells * ubatch * heads * 4,
            formula: `${groupDigits(cells)} ${unit} × ${ubatch} ubatch × ${heads} heads × 4 B (F32)`,
          },
    );
  }
  if (model.embeddingsOut) {
    // An encoder's output is one embedding per token, not a row of logits over the vocabulary.
    if (embedding !== null) {
      lines.push({
        label: 'embeddings',
        bytes: embedding * ubatch * 4,
        formula: `${groupDigits(embedding)} embedding_length × ${ubatch} ubatch × 4 B (F32)`,
      });
    }
  } else if (vocab !== null) {
    lines.push({
      label: 'logits',
      bytes: vocab * ubatch * 4,
      formula: `${groupDigits(vocab)} vocabulary × ${ubatch} ubatch × 4 B (F32)`,
    });
  }
  return lines;
}

function placement(weights: number, kv: number, state: number, compute: number): GgufPlacement {
  return {
    weightsBytes: weights,
    kvBytes: kv,
    stateBytes: state,
    computeBytes: compute,
    totalBytes: weights + kv + state + compute,
  };
}

/** `layer 0`, `layers 0–9`: the first `count` layers. */
export function firstLayersText(count: number): string {
  return count === 1 ? 'layer 0' : `layers 0–${count - 1}`;
}

/** llama.cpp's memory for one setting, or null when `{arch}.block_count` is absent or implausible. */
export function estimateGgufMemory(
  metadata: GgufMetadata,
  tensors: readonly GgufTensorSummary[],
  inputs: GgufMemoryInputs,
): GgufMemoryEstimate | null {
  const plan = ggufKvPlan(metadata);
  const keys = new GgufKeys(metadata);
  const blocks = keys.blockCount();
  if (blocks === null) {
    return null;
  }
  const flash = inputs.flashAttention ?? false;
  const ubatch = Math.max(1, Math.floor(inputs.ubatch ?? DEFAULT_UBATCH));
  const sequences = Math.max(1, Math.floor(inputs.sequences ?? 1));
  const requested = Math.max(0, Math.floor(inputs.contextTokens ?? 0));
  const contextTokens = requested > 0 ? requested : (plan?.contextLength ?? 0);
  const padding = flash ? PAD_FLASH_ATTENTION : PAD_PLAIN;
  const cells = pad(contextTokens, padding);
  const swaCells =
    inputs.swaFull || plan?.window == null ? cells : Math.min(cells, pad(plan.window * sequences + ubatch, padding));
  const gpuLayers = Math.max(0, Math.floor(inputs.gpuLayers));
  const firstGpuLayer = Math.max(0, blocks - gpuLayers);
  const outputOnGpu = gpuLayers > blocks;
  const embeddingsOut = outputsEmbeddings(keys.arch);
  const weights = splitWeights(tensors, blocks, !embeddingsOut);
  const kv: KvCost = plan
    ? kvCosts(plan, cells, swaCells, sequences, inputs)
    : {
        perLayer: new Array<number>(blocks).fill(0),
        statePerLayer: new Array<number>(blocks).fill(0),
        lines: [],
        problems: [],
      };
  const cpuMoeLayers = Math.min(blocks, Math.max(0, Math.floor(inputs.cpuMoeLayers ?? 0)));
  const layers: GgufLayerCost[] = weights.perLayer.map((bytes, index) => ({
    index,
    onGpu: index >= firstGpuLayer,
    weightsBytes: bytes,
    expertsBytes: weights.expertsPerLayer[index],
    expertsInRamBytes: index >= firstGpuLayer && index < cpuMoeLayers ? weights.expertsPerLayer[index] : 0,
    kvBytes: kv.perLayer[index] ?? 0,
    stateBytes: kv.statePerLayer[index] ?? 0,
  }));
  const sum = (onGpu: boolean, pick: (layer: GgufLayerCost) => number) =>
    layers.filter((layer) => layer.onGpu === onGpu).reduce((total, layer) => total + pick(layer), 0);
  const compute = computeLines(keys, cells, ubatch, weights.vocab, flash, {
    cacheless: plan?.noMemory != null,
    embeddingsOut,
  });
  const computeBytes = compute.reduce((total, line) => total + line.bytes, 0);
  const hostOutput = compute.find((line) => line.label === 'logits' || line.label === 'embeddings')?.bytes ?? 0;
  const anyOnGpu = gpuLayers > 0;
  const outputBytes = weights.output.bytes + weights.tiedEmbeddingBytes;
  const expertsInRam = sum(true, (l) => l.expertsInRamBytes);
  const vramWeights = sum(true, (l) => l.weightsBytes) - expertsInRam + (outputOnGpu ? outputBytes : 0);
  const ramWeights =
    sum(false, (l) => l.weightsBytes) + expertsInRam + weights.input.bytes + (outputOnGpu ? 0 : weights.output.bytes);
  const notes = [...(plan?.notes ?? [])];
  if (!plan) {
    notes.push('The metadata lacks the attention widths (head counts, key/value lengths): no KV cache is counted.');
  }
  notes.push(
    `Layers ${firstGpuLayer}–${blocks - 1} on the GPU (the last ${Math.min(gpuLayers, blocks)} of ${blocks}); the input embedding stays in RAM; the output layer is ${outputOnGpu ? 'on the GPU' : `in RAM (offload it with -ngl ${blocks + 1})`}.`,
  );
  if (cpuMoeLayers > 0 && expertsInRam > 0) {
    notes.push(
      `${cpuMoeLayers >= blocks ? '--cpu-moe' : `--n-cpu-moe ${cpuMoeLayers}`}: the routed experts (ffn_*_exps) of ${firstLayersText(cpuMoeLayers)} stay in RAM, ${groupDigits(expertsInRam)} B of them in layers otherwise on the GPU; the CPU then runs those experts' matrix products, and its own compute buffer for them is not counted.`,
    );
  }
  return {
    kvCells: cells,
    contextTokens,
    gpuLayers,
    cpuMoeLayers,
    weightsBytes: weights.total,
    expertsBytes: weights.expertsPerLayer.reduce((a, b) => a + b, 0),
    inputLayer: weights.input,
    outputLayer: { ...weights.output, onGpu: outputOnGpu, tiedEmbeddingBytes: weights.tiedEmbeddingBytes },
    layers,
    kvLines: kv.lines,
    noKvCache: plan?.noMemory ?? null,
    kvBytes: kv.perLayer.reduce((a, b) => a + b, 0),
    stateBytes: kv.statePerLayer.reduce((a, b) => a + b, 0),
    compute,
    vram: placement(
      vramWeights,
      sum(true, (l) => l.kvBytes),
      sum(true, (l) => l.stateBytes),
      anyOnGpu ? computeBytes : 0,
    ),
    ram: placement(
      ramWeights,
      sum(false, (l) => l.kvBytes),
      sum(false, (l) => l.stateBytes),
      (anyOnGpu ? 0 : computeBytes) + hostOutput,
    ),
    problems: kv.problems,
    notes,
  };
}

/**
 * The fewest first layers whose routed experts, kept in RAM (`--n-cpu-moe`), bring what `inputs` put in VRAM within
 * `gpuBytes`: 0 when it fits as it is, null when even every layer's experts in RAM leave too much (or the metadata
 * lacks a block count). VRAM only falls as N grows, so the answer is found by halving, in about log2(block_count)
 * estimates.
 */
export function cpuMoeLayersToFit(
  metadata: GgufMetadata,
  tensors: readonly GgufTensorSummary[],
  inputs: GgufMemoryInputs,
  gpuBytes: number,
): number | null {
  const fits = (layers: number): boolean | null => {
    const estimate = estimateGgufMemory(metadata, tensors, { ...inputs, cpuMoeLayers: layers });
    return estimate && estimate.vram.totalBytes <= gpuBytes;
  };
  const blocks = new GgufKeys(metadata).blockCount();
  if (blocks === null || !fits(blocks)) {
    return null;
  }
  let [low, high] = [0, blocks];
  while (low < high) {
    const mid = (low + high) >> 1;
    if (fits(mid)) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low;
}

/**
 * MoE parameters from `{arch}.expert_count` and `expert_used_count` and the stacked expert tensors
 * (`blk.N.ffn_*_exps`, one 3-D tensor of E experts each): active = everything else + routed × used / count.
 * Shared experts (`*_shexp`) and both embeddings count as active, the convention Mixtral and Qwen publish with;
 * `activeParamsWithoutInputEmbedding` is gpt-oss's (its 3.6 B leaves the input embedding out).
 */
export function ggufMoe(metadata: GgufMetadata, tensors: readonly GgufTensorSummary[]): MoeSummary | null {
  const keys = new GgufKeys(metadata);
  const experts = keys.int('expert_count');
  if (experts === null || experts < 2) {
    return null;
  }
  const used = keys.int('expert_used_count');
  let totalParams = 0;
  let routedParams = 0;
  let inputEmbedding = 0;
  for (const tensor of tensors) {
    const params = product(tensor.shape);
    totalParams += params;
    if (ROUTED_EXPERTS.test(tensor.name)) {
      routedParams += params;
    } else if (INPUT_TENSORS.test(tensor.name)) {
      inputEmbedding += params;
    }
  }
  const activeParams = used === null ? null : totalParams - routedParams + (routedParams * used) / experts;
  return {
    experts,
    topK: used,
    sharedExperts: keys.int('expert_shared_count') ?? 0,
    routedParams,
    totalParams,
    activeParams,
    activeParamsWithoutInputEmbedding: activeParams === null ? null : activeParams - inputEmbedding,
    inputEmbeddingParams: inputEmbedding,
    // llama.cpp reuses token_embd as the output layer when a file has no output.weight.
    tiedEmbeddings: !tensors.some((tensor) => tensor.name === 'output.weight'),
    formula:
      used === null
        ? `expert_used_count is absent: ${groupDigits(routedParams)} routed parameters over ${experts} experts, active unknown`
        : `${groupDigits(totalParams - routedParams)} non-routed (embeddings, attention, shared experts, routers) + ${groupDigits(routedParams)} routed × ${used} / ${experts} experts`,
  };
}

/**
 * KV cache + recurrent state bytes at a context, as a function of the context: what the Hub listing's fit needs
 * (`ggufQuantRows`' `kvBytes`). It depends on the metadata only, so one quant's header serves every quant of the
 * model. A context of 0 means the model's `context_length`.
 */
export function ggufCacheBytesAt(
  metadata: GgufMetadata,
  cache: Pick<GgufMemoryInputs, 'cacheTypeK' | 'cacheTypeV' | 'flashAttention' | 'sequences' | 'swaFull'>,
): (contextTokens: number) => number {
  return (contextTokens) => {
    const estimate = estimateGgufMemory(metadata, [], { ...cache, gpuLayers: 0, contextTokens });
    return estimate ? estimate.kvBytes + estimate.stateBytes : 0;
  };
}
