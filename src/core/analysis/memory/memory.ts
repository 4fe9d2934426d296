/**
 * The memory analysis: weights from the header, KV cache from config.json (or inferred from the header and
 * labelled so), MoE active parameters, a LoRA size, and the report's fixed contexts. Pure; the Memory view
 * recomputes other contexts with estimateMemory.
 */
import { groupDigits } from '../../number-format';
import { MAX_MODEL_LAYERS } from '../analysis-limits';
import { isAdapterIndex } from '../lora-markers';
import { shapeGroupsOf } from '../shape-groups';
import { tensorIndex, type NameShapes, type TensorIndex } from '../tensor-index';
import type { Analysis, AnalysisInput } from '../analysis-types';
import { modelParallelPart } from '../model-parallel';
import { NATIVE_PARAMS_FILE, NATIVE_PARAMS_NOTE } from '../native-params';
import { TOKEN_EMBEDDING_NAME } from '../token-embedding-names';
import { asNumber, isRecord } from '../values';
import { expertCount, expertsPerToken, readMemoryConfig, sharedExpertCount, type MemoryConfig } from './config';
import { kvBytesPerToken, reportContexts } from './estimate';
import { analyzeGgufMemory } from './gguf-section';
import { inferKvModel } from './infer';
import { kvModelFromConfig } from './kv-cache';
import type { CacheDtype, KvModel, LoraEstimate, MemorySection, MoeSummary } from './memory-types';
import { partOfName, weightsSummary, type WeightsResult } from './weights';

/** LoRA rank the training estimate assumes (the most common choice in PEFT recipes). */
const LORA_RANK = 16;

/** Linear weights a LoRA usually adapts: attention and dense MLP projections, across naming conventions. */
const LORA_TARGET =
  /\.(q_proj|k_proj|v_proj|o_proj|qkv_proj|gate_proj|up_proj|down_proj|gate_up_proj|query_key_value|c_attn|c_proj|c_fc|wq|wk|wv|wo|w1|w2|w3|fc1|fc2|out_proj|in_proj)\.weight$/;

function loraEstimate(index: TensorIndex, mainLayers: number | null): LoraEstimate | null {
  const shapes = index.shapes();
  let modules = 0;
  let trainable = 0;
  for (let s = 0; s < shapes.count; s++) {
    const text = shapes.text[s];
    const part = partOfName(text);
    if (!LORA_TARGET.test(text) || (part !== 'attention' && part !== 'mlp' && part !== 'shared-experts')) {
      continue;
    }
    for (let i = shapes.rowStart[s]; i < shapes.rowStart[s + 1]; i++) {
      const row = shapes.rowList[i];
      if (index.rank(row) !== 2) {
        continue;
      }
      if (mainLayers !== null && shapes.slots[s] > 0 && shapes.indexValues[shapes.indexStart[row]] >= mainLayers) {
        continue;
      }
      modules++;
      trainable += LORA_RANK * (index.dim(row, 0) + index.dim(row, 1));
    }
  }
  if (modules === 0) {
    return null;
  }
  return {
    rank: LORA_RANK,
    modules,
    trainableParams: trainable,
    formula: `Σ over ${modules} attention and MLP projections of r × (in + out), r = ${LORA_RANK}; experts, embeddings and towers frozen`,
  };
}

/** Highest expert index + 1 in `….experts.<i>.…` names, or the leading dim of fused `[E, …]` expert tensors. */
function expertsInHeader(index: TensorIndex): number | null {
  const shapes = index.shapes();
  // A shard set's highest index values were taken per shard (shape-groups.ts); a single file's are read here.
  const groups = shapeGroupsOf(shapes);
  const highestOf = (s: number, slot: number): number =>
    groups ? groups.highestIndex[groups.highestIndexStart[s] + slot] : highestIndexOf(shapes, s, slot);
  let most = 0;
  for (let s = 0; s < shapes.count; s++) {
    const pieces = shapes.pieces[s];
    const at = pieces.findIndex((piece, i) => i > 0 && /\.experts\.$/.test(pieces[i - 1]) && piece.startsWith('.'));
    if (at > 0) {
      // Experts are numbered 0…E−1: the highest index + 1, without a set over 250,000 rows.
      most = Math.max(most, highestOf(s, at - 1) + 1);
    } else if (/\.experts\.[a-z_]+$/.test(shapes.text[s]) && partOfName(shapes.text[s]) === 'experts') {
      const row = shapes.rowList[shapes.rowStart[s]];
      if (index.rank(row) >= 2) {
        most = Math.max(most, index.dim(row, 0));
      }
    }
  }
  return most > 0 ? most : null;
}

/**
 * The highest value of index slot `slot` among the rows of name shape `s`. A function of its own: as an inner loop
 * of expertsInHeader, V8 compiled it on the stack and dropped that code at every exit, once per shape.
 */
function highestIndexOf(shapes: NameShapes, s: number, slot: number): number {
  const { rowStart, rowList, indexValues, indexStart } = shapes;
  let highest = -1;
  for (let i = rowStart[s]; i < rowStart[s + 1]; i++) {
    const value = indexValues[indexStart[rowList[i]] + slot];
    if (value > highest) {
      highest = value;
    }
  }
  return highest;
}

/**
 * Whether the LM head is the input embedding: config.json's tie_word_embeddings when it says, and always when the
 * header holds an input embedding but no LM head (the head reuses it).
 */
function tiedEmbeddings(config: MemoryConfig | null, weights: WeightsResult): boolean {
  const { input, output } = weights.embeddingParams;
  if (input > 0 && output === 0) {
    return true;
  }
  const flag = config ? (config.text.tie_word_embeddings ?? config.root.tie_word_embeddings) : undefined;
  return flag === true;
}

function moeSummary(weights: WeightsResult, config: MemoryConfig | null, index: TensorIndex): MoeSummary | undefined {
  const routed = weights.params.experts;
  if (routed === 0) {
    return undefined;
  }
  const experts = (config ? expertCount(config) : null) ?? expertsInHeader(index);
  const topK = config ? expertsPerToken(config) : null;
  if (experts === null) {
    return undefined;
  }
  const tied = tiedEmbeddings(config, weights);
  // A tied embedding saved twice (embed_tokens and lm_head both in the header) is one matrix in the model.
  const tiedCopy = tied ? weights.embeddingParams.output : 0;
  const totalParams = weights.summary.params - weights.params.mtp - weights.params.vision - tiedCopy;
  const inputEmbeddingParams = weights.embeddingParams.input;
  // A config asking for more experts per token than there are routes every token through all of them.
  const activeParams =
    topK !== null ? Math.round(totalParams - routed * (1 - Math.min(topK, experts) / experts)) : null;
  const activeParamsWithoutInputEmbedding =
    activeParams === null ? null : tied ? activeParams : activeParams - inputEmbeddingParams;
  const excluded = `MTP layers and towers excluded${tiedCopy > 0 ? ', the tied embedding stored twice counted once' : ''}`;
  let formula = 'num_experts_per_tok is needed for active parameters (config.json)';
  if (activeParams !== null && activeParamsWithoutInputEmbedding !== null) {
    formula =
      `${groupDigits(totalParams)} params (${excluded}) − ${groupDigits(routed)} routed-expert params × ` +
      `(1 − ${topK} of ${experts} experts per token) = ${groupDigits(activeParams)} with both embeddings (as ` +
      'Mistral counts Mixtral and Qwen its MoE models); shared experts and attention count in full. ' +
      (tied
        ? 'The embeddings are tied: the input embedding is also the LM head, so leaving the lookup out changes nothing'
        : `Without the ${groupDigits(inputEmbeddingParams)} input-embedding params, a lookup rather than a matmul ` +
          `(as OpenAI counts gpt-oss): ${groupDigits(activeParamsWithoutInputEmbedding)}`);
  }
  return {
    experts,
    topK,
    sharedExperts: config ? sharedExpertCount(config) : 0,
    routedParams: routed,
    totalParams,
    activeParams,
    activeParamsWithoutInputEmbedding,
    inputEmbeddingParams,
    tiedEmbeddings: tied,
    formula,
  };
}

/**
 * Models that never generate, so keep no KV cache: every listed architecture is an encoder head (BertForMaskedLM,
 * CLIPModel, T5EncoderModel…). Decoders and encoder-decoders name a generating class (MarianMTModel, and the
 * composite EncoderDecoderModel, VisionEncoderDecoderModel, SpeechEncoderDecoderModel among them).
 */
const GENERATING_CLASS =
  /CausalLM|ConditionalGeneration|LMHeadModel|ImageTextToText|Seq2SeqLM|ForGeneration|MTModel$|EncoderDecoderModel$/;

/**
 * An encoder's memory has no KV cache: it reads its whole input in one pass, so a batch costs activations (within the
 * runtime overhead's allowance) and nothing grows with generated tokens.
 */
function encoderKvModel(config: MemoryConfig): KvModel {
  const listed = Array.isArray(config.root.architectures) ? (config.root.architectures as unknown[]) : [];
  const names =
    listed.filter((name) => typeof name === 'string').join(', ') || `A ${config.modelType ?? 'model'} (model_type)`;
  return {
    attention: 'encoder',
    groups: [],
    state: null,
    notes: [
      `${names} is an encoder: it reads its whole input in one pass and keeps no KV cache, so memory is the weights and one batch's activations; the context stops at the model's maximum.`,
    ],
  };
}

/**
 * transformers model types built only as encoders (masked-LM, vision and speech encoders), for a config.json that lists
 * no classes: older saves and hand-written configs often lack `architectures`.
 */
const ENCODER_MODEL_TYPES = new Set([
  'albert',
  'bert',
  'camembert',
  'clip',
  'clip_vision_model',
  'deberta',
  'deberta-v2',
  'dinov2',
  'distilbert',
  'electra',
  'hubert',
  'modernbert',
  'mpnet',
  'roberta',
  'siglip',
  'siglip_vision_model',
  'vit',
  'wav2vec2',
  'wavlm',
  'xlm-roberta',
]);

function isEncoderOnly(config: MemoryConfig): boolean {
  const architectures = config.root.architectures;
  if (!Array.isArray(architectures) || architectures.length === 0) {
    // BERT-style classes can run as a decoder (`is_decoder`), which then caches keys and values.
    return config.modelType !== null && ENCODER_MODEL_TYPES.has(config.modelType) && config.text.is_decoder !== true;
  }
  return !architectures.some((name) => typeof name === 'string' && GENERATING_CLASS.test(name));
}

function defaultCacheDtype(config: MemoryConfig | null): CacheDtype {
  const quant = config && isRecord(config.root.quantization_config) ? config.root.quantization_config : null;
  const kvScheme = quant && isRecord(quant.kv_cache_scheme) ? quant.kv_cache_scheme : null;
  if (kvScheme && asNumber(kvScheme.num_bits) === 8) {
    return 'fp8';
  }
  return config?.torchDtype === 'float16' ? 'fp16' : 'bf16';
}

/**
 * The weights' KV cache when config.json gives no KV head count (its classes then take the attention heads) and the
 * key projections hold another: a model with its own code (a custom model_type) builds them as its weights say, and
 * an engine sizes the cache from the weights it loads. Null when the two agree or the header cannot tell.
 */
function weightsOverDefaultKvHeads(
  input: AnalysisInput,
  index: TensorIndex,
  kv: KvModel,
  config: MemoryConfig,
  configFile: string,
): { kv: KvModel; note: string } | null {
  const inferred = inferKvModel(input, index).kv;
  const fromConfig = kv.groups[0]?.elementsPerToken;
  const fromWeights = inferred?.groups[0]?.elementsPerToken;
  // Only the same model read two ways: a header of other layers or width (a config copied from another model) is not.
  const layersOf = (model: KvModel) => model.groups.reduce((sum, group) => sum + group.layers, 0);
  if (
    !inferred ||
    fromConfig === undefined ||
    fromWeights === undefined ||
    fromConfig === fromWeights ||
    layersOf(inferred) !== layersOf(kv) ||
    config.hidden === null ||
    embeddingWidth(index) !== config.hidden
  ) {
    return null;
  }
  return {
    kv: inferred,
    note:
      `${configFile} gives no KV head count, so its default is the ${groupDigits(config.heads ?? 0)} attention heads ` +
      `(${groupDigits(fromConfig)} cache elements per token per layer), but the key projections hold ` +
      `${groupDigits(fromWeights / 2)} key rows per layer: the KV cache is sized from the weights.`,
  };
}

/** The token embedding's width (its second dimension), or null when no plain 2-D embedding is found by name. */
function embeddingWidth(index: TensorIndex): number | null {
  for (let row = 0; row < index.count; row++) {
    if (index.rank(row) === 2 && TOKEN_EMBEDDING_NAME.test(index.names[row])) {
      return index.dim(row, 1);
    }
  }
  return null;
}

export function analyzeMemory(input: AnalysisInput): MemorySection | null {
  if (input.header.format === 'gguf') {
    return analyzeGgufMemory(input);
  }
  const index = tensorIndex(input.header, input.names);
  // A checkpoint with no model weights (an optimizer's or a generator's state alone) has nothing to fit.
  if (index.count === 0 || isAdapterIndex(index) || input.header.checkpoint?.weights === null) {
    return null;
  }
  const config = readMemoryConfig(input.sidecars.config);
  const configFile = input.sidecars.configFile ?? 'config.json';
  // One part of a model-parallel checkpoint holds a fraction of the weights: the architecture's finding says so.
  if (modelParallelPart(index, config && { ...config, source: configFile }, input.fileName) !== null) {
    return null;
  }
  const evidence: string[] = [];
  if (config && configFile === NATIVE_PARAMS_FILE) {
    evidence.push(NATIVE_PARAMS_NOTE);
  }
  const encoder = config !== null && isEncoderOnly(config);
  let kv = encoder ? encoderKvModel(config) : config ? kvModelFromConfig(config) : null;
  let source: MemorySection['config'] = configFile;
  let mainLayers = config?.layers ?? null;
  if (config?.layersPastLimit != null) {
    evidence.push(
      `${configFile} gives ${groupDigits(config.layersPastLimit)} layers, past the ${groupDigits(MAX_MODEL_LAYERS)} this estimate lays out; the count is ignored.`,
    );
  }
  if (kv && config && !config.kvHeadsStated) {
    const fromWeights = weightsOverDefaultKvHeads(input, index, kv, config, configFile);
    if (fromWeights) {
      kv = fromWeights.kv;
      source = 'inferred';
      evidence.push(fromWeights.note);
    }
  }
  if (!kv) {
    if (config) {
      evidence.push(
        `${configFile} does not give the layer count and attention widths; the KV cache is inferred from the header.`,
      );
    }
    const inferred = inferKvModel(input, index);
    kv = inferred.kv;
    mainLayers = mainLayers ?? inferred.mainLayers;
    source = 'inferred';
  }
  if (!kv) {
    return null;
  }
  const quant = config && isRecord(config.root.quantization_config) ? config.root.quantization_config : null;
  const quantBits = quant ? asNumber(quant.bits) : null;
  const weights = weightsSummary(index, mainLayers, quantBits);
  const cacheDtype = defaultCacheDtype(config);
  evidence.push(
    input.header.checkpoint
      ? `Weights: ${groupDigits(weights.summary.bytes)} B, the checkpoint's model-weights section with each storage region once (tied names and views add nothing; optimizer and other sections left out).`
      : `Weights: ${groupDigits(weights.summary.bytes)} B, the sum of every tensor's data span in the header(s).`,
  );
  evidence.push(weights.summary.paramsNote);
  if (source === configFile && !encoder) {
    evidence.push(
      `KV cache from ${configFile}${config?.modelType ? ` (model_type ${config.modelType})` : ''}; cache dtype ${cacheDtype} by default${cacheDtype === 'fp8' ? ' (kv_cache_scheme in quantization_config)' : ' (engines cache in the model dtype)'}.`,
    );
  }
  const section: MemorySection = {
    weightsBytes: weights.summary.bytes,
    kvBytesPerToken: 0,
    cacheDtype,
    contexts: [],
    config: source,
    maxContext: config?.maxContext ?? null,
    maxContextSource: config?.maxContextSource ?? null,
    ropeScaling: config?.ropeScaling ?? null,
    attentionHeads: config?.heads ?? null,
    kvHeads: config?.kvHeads ?? null,
    modelType: config?.modelType ?? null,
    weights: weights.summary,
    kv,
    lora: loraEstimate(index, mainLayers),
    evidence,
  };
  const moe = moeSummary(weights, config, index);
  if (moe) {
    section.moe = moe;
    if (moe.activeParams !== null) {
      section.activeParams = moe.activeParams;
    }
  }
  section.kvBytesPerToken = kvBytesPerToken(section, cacheDtype);
  section.contexts = reportContexts(section);
  return section;
}

export const memoryAnalysis: Analysis<'memory', MemorySection> = {
  id: 'memory',
  readsSidecars: true,
  run: (input) => ({ section: analyzeMemory(input), findings: [] }),
};
