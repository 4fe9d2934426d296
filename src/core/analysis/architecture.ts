/**
 * The architecture analysis: what kind of network the tensor names and shapes describe — layer count, widths,
 * attention kind and heads, MoE experts, MLA, MTP layers, tied embeddings, extra towers, diffusion blocks.
 * Every number says where it came from in `evidence`; numbers that need a head_dim the header cannot give are
 * labelled with their source (`headDimSource`), down to an explicit `guess`.
 * (quant-signatures §12; DeepSeek-V3 README_WEIGHTS for MTP; transformers conversion_mapping for packed experts.)
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding } from '../model';
import { hiddenSizeFromNorms } from './anchors';
import { MAX_EVIDENCE } from './limits';
import { isAdapterIndex } from './lora-markers';
import { isHighPrecisionFloat } from './quant/types';
import type { ArchitectureSection, AttentionKind, DiffusionInfo, HeadDimSource, MlaShape } from './report-sections';
import { tensorIndex, type NameShapes, type TensorIndex } from './tensor-index';
import type { Analysis, AnalysisInput } from './types';
import { asNumber, asString, decodeNumbers, isRecord, parseJsonBytes } from './values';

/** Tensor-name endings that hold a module's (possibly packed) weight; the module path is what precedes them. */
const WEIGHT_SUFFIXES = [
  '.weight',
  '.qweight',
  '.weight_packed',
  '.q_weight',
  '.trellis',
  '.W_q',
  '.weight._data',
  '._weight_qdata',
  '.weight:qdata',
  '.B',
];

/** First name segments (or second, under `model.`) of non-text towers. */
const TOWER_HEADS: ReadonlyMap<string, string> = new Map([
  ...[
    'visual',
    'vision_tower',
    'vision_model',
    'vision_encoder',
    'image_encoder',
    'vision_embed_tokens',
    'multi_modal_projector',
    'mm_projector',
    'vision',
  ].map((head): [string, string] => [head, 'vision']),
  ...['audio_tower', 'audio_model', 'audio_encoder', 'audio'].map((head): [string, string] => [head, 'audio']),
  ...['cond_stage_model', 'conditioner', 'text_encoder', 'text_encoders', 'text_encoder_2', 'text_encoder_3'].map(
    (head): [string, string] => [head, 'text-encoder'],
  ),
  ...['first_stage_model', 'vae'].map((head): [string, string] => [head, 'vae']),
]);

/** Towers that transformers nests under `model.` (`model.visual`, `model.vision_tower`…); encoders never are. */
const MODEL_NESTED_TOWERS = new Set([
  'visual',
  'vision_tower',
  'vision_model',
  'vision_encoder',
  'image_encoder',
  'vision_embed_tokens',
  'multi_modal_projector',
  'mm_projector',
  'vision',
  'audio_tower',
  'audio_model',
  'audio_encoder',
  'audio',
]);

const DIT_CONTAINERS = [
  'double_blocks',
  'single_blocks',
  'joint_blocks',
  'transformer_blocks',
  'single_transformer_blocks',
];
const UNET_CONTAINERS = ['input_blocks', 'output_blocks', 'down_blocks', 'up_blocks'];

/** Container names of transformer layer stacks. */
const RE_STACK = /(?:^|\.)(?:layers|layer|h|blocks|block|resblocks|decoder_layers|encoder_layers)\.$/;

const RE_MTP_TENSOR = /(?:^|\.)(?:eh_proj|enorm|hnorm|shared_head)\./;
const RE_EMBEDDING =
  /^(?:model\.|transformer\.|language_model\.model\.|model\.language_model\.|gpt_neox\.)?(?:embed_tokens|wte|tok_embeddings|word_embeddings|embed_in|shared|embeddings\.word_embeddings)\.(?:weight|qweight|weight_packed|W_q)$/;
const RE_LM_HEAD = /^(?:lm_head|embed_out|output|language_model\.lm_head|model\.lm_head)\./;
const RE_ROUTER = /\.(?:mlp|block_sparse_moe|feed_forward)\.(?:gate|router)\.weight$/;
/** The first expert's gate/up weight, whose module gives the expert FFN width. */
const RE_EXPERT_MODULE = /\.experts\.0\.(?:gate_proj|w1|up_proj|fc1)\.(?:weight|qweight|weight_packed)$/;
/** RE_EXPERT_MODULE with the index written as a shape writes it: which shapes can hold such a name. */
const RE_EXPERT_MODULE_SHAPE = /\.experts\.#\.(?:gate_proj|w1|up_proj|fc1)\.(?:weight|qweight|weight_packed)$/;

export const architectureAnalysis: Analysis<'architecture', ArchitectureSection> = {
  id: 'architecture',
  run: analyzeArchitecture,
};

interface Container {
  prefix: string;
  indices: Set<number>;
  tensors: number;
}

interface ModelConfig {
  modelType: string | null;
  heads: number | null;
  kvHeads: number | null;
  headDim: number | null;
  hidden: number | null;
}

function readConfig(config: unknown): ModelConfig | null {
  if (!isRecord(config)) {
    return null;
  }
  const text = isRecord(config.text_config) ? config.text_config : config;
  const architectures = Array.isArray(config.architectures) ? asString(config.architectures[0]) : null;
  const heads = asNumber(text.num_attention_heads) ?? asNumber(text.n_head);
  const hidden = asNumber(text.hidden_size) ?? asNumber(text.n_embd) ?? asNumber(text.d_model);
  return {
    modelType: asString(config.model_type) ?? architectures,
    heads,
    kvHeads: asNumber(text.num_key_value_heads),
    headDim: asNumber(text.head_dim) ?? (heads !== null && hidden !== null ? hidden / heads : null),
    hidden,
  };
}

export function analyzeArchitecture(input: AnalysisInput): {
  section: ArchitectureSection | null;
  findings: Finding[];
} {
  const index = tensorIndex(input.header, input.names);
  const names = index.names;
  if (index.count === 0 || isAdapterIndex(index)) {
    return { section: null, findings: [] };
  }
  const findings: Finding[] = [];
  const evidence: string[] = [];
  const config = readConfig(input.sidecars.config);
  // Bytes the quantization detectors asked for (bitsandbytes quant_state, HQQ shape) also give layer widths.
  const bytes = input.tensorBytes;
  // Name patterns below are decided per name shape (see tensor-index.ts): a 250,000-tensor MoE header has a dozen.
  const shapes = index.shapes();
  const { rowShape } = shapes;
  const shapeRows = (s: number): number => shapes.rowStart[s + 1] - shapes.rowStart[s];
  const anyName = (pattern: RegExp): boolean => shapes.text.some((text) => pattern.test(text));

  // Towers: only when something else is in the file too (a bare CLIP text encoder is the model, not a tower).
  // Shapes are numbered in order of first appearance, so walking them meets each tower kind at its first row.
  const towerRows = new Map<string, { count: number; prefix: string }>();
  const isTower = new Uint8Array(shapes.count);
  for (let s = 0; s < shapes.count; s++) {
    const tower = towerOf(shapes.text[s]);
    if (tower) {
      isTower[s] = 1;
      const entry = towerRows.get(tower.kind) ?? { count: 0, prefix: tower.prefix };
      entry.count += shapeRows(s);
      towerRows.set(tower.kind, entry);
    }
  }
  const towerTotal = [...towerRows.values()].reduce((sum, entry) => sum + entry.count, 0);
  const towers = towerTotal < index.count ? [...towerRows.keys()] : [];
  for (const kind of towers) {
    const entry = towerRows.get(kind);
    if (entry) {
      evidence.push(`${kind} tower: ${entry.count} tensors under ${entry.prefix}`);
    }
  }
  if (towers.length === 0) {
    isTower.fill(0);
  }

  // Numbered containers: the text before the first index segment that is not the last segment (`model.layers.`),
  // keyed per shape; the container's indices are the rows' first index values.
  const containers = new Map<string, Container>();
  const containerOf: Array<Container | null> = new Array<Container | null>(shapes.count).fill(null);
  for (let s = 0; s < shapes.count; s++) {
    const pieces = shapes.pieces[s];
    // The first index segment is followed by more text unless it is the only one and ends the name.
    if (isTower[s] || pieces.length < 2 || (pieces.length === 2 && pieces[1] === '')) {
      continue;
    }
    const prefix = pieces[0];
    let entry = containers.get(prefix);
    if (!entry) {
      entry = { prefix, indices: new Set<number>(), tensors: 0 };
      containers.set(prefix, entry);
    }
    entry.tensors += shapeRows(s);
    // The first index values in sorted order: one binary search per distinct value, not a look at every row.
    const { keys, depth, rows } = index.sortedShape(s);
    for (let i = 0; i < rows.length; i = firstIndexBound(keys, depth, keys[i * depth], i + 1, true)) {
      entry.indices.add(keys[i * depth]);
    }
    containerOf[s] = entry;
  }

  const diffusion = detectDiffusion(containers, anyName, evidence);
  const family: string[] = [];
  let mtpLayers = 0;
  const mtpPrefix = [...containers.values()].find((c) => /^(?:model\.)?mtp\.(?:layers\.)?$/.test(c.prefix));
  if (mtpPrefix) {
    mtpLayers = mtpPrefix.indices.size;
    evidence.push(`${mtpLayers} MTP layer(s) under ${mtpPrefix.prefix} (separate multi-token-prediction stack)`);
  } else if (anyName(/^(?:model\.)?mtp\./)) {
    mtpLayers = 1;
    evidence.push('MTP module under mtp. (separate multi-token-prediction head)');
  }

  let main: Container | null = null;
  if (!diffusion) {
    for (const container of containers.values()) {
      if (container === mtpPrefix || /experts\.$/.test(container.prefix)) {
        continue;
      }
      if (main === null || container.tensors > main.tensors) {
        main = container;
      }
    }
    // A layer stack is named like one (layers, h, blocks…) or holds attention; an nn.Sequential's `0.`, `2.` is not.
    const prefix = main?.prefix ?? '';
    if (main && !RE_STACK.test(prefix) && !names.some((n) => n.startsWith(prefix) && /attn|attention/i.test(n))) {
      main = null;
    }
  }

  // Embedding, lm_head, tied.
  let embeddingRow = -1;
  let lmHead = false;
  const isEmbedding = new Uint8Array(shapes.count);
  for (let s = 0; s < shapes.count; s++) {
    // Embeddings and heads sit outside the layer stack.
    if (isTower[s] || containerOf[s] !== null) {
      continue;
    }
    isEmbedding[s] = RE_EMBEDDING.test(shapes.text[s]) ? 1 : 0;
    lmHead ||= RE_LM_HEAD.test(shapes.text[s]);
  }
  for (let row = 0; row < index.count; row++) {
    if (isEmbedding[rowShape[row]] === 1 && index.rank(row) === 2) {
      embeddingRow = row;
      break;
    }
  }

  const normHidden = hiddenSizeFromNorms(index);
  let hiddenSize: number | null = null;
  if (normHidden) {
    hiddenSize = normHidden.size;
    evidence.push(`hidden_size ${hiddenSize} from norm ${normHidden.tensor}`);
  } else if (diffusion?.kind === 'DiT' && ditEmbedderBias(index) >= 0) {
    // A DiT's patch embedder maps latents to the hidden size: FLUX `img_in.bias` [3072], SD3 `pos_embed.proj.bias`.
    const row = ditEmbedderBias(index);
    hiddenSize = index.dim(row, 0);
    evidence.push(`hidden_size ${hiddenSize} from ${names[row]} (the patch embedder's output)`);
  } else if (embeddingRow >= 0 && isHighPrecisionFloat(index.dtype(embeddingRow))) {
    hiddenSize = index.dim(embeddingRow, 1);
    evidence.push(`hidden_size ${hiddenSize} from ${names[embeddingRow]} columns`);
  } else if (config?.hidden) {
    hiddenSize = config.hidden;
    evidence.push(`hidden_size ${hiddenSize} from config.json`);
  }
  const vocabSize = embeddingRow >= 0 ? index.dim(embeddingRow, 0) : null;
  if (embeddingRow >= 0) {
    evidence.push(`vocab ${vocabSize} from ${names[embeddingRow]} rows`);
  }
  // An encoder-only file (T5 / CLIP text encoders) has no LM head to tie.
  const encoderOnly = main !== null && /^encoder\./.test(main.prefix) && !anyName(/^decoder\./);
  const tiedEmbeddings = diffusion || encoderOnly ? null : embeddingRow >= 0 ? !lmHead : lmHead ? false : null;
  if (encoderOnly) {
    evidence.push('encoder-only stack (no decoder.*): no LM head expected');
  }
  if (tiedEmbeddings) {
    evidence.push('no lm_head beside the token embedding: tied embeddings (safetensors stores a shared tensor once)');
  }

  let layers: number | null = null;
  let partialLayers = false;
  let intermediateSize: number | null = null;
  let expertIntermediateSize: number | null = null;
  let attention: AttentionKind | null = null;
  let heads: number | undefined;
  let kvHeads: number | undefined;
  let headDim: number | undefined;
  let headDimSource: HeadDimSource | undefined;
  let experts = 0;
  let expertsPacked = false;
  let moeLayers = 0;
  let sharedExperts = 0;
  let mla: MlaShape | null = null;

  if (main) {
    const prefix = main.prefix;
    const inStack = new Uint8Array(shapes.count);
    containerOf.forEach((container, s) => {
      inStack[s] = container === main ? 1 : 0;
    });
    const stack = scanStack(index, inStack, hiddenSize);
    const mtpIndices = stack.layers.filter((_, id) => stack.mtp[id]);
    mtpLayers += mtpIndices.length;
    if (mtpIndices.length > 0) {
      evidence.push(
        `layer(s) ${mtpIndices.join(', ')} hold eh_proj/enorm/hnorm/shared_head: multi-token-prediction, not counted as layers`,
      );
    }
    const indices = [...main.indices].filter((i) => !mtpIndices.includes(i)).sort((a, b) => a - b);
    const max = indices.length > 0 ? indices[indices.length - 1] : -1;
    layers = max + 1;
    partialLayers = indices.length !== max + 1;
    evidence.push(
      `${layers} layers: indices 0–${max} under ${prefix}${partialLayers ? ` (only ${indices.length} present)` : ''}`,
    );
    if (partialLayers) {
      findings.push(
        makeFinding(
          'layer-indices-gap',
          `Only ${indices.length} of the layer numbers 0–${max} under ${prefix} are in this file. Either it is one shard of a larger model (open the index or the other shards) or layers were pruned.`,
        ),
      );
    }

    const rep = indices[0];
    const repRows = rep === undefined ? [] : stack.rowsOf(rep);
    const layerPrefix = `${prefix}${rep}.`;
    const modules = new LayerModules(index, repRows);

    // Attention.
    const kvA = modules.findModule(/(?:^|\.)kv_a_proj_with_mqa$/);
    if (kvA) {
      attention = 'MLA';
      // One shard of a sharded model may hold only part of its first layer: take the norms from any layer then.
      const kvNorm = orAnyLayer(index, modules.findTensor(/kv_a_layernorm\.weight$/), '.kv_a_layernorm.weight');
      const qNorm = orAnyLayer(index, modules.findTensor(/q_a_layernorm\.weight$/), '.q_a_layernorm.weight');
      const kvOut = outFeatures(index, kvA, hiddenSize, bytes);
      const kvLoraRank = kvNorm >= 0 ? index.dim(kvNorm, 0) : null;
      mla = {
        qLoraRank: qNorm >= 0 ? index.dim(qNorm, 0) : null,
        kvLoraRank,
        ropeHeadDim: kvOut !== null && kvLoraRank !== null ? kvOut - kvLoraRank : null,
      };
      evidence.push(
        `MLA: ${kvA.slice(layerPrefix.length)} + kv_a_layernorm (kv_lora_rank ${mla.kvLoraRank ?? '?'}, rope dim ${mla.ropeHeadDim ?? '?'}, q_lora_rank ${mla.qLoraRank ?? 'none'})`,
      );
      if (config?.heads) {
        heads = config.heads;
        headDimSource = 'config.json';
      } else {
        const qb = modules.findModule(/(?:^|\.)(?:q_b_proj|q_proj)$/);
        const qOut = qb ? outFeatures(index, qb, null, bytes) : null;
        if (qOut !== null && mla.ropeHeadDim) {
          // DeepSeek-V2/V3 use qk_nope_head_dim = 2 × qk_rope_head_dim (128 / 64).
          heads = qOut / (3 * mla.ropeHeadDim);
          headDimSource = 'guess';
          evidence.push(
            `heads ${heads} = q_b_proj rows / (3 × rope dim), assuming nope dim = 2 × rope dim as in DeepSeek-V2/V3`,
          );
        }
      }
    } else {
      const attn = attentionWidths(index, modules, hiddenSize, bytes);
      if (attn) {
        evidence.push(attn.evidence);
        let source: HeadDimSource | null = null;
        let dim: number | null = null;
        if (config?.headDim) {
          dim = config.headDim;
          source = 'config.json';
        }
        const qNorm = modules.findTensor(/(?:^|\.)(?:q_norm|query_norm|q_layernorm)\.weight$/);
        const kNorm = modules.findTensor(/(?:^|\.)(?:k_norm|key_norm|k_layernorm)\.weight$/);
        const sinks = modules.findTensor(/(?:^|\.)sinks$/);
        const invFreq = modules.findTensor(/rotary_emb\.inv_freq$/);
        if (
          dim === null &&
          qNorm >= 0 &&
          index.rank(qNorm) === 1 &&
          index.dim(qNorm, 0) < attn.q &&
          attn.q % index.dim(qNorm, 0) === 0
        ) {
          dim = index.dim(qNorm, 0);
          source = 'q_norm';
        } else if (dim === null && kNorm >= 0 && index.rank(kNorm) === 1 && attn.kv % index.dim(kNorm, 0) === 0) {
          dim = index.dim(kNorm, 0);
          source = 'k_norm';
        } else if (dim === null && sinks >= 0 && attn.q % index.dim(sinks, 0) === 0) {
          dim = attn.q / index.dim(sinks, 0);
          source = 'sinks';
        } else if (dim === null && invFreq >= 0) {
          dim = index.dim(invFreq, 0) * 2;
          source = 'rotary inv_freq';
        } else if (dim === null) {
          // Most models up to hidden 2048 use 64-wide heads (GPT-2, TinyLlama, Llama-3.2-1B), larger ones 128.
          const order = hiddenSize !== null && hiddenSize <= 2048 ? [64, 128] : [128, 64];
          dim = order.find((d) => attn.q % d === 0 && attn.kv % d === 0) ?? null;
          source = dim === null ? null : 'guess';
        }
        if (dim !== null && source !== null) {
          headDim = dim;
          headDimSource = source;
          heads = attn.q / dim;
          kvHeads = attn.kv / dim;
          evidence.push(
            source === 'guess'
              ? `head_dim ${dim} is a guess (common value dividing q and kv widths); heads ${heads} / kv heads ${kvHeads} follow from it. config.json head_dim would settle it.`
              : `head_dim ${dim} from ${source}${source === 'sinks' ? ' (one sink per head)' : ''}: ${heads} query heads, ${kvHeads} KV heads`,
          );
        }
        attention = attn.kv === attn.q ? 'MHA' : kvHeads === 1 ? 'MQA' : 'GQA';
        if (config?.kvHeads && heads !== undefined && headDimSource === 'config.json') {
          kvHeads = config.kvHeads;
        }
      }
    }

    // MLP widths.
    const dense = findDenseMlp(index, inStack, indices, hiddenSize, bytes);
    if (dense) {
      intermediateSize = dense.size;
      evidence.push(`intermediate_size ${dense.size} from ${dense.module}`);
    }

    // Experts, per layer in order of first appearance; the MTP layer repeats a MoE block and is not one of them.
    const perLayerExperts = new Map<number, number>();
    let expertModule: string | null = null;
    let packedIntermediate: number | null = null;
    stack.layers.forEach((layer, id) => {
      if (stack.mtp[id]) {
        return;
      }
      let count = stack.count[id];
      if (count === 0) {
        // A router without expert tensors (e.g. this shard holds only some of them) still tells E.
        const router = stack.routerRow[id];
        count = router >= 0 ? index.dim(router, 0) : 0;
      }
      if (count > 0) {
        perLayerExperts.set(layer, count);
      }
      expertsPacked ||= stack.packed[id];
      if (expertModule === null && stack.expertModuleRow[id] >= 0) {
        expertModule = stripWeightSuffix(names[stack.expertModuleRow[id]]);
      }
      packedIntermediate ??= stack.packedWidth[id];
      if (stack.shared[id]) {
        sharedExperts = Math.max(sharedExperts, stack.numberedShared[id]?.size || 1);
      }
    });
    moeLayers = perLayerExperts.size;
    experts = Math.max(0, ...perLayerExperts.values());
    if (experts > 0) {
      evidence.push(
        `${experts} routed experts in ${moeLayers} MoE layer(s), ${expertsPacked ? 'packed as 3-D tensors [E, …] (shape[0] = E)' : 'one tensor set per expert (experts.N.)'}${sharedExperts > 0 ? `, ${sharedExperts} shared expert(s)` : ''}`,
      );
      if (expertModule) {
        expertIntermediateSize = outFeatures(index, expertModule, hiddenSize, bytes);
      } else if (packedIntermediate !== null) {
        expertIntermediateSize = packedIntermediate;
      }
      if (intermediateSize === null) {
        intermediateSize = expertIntermediateSize;
      }
    }

    family.push(
      ...guessFamily(anyName, modules, {
        mla: mla !== null,
        experts,
        expertsPacked,
        sinks: modules.findTensor(/(?:^|\.)sinks$/) >= 0,
      }),
    );
  }

  if (diffusion) {
    family.push(diffusionFamily(diffusion, names));
  }
  const section: ArchitectureSection = {
    layers,
    layerPrefix: main ? main.prefix : null,
    partialLayers,
    hiddenSize,
    intermediateSize,
    ...(expertIntermediateSize !== null && expertIntermediateSize !== intermediateSize
      ? { expertIntermediateSize }
      : {}),
    attention,
    ...(heads !== undefined && Number.isInteger(heads) ? { heads } : {}),
    ...(kvHeads !== undefined && Number.isInteger(kvHeads) ? { kvHeads } : {}),
    ...(headDim !== undefined ? { headDim } : {}),
    ...(headDimSource !== undefined ? { headDimSource } : {}),
    experts,
    expertsPacked,
    moeLayers,
    sharedExperts,
    mla,
    tiedEmbeddings,
    mtpLayers,
    vocabSize,
    towers,
    ...(diffusion ? { diffusion } : {}),
    evidence: evidence.slice(0, MAX_EVIDENCE),
  };
  const modelType = config?.modelType ?? family[0];
  if (modelType) {
    section.family = modelType;
  }
  if (!main && !diffusion && embeddingRow < 0 && towers.length === 0) {
    return { section: null, findings };
  }
  return { section, findings };
}

/** Tower kind of a name by its first segment (or second, under `model.`), without a regex per row. */
function towerOf(name: string): { kind: string; prefix: string } | null {
  let dot = name.indexOf('.');
  if (dot < 0) {
    return null;
  }
  let head = name.slice(0, dot);
  let skipped = '';
  if (head === 'model') {
    const next = name.indexOf('.', dot + 1);
    if (next < 0) {
      return null;
    }
    skipped = 'model.';
    head = name.slice(dot + 1, next);
    dot = next;
  }
  const kind = TOWER_HEADS.get(head);
  if (kind === undefined || (skipped !== '' && !MODEL_NESTED_TOWERS.has(head))) {
    return null;
  }
  return { kind, prefix: `${skipped}${head}.` };
}

/** `expertSlotOf` for shapes with neither `.experts.` nor `.switch_mlp.`. */
const NOT_EXPERT = -2;

/**
 * Where a shape's expert index is: the index-tuple position of the segment after the first `.experts.` when that
 * segment is an index followed by more name (`experts.17.up_proj`), -1 for other expert tensors (packed
 * `experts.gate_up_proj`, MLX `switch_mlp.*`), NOT_EXPERT for the rest.
 */
function expertSlotOf(pieces: readonly string[], text: string): number {
  for (let j = 0; j < pieces.length; j++) {
    // '.experts.' holds no digits, so it lies inside one literal piece; the first piece holding it is the first
    // occurrence in every name of the shape.
    const at = pieces[j].indexOf('.experts.');
    if (at >= 0) {
      const slotFollows = at + '.experts.'.length === pieces[j].length && j + 1 < pieces.length;
      return slotFollows && pieces[j + 1] !== '' ? j : -1;
    }
  }
  return text.includes('.switch_mlp.') ? -1 : NOT_EXPERT;
}

/** One flag per shape. */
function shapeFlags(shapes: NameShapes, test: (text: string, shape: number) => boolean): Uint8Array {
  const flags = new Uint8Array(shapes.count);
  for (let s = 0; s < shapes.count; s++) {
    flags[s] = test(shapes.text[s], s) ? 1 : 0;
  }
  return flags;
}

/**
 * In flat index tuples sorted by tuple (`depth` keys each), the first entry at or after `from` whose first index
 * is above `value` (`strictly`) or at least `value`.
 */
function firstIndexBound(keys: Int32Array, depth: number, value: number, from: number, strictly: boolean): number {
  let lo = from;
  let hi = keys.length / depth;
  // Runs are usually long or the next entry is the answer: check it before bisecting.
  if (lo < hi && (strictly ? keys[lo * depth] > value : keys[lo * depth] >= value)) {
    return lo;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const first = keys[mid * depth];
    if (strictly ? first <= value : first < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/** What the expert / MTP / shared-expert checks need from every layer of the stack, gathered in one pass. */
interface StackScan {
  /** Layer indices in order of first appearance. */
  layers: number[];
  /** Per layer (same order): holds MTP tensors. */
  mtp: boolean[];
  /** Largest expert index + 1 and packed expert counts (shape[0]); 0 when none. */
  count: number[];
  /** Holds packed (rank ≥ 3) expert tensors. */
  packed: boolean[];
  /** First non-null packedExpertWidth in header order. */
  packedWidth: Array<number | null>;
  /** First row naming expert 0's gate/up weight, or -1. */
  expertModuleRow: number[];
  /** First 2-D router weight, or -1. */
  routerRow: number[];
  shared: boolean[];
  /** Numbers of `shared_experts.<n>.` modules. */
  numberedShared: Array<Set<number> | null>;
  /** Rows of one layer, in header order. */
  rowsOf(layer: number): number[];
}

/**
 * One pass over the rows of the layer stack (shapes flagged in `inStack`), in header order: per layer, what a
 * loop over that layer's rows would find first or at most. Name tests are per shape (see tensor-index.ts); the
 * two regexes that read digits run only on the few names their shape lets through.
 */
function scanStack(index: TensorIndex, inStack: Uint8Array, hidden: number | null): StackScan {
  const shapes = index.shapes();
  const { rowShape, indexStart, indexValues } = shapes;
  const names = index.names;
  const isMtp = shapeFlags(shapes, (text) => RE_MTP_TENSOR.test(text));
  const expertSlot = Int32Array.from(shapes.pieces, (pieces, s) => expertSlotOf(pieces, shapes.text[s]));
  // Candidates for the first expert's gate/up weight; the regex itself still runs on their names.
  const mayBeExpertModule = shapeFlags(shapes, (text) => RE_EXPERT_MODULE_SHAPE.test(text));
  const isRouter = shapeFlags(shapes, (text) => RE_ROUTER.test(text));
  const isShared = shapeFlags(shapes, (text) => /\.shared_experts?\./.test(text));
  const mayBeNumberedShared = shapeFlags(shapes, (text) => text.includes('.shared_experts.'));
  const scan: StackScan = {
    layers: [],
    mtp: [],
    count: [],
    packed: [],
    packedWidth: [],
    expertModuleRow: [],
    routerRow: [],
    shared: [],
    numberedShared: [],
    rowsOf(layer) {
      // Each stack shape's rows of that layer are one run of its sorted rows.
      const rows: number[] = [];
      for (let s = 0; s < shapes.count; s++) {
        if (inStack[s] === 1) {
          const sorted = index.sortedShape(s);
          let i = firstIndexBound(sorted.keys, sorted.depth, layer, 0, false);
          for (; i < sorted.rows.length && sorted.keys[i * sorted.depth] === layer; i++) {
            rows.push(sorted.rows[i]);
          }
        }
      }
      return rows.sort((a, b) => a - b);
    },
  };
  const ids = new Map<number, number>();
  let lastLayer = -1;
  let id = -1;
  for (let row = 0; row < index.count; row++) {
    const shape = rowShape[row];
    if (inStack[shape] === 0) {
      continue;
    }
    const layer = indexValues[indexStart[row]];
    if (layer !== lastLayer) {
      let known = ids.get(layer);
      if (known === undefined) {
        known = scan.layers.length;
        ids.set(layer, known);
        scan.layers.push(layer);
        scan.mtp.push(false);
        scan.count.push(0);
        scan.packed.push(false);
        scan.packedWidth.push(null);
        scan.expertModuleRow.push(-1);
        scan.routerRow.push(-1);
        scan.shared.push(false);
        scan.numberedShared.push(null);
      }
      id = known;
      lastLayer = layer;
    }
    if (isMtp[shape] === 1) {
      scan.mtp[id] = true;
    }
    if (isShared[shape] === 1) {
      scan.shared[id] = true;
      const match = mayBeNumberedShared[shape] === 1 ? /\.shared_experts\.(\d+)\./.exec(names[row]) : null;
      if (match) {
        (scan.numberedShared[id] ??= new Set()).add(Number(match[1]));
      }
    }
    if (scan.routerRow[id] < 0 && isRouter[shape] === 1 && index.rank(row) === 2) {
      scan.routerRow[id] = row;
    }
    const slot = expertSlot[shape];
    if (slot === NOT_EXPERT) {
      continue;
    }
    if (slot >= 0) {
      scan.count[id] = Math.max(scan.count[id], indexValues[indexStart[row] + slot] + 1);
      if (
        scan.expertModuleRow[id] < 0 &&
        mayBeExpertModule[shape] === 1 &&
        indexValues[indexStart[row + 1] - 1] === 0 &&
        RE_EXPERT_MODULE.test(names[row])
      ) {
        scan.expertModuleRow[id] = row;
      }
      continue;
    }
    if (index.rank(row) >= 3) {
      scan.count[id] = Math.max(scan.count[id], index.dim(row, 0));
      scan.packed[id] = true;
      scan.packedWidth[id] ??= packedExpertWidth(index, row, hidden);
    }
  }
  return scan;
}

/**
 * Per-expert FFN width from a packed expert tensor: gpt-oss MXFP4 `gate_up_proj_blocks [E, 2I, G, 16]`, BF16
 * `gate_up_proj [E, H, 2I]` (in-major) or `[E, 2I, H]`, MLX `switch_mlp.gate_proj.weight [E, I, packed]`.
 */
function packedExpertWidth(index: TensorIndex, row: number, hidden: number | null): number | null {
  const name = index.names[row];
  if (/gate_up_proj_blocks$/.test(name)) {
    return index.dim(row, 1) / 2;
  }
  if (/gate_up_proj$/.test(name) && index.rank(row) === 3) {
    const width = index.dim(row, 1) === hidden ? index.dim(row, 2) : index.dim(row, 1);
    return width / 2;
  }
  if (/switch_mlp\.(?:gate_proj|up_proj)\.weight$/.test(name)) {
    return index.dim(row, 1);
  }
  return null;
}

function stripWeightSuffix(name: string): string {
  for (const suffix of WEIGHT_SUFFIXES) {
    if (name.endsWith(suffix)) {
      return name.slice(0, name.length - suffix.length);
    }
  }
  return name;
}

/**
 * The modules and tensors of one layer, searched by name pattern. A MoE layer holds thousands of expert tensors
 * but a dozen name shapes, and every pattern used here matches literal segments only, so each pattern is tested
 * once per shape. The answer is the one a scan of the layer's rows in header order gives: the first row whose
 * name (or module path) matches.
 */
class LayerModules {
  /** Distinct shapes of the layer's rows, each with its first row, in order of that row. */
  private readonly firsts: Array<{ shape: number; row: number; module: string | null }> = [];

  constructor(
    private readonly index: TensorIndex,
    rows: ArrayLike<number>,
  ) {
    const shapes = index.shapes();
    const seen = new Uint8Array(shapes.count);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const shape = shapes.rowShape[row];
      if (seen[shape] === 0) {
        seen[shape] = 1;
        const text = shapes.text[shape];
        const module = stripWeightSuffix(text);
        this.firsts.push({ shape, row, module: module === text ? null : module });
      }
    }
  }

  /** Module path (name minus its weight suffix) of the first row whose module path matches. */
  findModule(pattern: RegExp): string | null {
    for (const first of this.firsts) {
      if (first.module !== null && pattern.test(first.module)) {
        return stripWeightSuffix(this.index.names[first.row]);
      }
    }
    return null;
  }

  /** First row whose name matches, or -1. */
  findTensor(pattern: RegExp): number {
    const text = this.index.shapes().text;
    return this.firsts.find((first) => pattern.test(text[first.shape]))?.row ?? -1;
  }
}

/**
 * Output width of a Linear whatever its storage: plain [out, in] (or GPT-2 Conv1D [in, out], told apart by which
 * side equals hidden_size), GPTQ/AWQ via scales cols, MLX/FP8/NVFP4/compressed-tensors via rows.
 */
export function outFeatures(
  index: TensorIndex,
  module: string,
  hidden: number | null,
  tensorBytes?: ReadonlyMap<number, Uint8Array>,
): number | null {
  const scales = index.row(`${module}.scales`);
  if (index.has(`${module}.qweight`) && scales >= 0 && index.rank(scales) === 2) {
    return index.dim(scales, 1);
  }
  // Formats that keep the original shape in a tiny tensor the quantization analysis already fetched.
  if (tensorBytes) {
    for (const suffix of ['.weight.quant_state.bitsandbytes__nf4', '.weight.quant_state.bitsandbytes__fp4']) {
      const state = parseJsonBytes(tensorBytes.get(index.row(module + suffix)));
      if (isRecord(state) && Array.isArray(state.shape) && typeof state.shape[0] === 'number') {
        return state.shape[0];
      }
    }
    const hqqShape = index.row(`${module}.shape`);
    if (hqqShape >= 0 && index.has(`${module}.W_q`)) {
      const bytes = tensorBytes.get(hqqShape);
      const dims = bytes ? decodeNumbers(index.dtype(hqqShape), bytes, 2) : null;
      if (dims && dims.length === 2) {
        return dims[0];
      }
    }
  }
  const quanto = index.row(`${module}.weight._data`);
  if (quanto >= 0 && index.dtype(quanto) !== 'U8' && index.rank(quanto) >= 2) {
    return index.dim(quanto, -2);
  }
  for (const suffix of ['.weight_packed', '.weight:qdata', '._weight_qdata']) {
    const row = index.row(module + suffix);
    if (row >= 0 && index.rank(row) >= 2) {
      return index.dim(row, -2);
    }
  }
  const qWeight = index.row(`${module}.q_weight`);
  if (qWeight >= 0) {
    return index.dim(qWeight, 1);
  }
  const trellis = index.row(`${module}.trellis`);
  if (trellis >= 0) {
    return index.dim(trellis, 1) * 16;
  }
  const weight = index.row(`${module}.weight`);
  if (weight < 0 || index.rank(weight) < 2) {
    return null;
  }
  if (index.dim(weight, -1) === 1 && index.has(`${module}.weight.absmax`)) {
    return null; // bitsandbytes 4-bit: flattened, the shape lives in the quant_state JSON.
  }
  const rows = index.dim(weight, -2);
  const cols = index.dim(weight, -1);
  if (hidden !== null && cols !== hidden && rows === hidden && isHighPrecisionFloat(index.dtype(weight))) {
    return cols; // Conv1D (GPT-2) stores [in, out].
  }
  return rows;
}

function attentionWidths(
  index: TensorIndex,
  modules: LayerModules,
  hidden: number | null,
  bytes: ReadonlyMap<number, Uint8Array>,
): { q: number; kv: number; evidence: string } | null {
  const fused = modules.findModule(
    /(?:^|\.)(?:attn|attention|self_attn|self_attention|mixer)\.(?:qkv_proj|c_attn|query_key_value|Wqkv|W_pack|qkv)$/,
  );
  if (fused && hidden !== null) {
    const out = outFeatures(index, fused, hidden, bytes);
    if (out !== null && out > hidden) {
      const kv = (out - hidden) / 2;
      return {
        q: hidden,
        kv,
        evidence: `fused ${lastPart(fused)} width ${out} = q ${hidden} + 2 × kv ${kv} (q width assumed = hidden_size)`,
      };
    }
  }
  const q = modules.findModule(
    /(?:^|\.)(?:self_attn|attn|attention|SelfAttention|self_attention)\.(?:q_proj|wq|query|q|to_q|q_lin)$/,
  );
  const k = modules.findModule(
    /(?:^|\.)(?:self_attn|attn|attention|SelfAttention|self_attention)\.(?:k_proj|wk|key|k|to_k|k_lin)$/,
  );
  if (!q || !k) {
    return null;
  }
  const qOut = outFeatures(index, q, hidden, bytes);
  const kOut = outFeatures(index, k, hidden, bytes);
  if (qOut === null || kOut === null) {
    return null;
  }
  return { q: qOut, kv: kOut, evidence: `${lastPart(q)} width ${qOut}, ${lastPart(k)} width ${kOut}` };
}

function lastPart(module: string): string {
  return module.split('.').slice(-2).join('.');
}

function findDenseMlp(
  index: TensorIndex,
  inStack: Uint8Array,
  indices: readonly number[],
  hidden: number | null,
  bytes: ReadonlyMap<number, Uint8Array>,
): { size: number; module: string } | null {
  const pattern =
    /(?:^|\.)(?:mlp|feed_forward|ffn|DenseReluDense)\.(?:gate_proj|up_proj|w1|w3|fc1|c_fc|dense_h_to_4h|gate_up_proj|wi|wi_0|fc_in)$/;
  // Which shapes are candidates (not an expert, a weight of a dense MLP input projection) is a per-shape question.
  const shapes = index.shapes();
  const candidate = shapeFlags(shapes, (text, shape) => {
    const module = stripWeightSuffix(text);
    return inStack[shape] === 1 && !text.includes('expert') && module !== text && pattern.test(module);
  });
  if (!candidate.includes(1)) {
    return null;
  }
  // Candidate rows by layer (in `indices` order), each layer's in header order.
  const byLayer = new Map<number, number[]>();
  for (let row = 0; row < index.count; row++) {
    if (candidate[shapes.rowShape[row]] === 1) {
      const layer = shapes.indexValues[shapes.indexStart[row]];
      const rows = byLayer.get(layer);
      if (rows) {
        rows.push(row);
      } else {
        byLayer.set(layer, [row]);
      }
    }
  }
  for (const layer of indices) {
    for (const row of byLayer.get(layer) ?? []) {
      const module = stripWeightSuffix(index.names[row]);
      const out = outFeatures(index, module, hidden, bytes);
      if (out !== null) {
        return { size: module.endsWith('gate_up_proj') ? out / 2 : out, module: lastPart(module) };
      }
    }
  }
  return null;
}

function detectDiffusion(
  containers: ReadonlyMap<string, Container>,
  anyName: (pattern: RegExp) => boolean,
  evidence: string[],
): DiffusionInfo | null {
  const blocks: Record<string, number> = {};
  let kind: DiffusionInfo['kind'] | null = null;
  for (const container of containers.values()) {
    const match = /(?:^|\.)([a-z_]+)\.$/.exec(container.prefix);
    const segment = match ? match[1] : '';
    // VAE encoders/decoders also have down_blocks/up_blocks; only a UNet sits outside encoder./decoder.
    if (/(?:^|\.)(?:encoder|decoder|first_stage_model|vae)\./.test(container.prefix)) {
      continue;
    }
    if (UNET_CONTAINERS.includes(segment)) {
      blocks[segment] = container.indices.size;
      kind = 'UNet';
    } else if (DIT_CONTAINERS.includes(segment) && kind !== 'UNet') {
      blocks[segment] = container.indices.size;
      kind = 'DiT';
    }
  }
  if (kind === 'UNet' && anyName(/(?:^|\.)middle_block\./)) {
    blocks.middle_block = 1;
  }
  if (kind === 'UNet' && anyName(/(?:^|\.)mid_block\./)) {
    blocks.mid_block = 1;
  }
  if (
    kind === 'DiT' &&
    !anyName(
      /(?:^|\.)(?:time_in|time_text_embed|t_embedder|timestep_embedder|time_embed|img_in|x_embedder|adaLN|norm_out|final_layer)/,
    )
  ) {
    return null; // transformer_blocks alone may be an ordinary transformer.
  }
  if (kind === null) {
    return null;
  }
  evidence.push(
    `${kind}: ${Object.entries(blocks)
      .map(([name, count]) => `${count} ${name}`)
      .join(', ')}`,
  );
  return { kind, blocks };
}

function diffusionFamily(diffusion: DiffusionInfo, names: readonly string[]): string {
  const blocks = diffusion.blocks;
  if (blocks.double_blocks !== undefined && blocks.single_blocks !== undefined) {
    return 'flux-like';
  }
  if (blocks.transformer_blocks !== undefined && blocks.single_transformer_blocks !== undefined) {
    return 'flux-like (diffusers)';
  }
  if (blocks.joint_blocks !== undefined) {
    return 'sd3-like (MMDiT)';
  }
  if (diffusion.kind === 'UNet') {
    if (names.some((name) => name.startsWith('conditioner.embedders.1.'))) {
      return 'sdxl-like';
    }
    if (names.some((name) => name.startsWith('cond_stage_model.'))) {
      return 'sd1/sd2-like';
    }
    return 'unet';
  }
  return 'dit';
}

function guessFamily(
  anyName: (pattern: RegExp) => boolean,
  modules: LayerModules,
  traits: { mla: boolean; experts: number; expertsPacked: boolean; sinks: boolean },
): string[] {
  const has = (pattern: RegExp): boolean => modules.findModule(pattern) !== null;
  if (traits.mla) {
    return [traits.experts > 0 ? 'deepseek-v3-like (MLA + MoE)' : 'deepseek-like (MLA)'];
  }
  if (traits.sinks && traits.expertsPacked) {
    return ['gpt-oss-like'];
  }
  if (anyName(/\.block_sparse_moe\./)) {
    return ['mixtral-like'];
  }
  if (has(/\.c_attn$/)) {
    return ['gpt2-like'];
  }
  if (has(/\.query_key_value$/)) {
    return ['bloom/falcon/neox-like'];
  }
  if (has(/SelfAttention\.q$/)) {
    return ['t5-like'];
  }
  if (anyName(/\.q_norm\.weight$/) && has(/\.q_proj$/)) {
    return [traits.experts > 0 ? 'qwen3-moe-like' : 'qwen3-like'];
  }
  if (has(/\.q_proj$/) && has(/\.gate_proj$|\.experts\./)) {
    return [traits.experts > 0 ? 'llama-like MoE' : 'llama-like'];
  }
  return [];
}

/** Bias of a DiT's patch embedder (FLUX, SD3, PixArt/DiT; ComfyUI and diffusers names), or -1. */
function ditEmbedderBias(index: TensorIndex): number {
  for (const suffix of ['img_in.bias', 'x_embedder.bias', 'pos_embed.proj.bias', 'x_embedder.proj.bias']) {
    const rows = index.rowsEndingWith(suffix);
    const row = rows.find((r) => {
      const name = index.names[r];
      return (name === suffix || name.endsWith(`.${suffix}`)) && index.rank(r) === 1;
    });
    if (row !== undefined) {
      return row;
    }
  }
  return -1;
}

/** `row` when found in the representative layer, else the first row of any layer with that name ending. */
function orAnyLayer(index: TensorIndex, row: number, suffix: string): number {
  if (row >= 0) {
    return row;
  }
  const rows = index.rowsEndingWith(suffix);
  return rows.length > 0 ? rows[0] : -1;
}
