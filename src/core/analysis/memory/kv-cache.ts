/**
 * The KV cache layout from config.json: which layers hold keys and values, how many elements per token each,
 * which are capped at a window, and the fixed state of linear-attention / state-space layers (docs/memory.md; the
 * rules follow transformers' configuration classes and vLLM's KV cache specs).
 * Sizes are in elements; estimate.ts multiplies by the cache dtype the user picks.
 */
import { groupDigits } from '../../number-format';
import { asNumber, asString, isRecord } from '../values';
import { count, first, type EncoderInput, type MemoryConfig } from './config';
import type { CrossAttentionCache, KvLayerGroup, KvModel, RecurrentState } from './memory-types';

/** `cross`: Llama 3.2 Vision's cross-attention layers, which attend to the image, not to earlier tokens. */
type LayerKind = 'full' | 'sliding' | 'chunked' | 'linear' | 'mamba' | 'cross' | 'none';

const KIND_BY_NAME: ReadonlyMap<string, LayerKind> = new Map([
  ['full_attention', 'full'],
  ['attention', 'full'],
  ['global_attention', 'full'],
  ['global', 'full'],
  ['full', 'full'],
  ['sliding_attention', 'sliding'],
  ['sliding_window', 'sliding'],
  ['local_attention', 'sliding'],
  ['local', 'sliding'],
  ['sliding', 'sliding'],
  ['chunked_attention', 'chunked'],
  // Zamba's layers that run its shared attention block beside their Mamba mixer.
  ['hybrid', 'full'],
  // RecurrentGemma's RG-LRU blocks: a fixed state this estimate does not size.
  ['recurrent', 'none'],
  ['linear_attention', 'linear'],
  ['mamba', 'mamba'],
  ['mamba2', 'mamba'],
  ['ssm', 'mamba'],
]);

/**
 * Mamba hybrids, whose configs as transformers 5 writes them call their Mamba layers `linear_attention` (Zamba2,
 * Nemotron-H): the state is Mamba's, not Gated DeltaNet's.
 */
const MAMBA_HYBRIDS = new Set(['zamba', 'zamba2', 'nemotron_h', 'bamba', 'granitemoehybrid', 'jamba', 'falcon_h1']);

/** State-space models without attention: their `num_heads` and `head_dim` are the SSM's. */
const STATE_SPACE_ONLY = new Set(['mamba', 'mamba2', 'falcon_mamba']);

/** Families whose `sliding_window`, when set, applies to every layer (Mistral v0.1 rule: transformers' MistralConfig). */
const ALL_LAYERS_SLIDING = new Set(['mistral', 'mixtral', 'starcoder2']);

interface LayerPlan {
  kinds: LayerKind[];
  /** Where the plan came from, for the evidence. */
  source: string;
  /** Every layer also holds a Mamba2 mixer beside its attention (Falcon-H1). */
  parallelMamba: boolean;
}

function kindsFromNames(values: readonly unknown[], modelType: string): LayerKind[] {
  const mambaHybrid = MAMBA_HYBRIDS.has(modelType);
  return values.map((value) => {
    const kind = KIND_BY_NAME.get((asString(value) ?? '').toLowerCase()) ?? 'none';
    return kind === 'linear' && mambaHybrid ? 'mamba' : kind;
  });
}

function layerPlan(config: MemoryConfig, layers: number, notes: string[]): LayerPlan {
  const text = config.text;
  const type = config.modelType ?? '';
  const each = (rule: (i: number) => LayerKind): LayerKind[] => Array.from({ length: layers }, (_, i) => rule(i));
  for (const field of ['layer_types', 'layers_block_type']) {
    const value = text[field];
    if (Array.isArray(value) && value.length > 0) {
      // Zamba2's hybrid layers run Mamba too, as every one of its layers does.
      const parallelMamba = type === 'zamba' || type === 'zamba2';
      return { kinds: kindsFromNames(value.slice(0, layers), type), source: field, parallelMamba };
    }
  }
  if (STATE_SPACE_ONLY.has(type)) {
    return { kinds: each(() => 'mamba'), source: `${type}: every layer a state-space mixer`, parallelMamba: false };
  }
  // Bamba lists its attention layers; the rest are Mamba2.
  const attentionAt = text.attn_layer_indices;
  if (Array.isArray(attentionAt)) {
    const at = new Set(attentionAt.map((value) => asNumber(value)));
    return {
      kinds: each((i) => (at.has(i) ? 'full' : 'mamba')),
      source: 'attention at attn_layer_indices, the rest Mamba',
      parallelMamba: false,
    };
  }
  // RecurrentGemma repeats block_types over the layers; its attention is local (attention_window_size).
  const blockTypes = text.block_types;
  if (Array.isArray(blockTypes) && blockTypes.length > 0) {
    const kinds = kindsFromNames(blockTypes, type).map((kind) => (kind === 'full' ? 'sliding' : kind));
    return {
      kinds: each((i) => kinds[i % kinds.length]),
      source: 'block_types repeated over the layers (attention local)',
      parallelMamba: false,
    };
  }
  const crossAt = text.cross_attention_layers;
  if (Array.isArray(crossAt) && crossAt.length > 0) {
    const at = new Set(crossAt.map((value) => asNumber(value)));
    return {
      kinds: each((i) => (at.has(i) ? 'cross' : 'full')),
      source: 'cross-attention (to the image) at cross_attention_layers, the rest self-attention',
      parallelMamba: false,
    };
  }
  const pattern = asString(text.hybrid_override_pattern);
  if (pattern) {
    const kinds = [...pattern]
      .slice(0, layers)
      .map((char): LayerKind => (char === '*' ? 'full' : char === 'M' ? 'mamba' : 'none'));
    return { kinds, source: 'hybrid_override_pattern (* attention, M Mamba2)', parallelMamba: false };
  }
  const window = count(text, ['sliding_window']);
  switch (type) {
    case 'qwen3_next': {
      const interval = count(text, ['full_attention_interval']) ?? 4;
      return {
        kinds: each((i) => ((i + 1) % interval === 0 ? 'full' : 'linear')),
        source: `every ${interval}th layer full attention (full_attention_interval), the rest Gated DeltaNet`,
        parallelMamba: false,
      };
    }
    case 'jamba': {
      const period = count(text, ['attn_layer_period']) ?? 8;
      const offset = first(text, ['attn_layer_offset']) ?? 4;
      return {
        kinds: each((i) => (i % period === offset ? 'full' : 'mamba')),
        source: `attention where layer % ${period} = ${offset} (attn_layer_period/offset), the rest Mamba`,
        parallelMamba: false,
      };
    }
    case 'falcon_h1':
      return { kinds: each(() => 'full'), source: 'attention and Mamba2 in every layer', parallelMamba: true };
    case 'gemma2':
      return {
        kinds: each((i) => (i % 2 === 0 ? 'sliding' : 'full')),
        source: 'even layers sliding, odd layers full (Gemma 2)',
        parallelMamba: false,
      };
    case 'gpt_oss':
      return {
        kinds: each((i) => (i % 2 === 0 ? 'sliding' : 'full')),
        source: 'even layers sliding, odd layers full (gpt-oss default)',
        parallelMamba: false,
      };
    case 'gemma3':
    case 'gemma3_text':
    case 'cohere2': {
      const every = count(text, ['sliding_window_pattern', '_sliding_window_pattern']) ?? (type === 'cohere2' ? 4 : 6);
      return {
        kinds: each((i) => ((i + 1) % every === 0 ? 'full' : 'sliding')),
        source: `every ${every}th layer full, the rest sliding (sliding_window_pattern)`,
        parallelMamba: false,
      };
    }
    case 'llama4':
    case 'llama4_text': {
      const noRope = Array.isArray(text.no_rope_layers) ? text.no_rope_layers : null;
      return {
        kinds: noRope
          ? each((i) => (asNumber(noRope[i]) === 0 ? 'full' : 'chunked'))
          : each((i) => ((i + 1) % 4 === 0 ? 'full' : 'chunked')),
        source: noRope ? 'no_rope_layers (RoPE layers chunked)' : 'every 4th layer global, the rest chunked (Llama 4)',
        parallelMamba: false,
      };
    }
  }
  if (text.use_sliding_window === true && window !== null) {
    const from = count(text, ['max_window_layers']) ?? 0;
    return {
      kinds: each((i) => (i >= from ? 'sliding' : 'full')),
      source: `use_sliding_window: layers from ${from} (max_window_layers) slide`,
      parallelMamba: false,
    };
  }
  if (text.use_sliding_window === false || text.use_sliding_window === undefined) {
    if (window !== null && ALL_LAYERS_SLIDING.has(type)) {
      return { kinds: each(() => 'sliding'), source: 'sliding_window set: every layer slides', parallelMamba: false };
    }
    if (window !== null && text.use_sliding_window === undefined) {
      notes.push(
        `sliding_window ${window} is set but ${type || 'this model type'} has no known rule for which layers use it: every layer is counted as full attention (an upper bound).`,
      );
    }
  }
  return { kinds: each(() => 'full'), source: 'every layer full attention', parallelMamba: false };
}

const DTYPE_BYTES: Readonly<Record<string, number>> = { float32: 4, float16: 2, bfloat16: 2 };

function recurrentState(config: MemoryConfig, kind: 'linear' | 'mamba', layers: number): RecurrentState | null {
  const text = config.text;
  const modelBytes = DTYPE_BYTES[config.torchDtype ?? ''] ?? 2;
  if (kind === 'linear') {
    const k = count(text, ['linear_conv_kernel_dim']) ?? 4;
    const nk = count(text, ['linear_num_key_heads']);
    const dk = count(text, ['linear_key_head_dim']);
    const nv = count(text, ['linear_num_value_heads']);
    const dv = count(text, ['linear_value_head_dim']);
    if (nk === null || dk === null || nv === null || dv === null) {
      return null;
    }
    const conv = (k - 1) * (2 * nk * dk + nv * dv);
    const recurrent = nv * dv * dk;
    return finishState('Gated DeltaNet', layers, conv, recurrent, modelBytes, modelBytes, [
      `conv (${k} − 1) × (2 × ${nk} × ${dk} + ${nv} × ${dv}) = ${conv}`,
      `recurrent ${nv} × ${dv} × ${dk} = ${recurrent}`,
    ]);
  }
  const hidden = config.hidden;
  const ssmOnly = STATE_SPACE_ONLY.has(config.modelType ?? '');
  const heads = count(text, ssmOnly ? ['num_heads'] : ['mamba_num_heads', 'mamba_n_heads', 'n_mamba_heads']);
  const headDim = count(text, ssmOnly ? ['head_dim'] : ['mamba_head_dim', 'mamba_d_head', 'mamba_headdim']);
  const dState = count(text, ['ssm_state_size', 'mamba_d_state', 'state_size']);
  const dConv = count(text, ['conv_kernel', 'mamba_d_conv', 'd_conv']) ?? 4;
  const expand = first(text, ['mamba_expand', 'expand']);
  const ssmDtype = asString(text.mamba_ssm_cache_dtype) ?? (config.modelType === 'nemotron_h' ? 'float32' : null);
  const recurrentBytes = ssmDtype !== null ? (DTYPE_BYTES[ssmDtype] ?? modelBytes) : modelBytes;
  if (dState === null) {
    return null;
  }
  if (heads !== null && headDim !== null) {
    const groups = count(text, ['n_groups', 'mamba_n_groups', 'mamba_ngroups']) ?? 1;
    const inner = count(text, ['mamba_d_ssm']) ?? heads * headDim;
    const conv = (dConv - 1) * (inner + 2 * groups * dState);
    const recurrent = heads * headDim * dState;
    return finishState('Mamba2', layers, conv, recurrent, modelBytes, recurrentBytes, [
      `conv (${dConv} − 1) × (${inner} + 2 × ${groups} × ${dState}) = ${conv}`,
      `SSM ${heads} heads × ${headDim} × ${dState} = ${recurrent}`,
    ]);
  }
  if (expand === null || hidden === null) {
    return null;
  }
  const inner = expand * hidden;
  const conv = (dConv - 1) * inner;
  const recurrent = inner * dState;
  return finishState('Mamba', layers, conv, recurrent, modelBytes, recurrentBytes, [
    `d_inner ${expand} × ${hidden} = ${inner}`,
    `conv (${dConv} − 1) × ${inner} = ${conv}`,
    `SSM ${inner} × ${dState} = ${recurrent}`,
  ]);
}

function finishState(
  kind: string,
  layers: number,
  convElements: number,
  recurrentElements: number,
  convBytes: number,
  recurrentBytes: number,
  parts: string[],
): RecurrentState {
  const bytesPerSequence = layers * (convElements * convBytes + recurrentElements * recurrentBytes);
  return {
    kind,
    layers,
    convElements,
    recurrentElements,
    convBytes,
    recurrentBytes,
    bytesPerSequence,
    formula:
      `${layers} ${kind} layers × (${parts.join('; ')}; conv × ${convBytes} B + recurrent × ${recurrentBytes} B) ` +
      `= ${groupDigits(bytesPerSequence)} B per sequence, whatever the context`,
  };
}

/** The KV layout config.json describes, or null when it lacks the layer count or the attention widths. */
export function kvModelFromConfig(config: MemoryConfig): KvModel | null {
  const text = config.text;
  const layers = config.layers;
  if (layers === null) {
    return null;
  }
  const notes: string[] = [];
  const plan = layerPlan(config, layers, notes);
  // Gemma 3n and Gemma 4: the last layers attend with the keys and values of an earlier layer of their kind, and
  // keep no cache of their own (vLLM's KV sharing allocates none for them).
  const shared = count(text, ['num_kv_shared_layers']);
  if (shared !== null && shared < layers) {
    plan.kinds.fill('none', layers - shared);
    notes.push(
      `Layers ${layers - shared}–${layers - 1} (num_kv_shared_layers ${shared}) read the keys and values of earlier layers and keep no cache of their own.`,
    );
  }
  const kvLoraRank = count(text, ['kv_lora_rank']);
  const ropeDim = count(text, ['qk_rope_head_dim']);
  const mla = kvLoraRank !== null && ropeDim !== null;
  let elements: number;
  let formula: string;
  let attention: KvModel['attention'];
  if (mla) {
    elements = kvLoraRank + ropeDim;
    formula = `MLA latent: kv_lora_rank ${kvLoraRank} + qk_rope_head_dim ${ropeDim} = ${elements} (one latent, no ×2)`;
    attention = 'MLA';
    const mtp = count(text, ['num_nextn_predict_layers']);
    if (mtp !== null) {
      notes.push(
        `The ${mtp} MTP layer${mtp === 1 ? '' : 's'} (num_nextn_predict_layers) add KV only when used for speculative decoding; not counted.`,
      );
    }
  } else if (!plan.kinds.some((kind) => kind === 'full' || kind === 'sliding' || kind === 'chunked')) {
    // A state-space model: no layer caches keys and values, whatever its config says of heads.
    elements = 0;
    formula = 'no attention layer';
    attention = 'none';
  } else {
    const { kvHeads, headDim, heads } = config;
    if (kvHeads === null || headDim === null) {
      return null;
    }
    elements = 2 * kvHeads * headDim;
    formula = `2 (K and V) × ${kvHeads} KV heads × ${headDim} head dim${config.headDimSource === 'head_dim' ? '' : ` (${config.headDimSource})`} = ${elements}`;
    attention = kvHeads === heads ? 'MHA' : kvHeads === 1 ? 'MQA' : 'GQA';
  }
  const groups: KvLayerGroup[] = [];
  // A capped group keeps at most `cap.tokens` per layer, and its formula says which config field caps it.
  const group = (
    label: string,
    layerCount: number,
    cap: { tokens: number; field: string } | null,
    own: { elements: number; formula: string } = { elements, formula },
  ): KvLayerGroup => ({
    label,
    layers: layerCount,
    elementsPerToken: own.elements,
    window: cap?.tokens ?? null,
    formula: cap ? `${own.formula}; capped at ${cap.field} ${cap.tokens} tokens` : own.formula,
  });
  // Gemma 4's full-attention layers have heads of global_head_dim; its sliding layers keep head_dim.
  const globalHeadDim = mla ? null : count(text, ['global_head_dim']);
  const fullHeads =
    globalHeadDim !== null && config.kvHeads !== null
      ? {
          elements: 2 * config.kvHeads * globalHeadDim,
          formula: `2 (K and V) × ${config.kvHeads} KV heads × ${globalHeadDim} global_head_dim = ${2 * config.kvHeads * globalHeadDim}`,
        }
      : undefined;
  const full = plan.kinds.filter((kind) => kind === 'full').length;
  const sliding = plan.kinds.filter((kind) => kind === 'sliding').length;
  const chunked = plan.kinds.filter((kind) => kind === 'chunked').length;
  const windowField = text.sliding_window === undefined ? 'attention_window_size' : 'sliding_window';
  const slidingWindow = count(text, [windowField]);
  const chunk = count(text, ['attention_chunk_size']) ?? 8192;
  let uncappedSliding = 0;
  if (full > 0) {
    groups.push(
      group(
        mla ? 'MLA latent' : config.encoderInput ? 'decoder self-attention' : 'full attention',
        full,
        null,
        fullHeads,
      ),
    );
  }
  if (sliding > 0) {
    if (slidingWindow === null) {
      uncappedSliding = sliding;
      notes.push(`${sliding} layers are marked sliding but ${windowField} is not set: counted as full attention.`);
    } else {
      groups.push(
        group(`sliding window (${slidingWindow} tokens)`, sliding, { tokens: slidingWindow, field: windowField }),
      );
    }
  }
  if (uncappedSliding > 0) {
    if (groups[0]?.window === null && groups[0].elementsPerToken === elements) {
      groups[0].layers += uncappedSliding;
    } else {
      groups.unshift(group('full attention', uncappedSliding, null));
    }
  }
  if (chunked > 0) {
    groups.push(
      group(`chunked attention (${chunk} tokens)`, chunked, { tokens: chunk, field: 'attention_chunk_size' }),
    );
  }
  let state: RecurrentState | null = null;
  const linearLayers = plan.kinds.filter((kind) => kind === 'linear').length;
  const mambaLayers = plan.parallelMamba ? layers : plan.kinds.filter((kind) => kind === 'mamba').length;
  if (linearLayers > 0 || mambaLayers > 0) {
    const kind = linearLayers > 0 ? 'linear' : 'mamba';
    const stateLayers = linearLayers > 0 ? linearLayers : mambaLayers;
    state = recurrentState(config, kind, stateLayers);
    if (!state) {
      notes.push(
        `${stateLayers} ${kind === 'linear' ? 'linear-attention' : 'state-space'} layers keep a fixed state per sequence, but config.json lacks the fields to size it; not counted.`,
      );
    }
  }
  notes.unshift(`Layer layout: ${plan.source}.`);
  const crossLayers = plan.kinds.filter((kind) => kind === 'cross').length;
  const cross = config.encoderInput
    ? crossAttentionFromConfig(config.encoderInput, layers, elements, formula)
    : crossLayers > 0
      ? imageCrossAttention(config, crossLayers, elements, formula, notes)
      : null;
  return { attention, groups, ...(cross ? { crossAttention: cross } : {}), state, notes };
}

/**
 * Llama 3.2 Vision (mllama): each cross-attention layer keeps the keys and values of one image's vision tokens,
 * max_num_tiles × ((image_size / patch_size)² + 1 class token) of them (transformers' and vLLM's Mllama), once per
 * sequence whatever its length.
 */
function imageCrossAttention(
  config: MemoryConfig,
  layers: number,
  elements: number,
  formula: string,
  notes: string[],
): CrossAttentionCache | null {
  const fields = isRecord(config.root.vision_config) ? config.root.vision_config : {};
  const tiles = count(fields, ['max_num_tiles']);
  const image = count(fields, ['image_size']);
  const patch = count(fields, ['patch_size']);
  if (tiles === null || image === null || patch === null || image % patch !== 0) {
    notes.push(
      `${layers} cross-attention layers keep an image's keys and values, but vision_config lacks max_num_tiles, image_size or patch_size to size them; not counted.`,
    );
    return null;
  }
  const side = image / patch;
  const tokens = tiles * (side * side + 1);
  return {
    label: 'cross-attention to the image',
    positions: 'image positions',
    layers,
    elementsPerToken: elements,
    inputLimit: tokens,
    fixedInput: true,
    formula:
      `${formula}, over ${groupDigits(tokens)} image positions per image (max_num_tiles ${tiles} × ((image_size ` +
      `${image} / patch_size ${patch})² + 1 class token)), one image per sequence`,
  };
}

/** Every decoder layer of an encoder-decoder attends to the encoder's output with its own keys and values. */
function crossAttentionFromConfig(
  input: EncoderInput,
  layers: number,
  elements: number,
  formula: string,
): CrossAttentionCache {
  const positions =
    input.limit === null
      ? 'as many input positions as the input has (no position limit in config.json)'
      : input.fixed
        ? `${groupDigits(input.limit)} encoder positions per sequence (${input.field}: every input is padded to it)`
        : `up to ${groupDigits(input.limit)} input positions (${input.field})`;
  return {
    label: 'cross-attention to the encoder output',
    positions: input.fixed ? 'encoder positions' : 'input tokens',
    layers,
    elementsPerToken: elements,
    inputLimit: input.limit,
    fixedInput: input.fixed,
    formula: `${formula}, over ${positions}`,
  };
}
