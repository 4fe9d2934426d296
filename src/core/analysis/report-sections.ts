/**
 * The report sections the insight analyses produce: plain serializable data (no Maps, no class instances), so they
 * cross the worker boundary by structured clone and can be exported as JSON unchanged.
 */
import type { DataSample } from './sampling';
import type { BufferSummary } from './buffers';
import type { LayerSpan } from './lora-layer-span';

export type Confidence = 'high' | 'medium' | 'low';

/** A list of module names, exact in `count` but capped in `names` (MAX_LAYER_NAMES). */
export interface LayerList {
  count: number;
  names: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Quantization

export type QuantFamily =
  | 'none'
  | 'comfy-quant'
  | 'comfy-scaled-fp8'
  | 'fp8'
  | 'fp8-block'
  | 'compressed-tensors'
  | 'modelopt'
  | 'mxfp4'
  | 'gptq'
  | 'gptq-marlin'
  | 'awq'
  | 'bnb-int8'
  | 'bnb-4bit'
  | 'mlx'
  | 'exl2'
  | 'exl3'
  | 'hqq'
  | 'quanto'
  | 'torchao'
  | 'ggml';

/** How many weights share one scale: whole tensor, one row, a group along the input, or a 2-D block. */
export type QuantGranularity = 'tensor' | 'channel' | 'group' | 'block' | 'mixed';

export interface DtypeShare {
  dtype: string;
  tensors: number;
  /** Stored elements (packed containers count as stored, not unpacked). */
  elements: number;
  bytes: number;
  /** elements / all stored elements, 0..1. */
  share: number;
}

export interface PrecisionSummary {
  /** Sorted by bytes, largest first. */
  byDtype: DtypeShare[];
  /** The dtype holding the most parameter elements (scale-only and JSON-blob tensors excluded). */
  dominant: string | null;
}

/** One distinct per-layer config (ComfyUI comfy_quant JSON) and how many layers use it. */
export interface LayerConfigGroup {
  /** Canonical JSON (sorted keys) of the config. */
  config: string;
  format: string | null;
  count: number;
  /** Up to MAX_CONFIG_EXAMPLES layer names. */
  examples: string[];
}

/** A second quantization family found in the same file (rare: e.g. GPTQ body + FP8 lm_head). */
export interface OtherFamily {
  family: QuantFamily;
  format: string;
  layers: number;
  logicalParams: number;
}

export interface QuantizationSection {
  family: QuantFamily;
  /** Format within the family, e.g. `int8_tensorwise`, `gemm`, `nf4`, `block-128x128`, `fp8-cast`, `bf16`. */
  format: string;
  /** One plain sentence: what this file is. */
  summary: string;
  /** Bits per quantized weight value (null when mixed or unknown). */
  bits: number | null;
  /** Weights per scale along the input dimension; null when per-tensor / per-channel / unknown. */
  groupSize: number | null;
  granularity: QuantGranularity | null;
  /** For block-scaled formats, [rows, cols] per scale (DeepSeek FP8: [128, 128]). */
  blockSize?: [number, number];
  /** Storage dtype of the quantized weights (I32 for GPTQ, U8 for NVFP4, F8_E4M3 for FP8 …). */
  weightDtype: string | null;
  /** Stored bytes of the quantized modules (weights + every sidecar: scales, zeros, maps, perms, g_idx) × 8 / their logical params. */
  bitsPerWeight: number | null;
  /** Whole file: data bytes (registered buffers' left out) × 8 / logical params of every tensor. */
  overallBitsPerParam: number | null;
  quantizedLayers: LayerList;
  /** Matrices (rank ≥ 2, F16/BF16/F32/F64) left unquantized: embeddings, lm_head, routers, vision towers… */
  highPrecisionLayers: LayerList;
  /** Parameters of the original model: packed containers unpacked, scale/zero/index sidecars excluded. */
  logicalParams: number;
  /** Sum of header shape products, as stored. */
  storedElements: number;
  /** How `logicalParams` was derived from the stored tensors, one plain line per part. */
  paramsBasis: string[];
  /** Registered buffers (causal masks, rotary tables, batch-norm statistics …) left out of `logicalParams`. */
  buffers?: BufferSummary;
  confidence: Confidence;
  perLayerConfigs?: LayerConfigGroup[];
  /** ComfyUI: per-layer configs read of those the file holds; `perLayerConfigs` counts only the ones read. */
  configSample?: DataSample;
  /** What the header cannot settle and config.json (or another side file) would. */
  needsConfig?: string[];
  /** Which tensors, shapes and metadata led to the verdict. */
  evidence: string[];
  precision: PrecisionSummary;
  others?: OtherFamily[];
  /** The quantization_config seen in config.json, if one was supplied (method, bits, group size). */
  config?: { method: string | null; bits: number | null; groupSize: number | null; agrees: boolean };
}

// ---------------------------------------------------------------------------------------------------------------
// Architecture

export type AttentionKind = 'MHA' | 'GQA' | 'MQA' | 'MLA';

export type HeadDimSource =
  'config.json' | 'params.json' | 'GGUF metadata' | 'q_norm' | 'k_norm' | 'sinks' | 'rotary inv_freq' | 'guess';

export interface MlaShape {
  qLoraRank: number | null;
  kvLoraRank: number | null;
  ropeHeadDim: number | null;
}

export interface DiffusionInfo {
  kind: 'UNet' | 'DiT';
  /** Block container → block count, e.g. {double_blocks: 19, single_blocks: 38}. */
  blocks: Record<string, number>;
}

export interface ArchitectureSection {
  /**
   * Transformer layers (MTP layers excluded); an encoder-decoder's decoder layers. Null for diffusion models and when
   * no layer stack is found.
   */
  layers: number | null;
  /** An encoder-decoder's encoder layers (T5's `encoder.block.N`, BART's and Whisper's `model.encoder.layers.N`). */
  encoderLayers?: number;
  /** Name prefix of the layer stack, e.g. `model.layers.`. */
  layerPrefix: string | null;
  /** True when the indices seen do not run 0…N-1 (one shard of a sharded model, or pruned layers). */
  partialLayers: boolean;
  hiddenSize: number | null;
  intermediateSize: number | null;
  /** Per-expert FFN width in MoE models, when it differs from the dense intermediate size. */
  expertIntermediateSize?: number | null;
  attention: AttentionKind | null;
  heads?: number;
  kvHeads?: number;
  headDim?: number;
  headDimSource?: HeadDimSource;
  /** Routed experts per MoE layer (0 for dense models). */
  experts: number;
  /** Experts stored as one 3-D tensor per projection rather than one tensor per expert. */
  expertsPacked: boolean;
  moeLayers: number;
  sharedExperts: number;
  mla: MlaShape | null;
  /** lm_head absent while the token embedding is present; null when neither is in this file. */
  tiedEmbeddings: boolean | null;
  mtpLayers: number;
  vocabSize: number | null;
  /** Non-text towers and encoders: 'vision', 'audio', 'text-encoder', 'vae'. */
  towers: string[];
  diffusion?: DiffusionInfo;
  family?: string;
  evidence: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// LoRA

export type LoraFamily =
  | 'peft'
  | 'peft-dora'
  | 'kohya'
  | 'kohya-dora'
  | 'diffusers'
  | 'xlabs'
  | 'llama.cpp'
  | 'mlx'
  | 'lycoris-locon'
  | 'lycoris-loha'
  | 'lycoris-lokr'
  | 'lycoris-oft'
  | 'lycoris-boft'
  | 'lycoris-glora'
  | 'lycoris-ia3'
  | 'lycoris-full'
  | 'peft-ia3'
  | 'peft-oft'
  | 'peft-boft'
  | 'peft-vera'
  | 'peft-adalora'
  | 'peft-prompt-tuning'
  | 'peft-prefix-tuning'
  | 'peft-p-tuning'
  | 'peft-prompt-learning'
  | 'lora';

/** How module names are spelled: PEFT dotted paths, kohya underscores, diffusers components, MLX lowercase a/b. */
export type LoraNaming = 'peft' | 'kohya' | 'lycoris' | 'diffusers' | 'xlabs' | 'comfyui' | 'mlx' | 'gguf' | 'plain';

export interface LoraSection {
  family: LoraFamily;
  naming: LoraNaming;
  /** Most common rank (null when every module is full-rank, e.g. LoKr with full w2). */
  rank: number | null;
  /** Rank → number of modules (`full` for unfactored LoKr/IA3/diff modules). */
  ranks: Record<string, number>;
  alpha: number | null;
  alphaSource: 'tensors' | 'adapter_config.json' | 'metadata' | null;
  /**
   * `.alpha` tensors read of those present. kohya's ss_network_alpha is used when present and a spread sample of
   * the tensors confirms it (`sampled: true`); without it every alpha is read, within the remote read budget.
   */
  alphaSample?: DataSample;
  /** Multiplier applied to the delta: alpha / rank (or alpha / √rank for rsLoRA, or MLX `scale`). */
  scale: number | null;
  /** Where `scale` comes from: alpha over the rank, over its square root (rsLoRA), or MLX's own figure. */
  scaleBasis: 'alpha / r' | 'alpha / √r' | 'lora_parameters.scale' | 'lora_parameters.scale × alpha / r' | null;
  /** Target module kinds (last name component, e.g. q_proj, to_k, attn1_to_q), sorted by count. */
  targets: string[];
  /** Adapted modules per component (unet, text_encoder, transformer …). */
  components: Record<string, number>;
  modules: number;
  /** The layers of the stack holding most adapted modules that the adapter covers (mlx-lm's last `num_layers`). */
  layers?: LayerSpan;
  /** Parameters the adapter stores (all tensors). */
  adapterParams: number;
  /** Tensors that are full copies, not low-rank factors (PEFT modules_to_save, e.g. a classifier head). */
  fullTensors: number;
  /**
   * PEFT's prompt learning (prompt tuning, prefix tuning, P-tuning): the learned virtual tokens and the width of each
   * one's saved embedding (prefix tuning's: a key and a value for every layer).
   */
  promptEmbedding?: { virtualTokens: number; width: number };
  baseModel?: string;
  evidence: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Metadata insights

export interface LabeledValue {
  key: string;
  label: string;
  value: string;
}

export interface TagCount {
  tag: string;
  count: number;
}

export interface KohyaDataset {
  name: string;
  repeats: number | null;
  images: number | null;
}

export interface KohyaInsights {
  /** Curated training parameters in a fixed, readable order. */
  training: LabeledValue[];
  networkArgs?: Record<string, string>;
  datasets: KohyaDataset[];
  /** Tags merged across dataset folders, sorted by count (capped at MAX_TAGS). */
  tags: TagCount[];
  /** Distinct tags before the cap. */
  tagCount: number;
  trainingMinutes?: number;
}

export interface MetadataInsightsSection {
  /** `__metadata__.format` (`pt`, `mlx`, `tf`, `flax`…). */
  format: string | null;
  /** Which tool most likely wrote the file, from its metadata keys. */
  producer: string | null;
  kohya?: KohyaInsights;
  triggerWords: string[];
  modelspec?: LabeledValue[];
  totalParameters?: { declared: number; computed: number; logical: number; agrees: boolean };
  evidence: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Module tree

export interface ModuleNode {
  /** Display label: one name segment, or `0–60` for collapsed numbered siblings. */
  label: string;
  /**
   * Rows under this node: names matching this pattern. Literal text, except that a collapsed run of numbered
   * siblings is written `{first-last}` (e.g. `model.layers.{0-60}.mlp.`). Use modulePatternMatcher to test names.
   */
  pattern: string;
  /** Literal text before the first `{`: a cheap startsWith pre-filter. */
  prefix: string;
  tensors: number;
  elements: number;
  bytes: number;
  /** Set on a collapsed run of structurally identical numbered siblings. */
  repeat?: { count: number; first: number; last: number };
  /** Set when this node is a tensor itself (its pattern is the exact name, for uncollapsed ancestors). */
  dtype?: string;
  shape?: number[];
  children?: ModuleNode[];
  /** Children beyond MAX_TREE_CHILDREN, folded: how many and their totals. */
  more?: { nodes: number; tensors: number; elements: number; bytes: number };
}

export interface SeriesPoint {
  label: string;
  /** Name prefix to filter the table by. */
  prefix: string;
  bytes: number;
  elements: number;
  tensors: number;
}

export interface LayerSeries {
  /** e.g. `model.layers.` */
  prefix: string;
  /**
   * Bytes per layer index; over MAX_LAYER_POINTS layers each point sums a run of consecutive layers, from `index` to
   * `last` (both present in the header).
   */
  points: Array<{ index: number; last?: number; bytes: number; elements: number; tensors: number }>;
  /** Layers summed into each point (the last point may hold fewer); absent when each point is one layer. */
  layersPerPoint?: number;
}

/** The widest content of the Tensors tab's measured columns over every row, in characters (table-widths.ts). */
export interface TableWidthsSection {
  name: number;
  shape: number;
  elements: number;
  begin: number;
  end: number;
}

export interface ModuleTreeSection {
  root: ModuleNode;
  /** Nodes in the output tree (after collapsing). */
  nodeCount: number;
  /** True when the tree hit MAX_TREE_NODES and the remaining children were folded into `more` entries. */
  nodeBudgetReached?: boolean;
  /** Set when the header has more distinct module paths than the tree folds: `root` then holds only the totals. */
  gaveUp?: { distinctPaths: number; limit: number };
  bytesByTopLevel: SeriesPoint[];
  /** One series per numbered container (largest first, capped at MAX_LAYER_SERIES). */
  bytesByLayer: LayerSeries[];
}
