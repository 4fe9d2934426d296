/**
 * The KV cache layout of a GGUF model, layer by layer, from its metadata alone, the way llama.cpp sizes it:
 * - K and V per token and layer are `head_count_kv(layer) × key_length` and `× value_length` elements
 *   (llama.cpp `llama_hparams::n_embd_k_gqa` / `n_embd_v_gqa`); `key_length`/`value_length` default to
 *   `embedding_length / head_count` (the GGUF spec, ggml-org/ggml `docs/gguf.md`);
 * - MLA files (deepseek2 and kin, written with `attention.key_length_mla`) cache one latent of
 *   `key_length = kv_lora_rank + rope dims` per layer, K only: llama.cpp allocates no V cache for MLA
 *   (`src/llama-kv-cache.cpp`);
 * - sliding-window layers: `attention.sliding_window_pattern` (n: layer i slides iff `i % n < n − 1`; or one bool
 *   per layer), else the pattern llama.cpp hard-codes per architecture in `src/llama-model.cpp` (`set_swa_pattern`);
 * - sliding layers take `attention.key_length_swa` / `value_length_swa` when the file gives them (Gemma 4);
 * - recurrent layers (Mamba, Mamba2, Gated DeltaNet) keep an F32 state per sequence: conv
 *   `(ssm.conv_kernel − 1) × (ssm.inner_size + 2 × ssm.group_count × ssm.state_size)` and SSM
 *   `ssm.state_size × ssm.inner_size` elements (llama.cpp `n_embd_r` / `n_embd_s`, as gguf-parser-go sizes it);
 *   RWKV's token shift `token_shift_count × embedding_length` and WKV `embedding_length × wkv.head_size`; LFM2's
 *   short convolution `embedding_length × (shortconv.l_cache − 1)`;
 * - the architectures llama.cpp gives no memory, the recurrent-only ones and the layers that reuse an earlier layer's
 *   cache follow gguf-kv-archs.ts.
 * The result also carries the shared KvModel shape (memory-types.ts) so the Memory view draws GGUF and safetensors alike.
 */
import { groupDigits } from '../../number-format';
import { GgufKeys, type GgufMetadata } from './gguf-inputs';
import {
  hasParallelSsm,
  isRecurrentOnly,
  layersWithOwnKv,
  noMemoryReason,
  slidingDefault,
  type GgufAttention,
} from './gguf-kv-archs';
import type { KvLayerGroup, KvModel, RecurrentState } from './memory-types';

export type { GgufAttention } from './gguf-kv-archs';

export interface GgufLayerKv {
  index: number;
  /** null: no KV cache of its own in this layer (recurrent only, a reader of an earlier layer's cache, or none). */
  attention: GgufAttention | null;
  /** Keeps a recurrent (SSM / linear-attention) state per sequence. */
  recurrent: boolean;
  /** K elements per token (all KV heads of the layer). */
  kElements: number;
  /** V elements per token; 0 for MLA, whose V is read from the K latent. */
  vElements: number;
}

export interface GgufKvPlan {
  arch: string;
  blockCount: number;
  /** `{arch}.context_length`: the training context, the default `-c 0` in llama.cpp. */
  contextLength: number | null;
  layers: GgufLayerKv[];
  /** Tokens a sliding (or chunked) layer attends to; null when no layer slides. */
  window: number | null;
  mla: boolean;
  /** Per recurrent layer and sequence, in elements; always stored as F32 by llama.cpp. */
  state: { convElements: number; recurrentElements: number; kind: string } | null;
  /** Why llama.cpp allocates no KV cache and no state at all for this architecture; null when it does. */
  noMemory: string | null;
  /** The shared display shape: groups of layers with one per-token cost, and the fixed state. */
  kvModel: KvModel;
  notes: string[];
}

/** Bytes llama.cpp uses for recurrent states (`type_r`, `type_s` are F32 in llama_memory_recurrent). */
const RECURRENT_STATE_BYTES = 4;

/** RWKV's token shifts per layer when the file has no `token_shift_count` (llama.cpp's `llama_hparams` default). */
const DEFAULT_TOKEN_SHIFTS = 2;

/** llama.cpp's rule for a numeric pattern n: layer i slides iff n = 0 or i % n < n − 1 (the last of each n is full). */
function slidesByPattern(i: number, n: number): boolean {
  return n === 0 || i % n < n - 1;
}

interface HeadLengths {
  keyLength: number;
  valueLength: number;
  /** `(key_length … + value_length …)` and where they came from. */
  formula: string;
}

interface AttentionShape {
  heads: number[] | null;
  kvHeads: number[];
  full: HeadLengths;
  /** The sliding layers' head lengths: `key_length_swa` / `value_length_swa`, else the full layers'. */
  sliding: HeadLengths;
  mla: boolean;
}

function attentionShape(keys: GgufKeys, blocks: number, notes: string[]): AttentionShape | null {
  const heads = keys.perLayer('attention.head_count', blocks);
  const mla = keys.has('attention.key_length_mla') || keys.has('attention.value_length_mla');
  // MLA caches one latent per layer: without a head_count_kv key that is one "head", not head_count of them.
  const kvHeads =
    keys.perLayer('attention.head_count_kv', blocks) ?? (mla ? Array.from({ length: blocks }, () => 1) : heads);
  const embedding = keys.int('embedding_length');
  const firstHeads = heads?.find((h) => h > 0) ?? null;
  const perHead = embedding !== null && firstHeads !== null ? embedding / firstHeads : null;
  let keyLength = keys.int('attention.key_length');
  let valueLength = keys.int('attention.value_length');
  const lora = keys.int('attention.kv_lora_rank');
  const rope = keys.int('rope.dimension_count');
  if (mla && keyLength === null && lora !== null && rope !== null) {
    keyLength = lora + rope;
  }
  const keySource = keyLength !== null ? 'key_length' : 'embedding_length / head_count';
  keyLength ??= perHead !== null && Number.isInteger(perHead) ? perHead : null;
  valueLength ??= keyLength;
  if (kvHeads === null || keyLength === null || valueLength === null) {
    return null;
  }
  if (!keys.has('attention.head_count_kv')) {
    notes.push('attention.head_count_kv is absent: every head keeps its own K and V (no grouped-query sharing).');
  }
  const formula = mla
    ? `MLA latent: ${keys.int('attention.head_count_kv') ?? 1} × key_length ${keyLength}${lora !== null && rope !== null ? ` (kv_lora_rank ${lora} + rope ${rope})` : ''}, K only`
    : `(key_length ${keyLength} + value_length ${valueLength})${keySource === 'key_length' ? '' : ` (${keySource})`}`;
  const full = { keyLength, valueLength, formula };
  const swaKey = keys.int('attention.key_length_swa');
  const swaValue = keys.int('attention.value_length_swa');
  const sliding =
    mla || (swaKey === null && swaValue === null)
      ? full
      : {
          keyLength: swaKey ?? keyLength,
          valueLength: swaValue ?? valueLength,
          formula: `(key_length_swa ${swaKey ?? keyLength} + value_length_swa ${swaValue ?? valueLength})`,
        };
  return { heads, kvHeads, full, sliding, mla };
}

/** Which attention layers slide, and the window, from the file's keys or llama.cpp's per-architecture default. */
function slidingPlan(
  keys: GgufKeys,
  notes: string[],
): { slides: (i: number) => boolean; window: number | null; kind: GgufAttention; source: string } {
  const windowKey = keys.int('attention.sliding_window');
  const patternBools = keys.bools('attention.sliding_window_pattern');
  const patternNumber = keys.int('attention.sliding_window_pattern');
  const fallback = slidingDefault(keys.arch);
  const window = windowKey ?? fallback?.window ?? null;
  const none = { slides: () => false, window: null, kind: 'sliding' as const, source: 'every layer full attention' };
  if (window === null || window === 0) {
    return none;
  }
  if (patternBools) {
    return {
      slides: (i) => patternBools[i] ?? false,
      window,
      kind: 'sliding',
      source: 'attention.sliding_window_pattern (one flag per layer)',
    };
  }
  if (patternNumber !== null) {
    return {
      slides: (i) => slidesByPattern(i, patternNumber),
      window,
      kind: 'sliding',
      source: `attention.sliding_window_pattern ${patternNumber}: the last layer of every ${patternNumber} is full`,
    };
  }
  if (fallback) {
    return {
      slides: (i) => slidesByPattern(i, fallback.pattern),
      window,
      kind: fallback.kind,
      source:
        fallback.pattern === 0
          ? `llama.cpp's ${keys.arch} rule: every attention layer slides`
          : `llama.cpp's ${keys.arch} default: the last layer of every ${fallback.pattern} is full`,
    };
  }
  notes.push(
    `attention.sliding_window ${window} is set, but llama.cpp applies no sliding window to ${keys.arch || 'this architecture'}: every layer is counted as full attention.`,
  );
  return none;
}

interface RecurrentPlan {
  recurrent: (i: number) => boolean;
  attends: (i: number) => boolean;
  state: NonNullable<GgufKvPlan['state']>;
  formula: string;
}

/**
 * Which layers are recurrent, and the per-layer state: RWKV's from `wkv.head_size`, LFM2's short convolution from
 * `shortconv.l_cache` (its layers without KV heads), else the `ssm.*` keys. Null when none applies.
 */
function recurrentPlan(keys: GgufKeys, kvHeads: number[] | null): RecurrentPlan | null {
  const embedding = keys.int('embedding_length');
  const wkvHead = keys.int('wkv.head_size');
  if (wkvHead !== null && embedding !== null) {
    const shift = keys.int('token_shift_count') ?? DEFAULT_TOKEN_SHIFTS;
    const convElements = shift * embedding;
    const recurrentElements = embedding * wkvHead;
    return {
      recurrent: () => true,
      attends: () => false,
      state: { convElements, recurrentElements, kind: 'RWKV' },
      formula: `token shift ${shift} × ${embedding} = ${groupDigits(convElements)}; WKV ${embedding} × head_size ${wkvHead} = ${groupDigits(recurrentElements)}`,
    };
  }
  const shortConv = keys.int('shortconv.l_cache');
  if (shortConv !== null && shortConv > 1 && embedding !== null && kvHeads !== null) {
    const convElements = embedding * (shortConv - 1);
    return {
      recurrent: (i) => kvHeads[i] === 0,
      attends: (i) => kvHeads[i] > 0,
      state: { convElements, recurrentElements: 0, kind: 'short convolution' },
      formula: `conv ${embedding} × (l_cache ${shortConv} − 1) = ${groupDigits(convElements)}`,
    };
  }
  const stateSize = keys.int('ssm.state_size');
  const inner = keys.int('ssm.inner_size');
  if (stateSize === null || inner === null) {
    return null;
  }
  const conv = keys.int('ssm.conv_kernel') ?? 4;
  const groups = keys.int('ssm.group_count') ?? 0;
  const interval = keys.int('full_attention_interval');
  let recurrent: (i: number) => boolean;
  let attends: (i: number) => boolean;
  let kind: string;
  if (hasParallelSsm(keys.arch)) {
    recurrent = () => true;
    attends = () => true;
    kind = 'Mamba2 beside attention';
  } else if (interval !== null && interval > 0) {
    attends = (i) => (i + 1) % interval === 0;
    recurrent = (i) => !attends(i);
    kind = 'Gated DeltaNet';
  } else if (kvHeads !== null && kvHeads.some((h) => h > 0)) {
    attends = (i) => kvHeads[i] > 0;
    recurrent = (i) => kvHeads[i] === 0;
    kind = groups > 0 ? 'Mamba2' : 'Mamba';
  } else {
    attends = () => false;
    recurrent = () => true;
    kind = groups > 0 ? 'Mamba2' : 'Mamba';
  }
  const convElements = (conv - 1) * (inner + 2 * groups * stateSize);
  const recurrentElements = stateSize * inner;
  const formula = `conv (${conv} − 1) × (${inner} + 2 × ${groups} × ${stateSize}) = ${groupDigits(convElements)}; SSM ${stateSize} × ${inner} = ${groupDigits(recurrentElements)}`;
  return { recurrent, attends, state: { convElements, recurrentElements, kind }, formula };
}

/** An architecture llama.cpp gives no memory: every layer without a cache or a state, and the reason. */
function noMemoryPlan(keys: GgufKeys, blocks: number, reason: string): GgufKvPlan {
  const notes = [`llama.cpp allocates no KV cache for ${keys.arch}: it is ${reason}.`];
  return {
    arch: keys.arch,
    blockCount: blocks,
    contextLength: keys.int('context_length'),
    layers: Array.from({ length: blocks }, (_, index) => ({
      index,
      attention: null,
      recurrent: false,
      kElements: 0,
      vElements: 0,
    })),
    window: null,
    mla: false,
    state: null,
    noMemory: reason,
    kvModel: { attention: 'none', groups: [], state: null, notes },
    notes,
  };
}

/** The layout of every layer's cache, or null when the metadata lacks the block count or the attention widths. */
export function ggufKvPlan(metadata: GgufMetadata): GgufKvPlan | null {
  const keys = new GgufKeys(metadata);
  const blocks = keys.blockCount();
  if (blocks === null) {
    return null;
  }
  const noMemory = noMemoryReason(keys.arch);
  if (noMemory !== null) {
    return noMemoryPlan(keys, blocks, noMemory);
  }
  const notes: string[] = [];
  const recurrentOnly = isRecurrentOnly(keys.arch);
  const shape = recurrentOnly ? null : attentionShape(keys, blocks, notes);
  const ssm = recurrentPlan(keys, recurrentOnly ? null : (shape?.kvHeads ?? null));
  if (!shape && !ssm) {
    return null;
  }
  const swa = slidingPlan(keys, notes);
  const ownKv = layersWithOwnKv(keys, blocks);
  const layers: GgufLayerKv[] = [];
  for (let i = 0; i < blocks; i++) {
    const attends = shape !== null && (ssm ? ssm.attends(i) : true) && shape.kvHeads[i] > 0;
    const cached = attends && (ownKv === null || i < ownKv.count);
    const attention = cached ? (swa.slides(i) ? swa.kind : 'full') : null;
    const lengths = attention === 'full' ? shape?.full : shape?.sliding;
    layers.push({
      index: i,
      attention,
      recurrent: ssm?.recurrent(i) ?? false,
      kElements: cached && lengths ? shape.kvHeads[i] * lengths.keyLength : 0,
      vElements: cached && lengths && !shape.mla ? shape.kvHeads[i] * lengths.valueLength : 0,
    });
  }
  notes.unshift(`Layer layout: ${swa.source}.`);
  if (ownKv !== null) {
    notes.push(
      `Layers ${ownKv.count}–${blocks - 1} read the KV cache of earlier layers (${ownKv.source} keep their own): llama.cpp allocates none for them.`,
    );
  }
  const decoderBlocks = keys.int('decoder_block_count');
  if (decoderBlocks !== null && decoderBlocks !== blocks) {
    // llama.cpp's T5 allocates its cache over block_count (the encoder's layers) and runs decoder_block_count.
    notes.push(
      `The decoder has ${decoderBlocks} layers (decoder_block_count) and the encoder ${blocks}: llama.cpp sizes the KV cache by block_count, ${blocks} layers${decoderBlocks > blocks ? ', fewer than its decoder reads' : ''}.`,
    );
  }
  const nextn = keys.int('nextn_predict_layers');
  if (nextn !== null && nextn > 0) {
    notes.push(
      `The last ${nextn} block${nextn === 1 ? ' is a' : 's are'} multi-token-prediction layer${nextn === 1 ? '' : 's'}; llama.cpp still allocates ${nextn === 1 ? 'its' : 'their'} cache.`,
    );
  }
  const state = ssm?.state ?? null;
  return {
    arch: keys.arch,
    blockCount: blocks,
    contextLength: keys.int('context_length'),
    layers,
    window: layers.some((layer) => layer.attention === 'sliding' || layer.attention === 'chunked') ? swa.window : null,
    mla: shape?.mla ?? false,
    state,
    noMemory: null,
    kvModel: kvModelOf(layers, shape, swa.window, state, ssm?.formula ?? '', notes),
    notes,
  };
}

/** How one layer's per-token elements are made: MLA's latent, or its KV heads × its head lengths. */
function headsFormula(shape: AttentionShape | null, layer: GgufLayerKv): string {
  if (!shape) {
    return '';
  }
  const lengths = layer.attention === 'full' ? shape.full : shape.sliding;
  return shape.mla ? lengths.formula : `${shape.kvHeads[layer.index]} KV heads × ${lengths.formula}`;
}

function kvModelOf(
  layers: GgufLayerKv[],
  shape: AttentionShape | null,
  window: number | null,
  state: GgufKvPlan['state'],
  stateFormula: string,
  notes: string[],
): KvModel {
  const groups = new Map<string, KvLayerGroup>();
  for (const layer of layers) {
    if (layer.attention === null) {
      continue;
    }
    const elements = layer.kElements + layer.vElements;
    const capped = layer.attention !== 'full';
    const label =
      layer.attention === 'full'
        ? shape?.mla
          ? 'MLA latent'
          : 'full attention'
        : `${layer.attention === 'chunked' ? 'chunked attention' : 'sliding window'} (${window} tokens)`;
    const key = `${label}|${elements}`;
    const group = groups.get(key);
    if (group) {
      group.layers++;
    } else {
      groups.set(key, {
        label,
        layers: 1,
        elementsPerToken: elements,
        window: capped ? window : null,
        formula: `${headsFormula(shape, layer)} = ${groupDigits(elements)}${capped ? `; capped at ${window} tokens` : ''}`,
      });
    }
  }
  const recurrentLayers = layers.filter((layer) => layer.recurrent).length;
  let recurrent: RecurrentState | null = null;
  if (state && recurrentLayers > 0) {
    const bytesPerSequence = recurrentLayers * (state.convElements + state.recurrentElements) * RECURRENT_STATE_BYTES;
    recurrent = {
      kind: state.kind,
      layers: recurrentLayers,
      convElements: state.convElements,
      recurrentElements: state.recurrentElements,
      convBytes: RECURRENT_STATE_BYTES,
      recurrentBytes: RECURRENT_STATE_BYTES,
      bytesPerSequence,
      formula: `${recurrentLayers} ${state.kind} layers × (${stateFormula}) × 4 B (F32) = ${groupDigits(bytesPerSequence)} B per sequence, whatever the context`,
    };
  }
  const attending = layers.filter((layer) => layer.attention !== null).map((layer) => layer.index);
  let attention: KvModel['attention'] = 'none';
  if (shape?.mla) {
    attention = 'MLA';
  } else if (shape && attending.length > 0) {
    const kv = new Set(attending.map((i) => shape.kvHeads[i]));
    if (attending.every((i) => shape.heads !== null && shape.kvHeads[i] === shape.heads[i])) {
      attention = 'MHA';
    } else if (kv.size > 1) {
      attention = 'mixed';
    } else {
      attention = kv.has(1) ? 'MQA' : 'GQA';
    }
  }
  return { attention, groups: [...groups.values()], state: recurrent, notes };
}
