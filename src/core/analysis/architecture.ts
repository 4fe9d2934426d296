/**
 * The architecture analysis: what kind of network the tensor names and shapes describe — layer count, widths,
 * attention kind and heads, MoE experts, MLA, MTP layers, tied embeddings, extra towers, diffusion blocks.
 * Every number says where it came from in `evidence`; numbers that need a head_dim the header cannot give are
 * labelled with their source (`headDimSource`), down to an explicit `guess`.
 * (docs/format-notes.md#architecture-hints-from-tensor-names; DeepSeek-V3 README_WEIGHTS.md for MTP;
 * transformers src/transformers/conversion_mapping.py for packed experts.)
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding, ParsedHeader } from '../model';
import { groupDigits, plural } from '../number-format';
import { hiddenSizeFromNorms } from './anchors';
import {
  detectDiffusion,
  diffusionFamily,
  ditEmbedderBias,
  guessFamily,
  towerOf,
  type Container,
} from './architecture-family';
import {
  attentionWidths,
  findDenseMlp,
  firstAttentionLayer,
  LayerModules,
  MLA_KV_A,
  outFeatures,
  stripWeightSuffix,
  withoutQueryGate,
} from './architecture-layer';
import { ENCODER_STACK_PREFIX, scanStack } from './architecture-stack';
import { MAX_EVIDENCE } from './analysis-limits';
import { isAdapterIndex } from './lora-markers';
import { modelParallelFinding, modelParallelPart, wholeModelWidths } from './model-parallel';
import { configDisagreement, type TensorFacts } from './config-agreement';
import { tokenizerBeyondEmbedding } from './tokenizer/tokenizer-agreement';
import { LM_HEAD_NAME, MASKED_LM_HEAD_NAME, TOKEN_EMBEDDING_NAME } from './token-embedding-names';
import { headTyingFinding } from './head-tying';
import { isFloat8, isHighPrecisionFloat } from './quant/quant-types';
import type { ArchitectureSection, HeadDimSource, MlaShape } from './report-sections';
import { tensorIndex, type NameShapes, type TensorIndex } from './tensor-index';
import type { Analysis, AnalysisInput } from './analysis-types';
import { ggufConfig, readConfig, type ModelConfig } from './architecture-config';

/** A layer's names go deeper than one tensor per index: `#.attn.weight`, or a nested index (`#.experts.#.w1`). */
function holdsModules(pieces: readonly string[]): boolean {
  return pieces.length > 2 || pieces[1].slice(1).includes('.');
}

/** Container names of transformer layer stacks. */
const RE_STACK = /(?:^|\.)(?:layers|layer|h|blocks|block|resblocks|decoder_layers|encoder_layers)\.$/;

export const architectureAnalysis: Analysis<'architecture', ArchitectureSection> = {
  id: 'architecture',
  readsSidecars: true,
  run: analyzeArchitecture,
};

/** A weight stored as floats (high precision or FP8), whose rows are its output features. */
function isFloatWeight(dtype: string): boolean {
  return isHighPrecisionFloat(dtype) || isFloat8(dtype);
}

/** The token embedding as a float matrix (its rows and width are the vocabulary and width), else null. */
function plainEmbedding(index: TensorIndex, row: number): TensorFacts['embedding'] {
  if (row < 0 || index.rank(row) !== 2 || !isHighPrecisionFloat(index.dtype(row))) {
    return null;
  }
  return { row, name: index.names[row], rows: index.dim(row, 0), width: index.dim(row, 1) };
}

/** What every step reads: the name index and its name shapes, the config, and where evidence and findings go. */
interface ArchitectureScan {
  index: TensorIndex;
  names: readonly string[];
  shapes: NameShapes;
  /** Rows under name shape `s`. */
  shapeRows: (s: number) => number;
  anyName: (pattern: RegExp) => boolean;
  config: ModelConfig | null;
  /** Bytes the quantization detectors asked for (bitsandbytes quant_state, HQQ shape) also give layer widths. */
  bytes: AnalysisInput['tensorBytes'];
  evidence: string[];
  findings: Finding[];
  /** The first layer's separate q and k widths, once the stack's attention is read (for the config check). */
  attentionWidths: TensorFacts['attention'];
}

/** What the layer stack tells: layers, attention, MLP and experts. */
type StackFacts = Pick<
  ArchitectureSection,
  | 'layers'
  | 'partialLayers'
  | 'intermediateSize'
  | 'attention'
  | 'heads'
  | 'kvHeads'
  | 'headDim'
  | 'headDimSource'
  | 'experts'
  | 'expertsPacked'
  | 'moeLayers'
  | 'sharedExperts'
  | 'mla'
  | 'mtpLayers'
> & {
  expertIntermediateSize: number | null;
  family: string[];
};

const NO_STACK: StackFacts = {
  layers: null,
  partialLayers: false,
  intermediateSize: null,
  expertIntermediateSize: null,
  attention: null,
  experts: 0,
  expertsPacked: false,
  moeLayers: 0,
  sharedExperts: 0,
  mla: null,
  mtpLayers: 0,
  family: [],
};

export function analyzeArchitecture(input: AnalysisInput): {
  section: ArchitectureSection | null;
  findings: Finding[];
} {
  const index = tensorIndex(input.header, input.names);
  // An importance matrix names its statistics after the weights they describe; it is no model to describe.
  if (index.count === 0 || isAdapterIndex(index) || input.header.gguf?.imatrix) {
    return { section: null, findings: [] };
  }
  // Name patterns below are decided per name shape (see tensor-index.ts): a 250,000-tensor MoE header has a dozen.
  const shapes = index.shapes();
  const scan: ArchitectureScan = {
    index,
    names: index.names,
    shapes,
    shapeRows: (s) => shapes.rowStart[s + 1] - shapes.rowStart[s],
    anyName: (pattern) => shapes.text.some((text) => pattern.test(text)),
    config: readConfig(input.sidecars.config, input.sidecars.configFile ?? 'config.json') ?? ggufConfig(input.header),
    bytes: input.tensorBytes,
    evidence: [],
    findings: [],
    attentionWidths: null,
  };
  const { evidence, findings, config, names, anyName } = scan;

  const { towers, isTower } = findTowers(scan);
  const { containers, containerOf } = findContainers(scan, isTower);
  const diffusion = detectDiffusion(containers, anyName, evidence);
  const { mtpPrefix, mtpLayers: mtpStackLayers } = findMtp(scan, containers);
  const main = diffusion ? null : findMainStack(scan, containers, mtpPrefix, containerOf);
  const encoderStack = main ? encoderDecoderStacks(containers)?.encoder : undefined;

  // Embedding, lm_head, tied.
  const { embeddingRow, lmHead } = findEmbedding(scan, isTower, containerOf);
  const hiddenSize = findHiddenSize(scan, embeddingRow, diffusion);
  const vocabSize = embeddingRow >= 0 ? index.dim(embeddingRow, 0) : null;
  if (embeddingRow >= 0) {
    evidence.push(`vocab ${vocabSize} from ${names[embeddingRow]} rows`);
  }
  const headless = lmHead ? null : headlessModel(scan, main, embeddingRow);
  const sharedHead = embeddingRow >= 0 && lmHead ? headSharingStorage(input.header, names[embeddingRow]) : null;
  const tiedEmbeddings =
    diffusion || headless ? null : sharedHead !== null ? true : embeddingRow >= 0 ? !lmHead : lmHead ? false : null;
  if (headless) {
    evidence.push(`${headless}: no LM head expected`);
  }
  if (sharedHead !== null) {
    evidence.push(
      `${sharedHead} shares its storage with ${names[embeddingRow]}: tied embeddings (the checkpoint saved one tensor under both names)`,
    );
  } else if (tiedEmbeddings) {
    evidence.push(
      input.header.gguf
        ? `no output.weight beside ${names[embeddingRow]}: tied embeddings (llama.cpp uses the token embedding as the output)`
        : `no LM head beside ${names[embeddingRow]}: tied embeddings (the file stores the shared tensor once)`,
    );
  }

  const stack = main ? analyzeStack(scan, main, containerOf, hiddenSize) : NO_STACK;
  const { layers, partialLayers, intermediateSize, expertIntermediateSize, attention, heads, kvHeads } = stack;
  const { headDim, headDimSource, experts, expertsPacked, moeLayers, sharedExperts, mla } = stack;
  const family = [...stack.family];
  if (diffusion) {
    family.push(diffusionFamily(diffusion, names));
  }
  // What the file declares beats a guess from names: config.json's model_type, else a GGUF's general.architecture
  // (llama.cpp's names, blk.N.attn_q, tell no family apart).
  if (config?.source === 'GGUF metadata') {
    evidence.unshift(
      `family and attention heads from the GGUF's key-values (general.architecture ${config.modelType})`,
    );
  }
  const section: ArchitectureSection = {
    layers,
    ...(encoderStack ? { encoderLayers: encoderStack.indices.size } : {}),
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
    mtpLayers: mtpStackLayers + stack.mtpLayers,
    vocabSize,
    towers,
    ...(diffusion ? { diffusion } : {}),
    evidence: evidence.slice(0, MAX_EVIDENCE),
  };
  const modelType = config?.modelType ?? family[0];
  if (modelType) {
    section.family = modelType;
  }
  const embedding = plainEmbedding(index, embeddingRow);
  const split = modelParallelPart(index, config, input.fileName);
  if (split !== null) {
    wholeModelWidths(section, split, index);
    findings.push(modelParallelFinding(split, index, input.fileName));
  } else if (config?.causalLm && main) {
    const disagreement = configDisagreement(
      { file: config.source, ...config, hidden: config.embeddingWidth },
      {
        layers: partialLayers ? null : layers,
        layerPrefix: main.prefix,
        embedding,
        attention: scan.attentionWidths,
      },
    );
    if (disagreement) {
      findings.push(disagreement);
    }
    // A stack with gaps or fewer layers than the config builds may be one shard, with the head in another.
    const whole = !partialLayers && (config.layers === null || config.layers === layers);
    const tying = whole ? headTyingFinding(config, index, input.header, embeddingRow, lmHead) : null;
    if (tying) {
      findings.push(tying);
    }
  }
  // One part of a model-parallel checkpoint holds a slice of the vocabulary, and a GGUF's tokenizer is its own:
  // neither is checked against tokenizer files beside it.
  const own = split === null && !input.header.gguf;
  const tokenizer = own ? input.sidecars.tokenizer : undefined;
  const vocabulary = own ? input.sidecars.vocabulary : undefined;
  const beyond =
    (tokenizer || vocabulary) && embedding ? tokenizerBeyondEmbedding(tokenizer, vocabulary, embedding) : null;
  if (beyond) {
    findings.push(beyond);
  }
  if (!main && !diffusion && embeddingRow < 0 && towers.length === 0) {
    return { section: null, findings };
  }
  return { section, findings };
}

/**
 * Towers: only when something else is in the file too (a bare CLIP text encoder is the model, not a tower).
 * Shapes are numbered in order of first appearance, so walking them meets each tower kind at its first row.
 */
function findTowers(scan: ArchitectureScan): { towers: string[]; isTower: Uint8Array } {
  const { shapes, index, evidence } = scan;
  const towerRows = new Map<string, { count: number; prefix: string }>();
  const isTower = new Uint8Array(shapes.count);
  for (let s = 0; s < shapes.count; s++) {
    const tower = towerOf(shapes.text[s]);
    if (tower) {
      isTower[s] = 1;
      const entry = towerRows.get(tower.kind) ?? { count: 0, prefix: tower.prefix };
      entry.count += scan.shapeRows(s);
      towerRows.set(tower.kind, entry);
    }
  }
  const towerTotal = [...towerRows.values()].reduce((sum, entry) => sum + entry.count, 0);
  const towers = towerTotal < index.count ? [...towerRows.keys()] : [];
  for (const kind of towers) {
    const entry = towerRows.get(kind);
    if (entry) {
      evidence.push(`${kind} tower: ${plural(entry.count, 'tensor')} under ${entry.prefix}`);
    }
  }
  if (towers.length === 0) {
    isTower.fill(0);
  }
  return { towers, isTower };
}

/**
 * Numbered containers: the text before the first index segment that is not the last segment (`model.layers.`),
 * keyed per shape; the container's indices are the rows' first index values.
 */
function findContainers(
  scan: ArchitectureScan,
  isTower: Uint8Array,
): { containers: Map<string, Container>; containerOf: Array<Container | null> } {
  const { shapes } = scan;
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
    entry.tensors += scan.shapeRows(s);
    addFirstIndexValues(shapes, s, entry.indices);
    containerOf[s] = entry;
  }
  return { containers, containerOf };
}

/**
 * The distinct first index values of shape s's rows (a layer stack's layer numbers), in one pass over its rows with
 * no sort: rows of one layer sit together, so the set is asked only when the value changes. (Sorting every shape
 * for this cost 10-15 ms on DeepSeek-V3's 92,000 tensors in a Chromium worker, where such a pass runs mostly in
 * the interpreter.)
 */
function addFirstIndexValues(shapes: NameShapes, s: number, into: Set<number>): void {
  const { rowList, indexStart, indexValues } = shapes;
  const end = shapes.rowStart[s + 1];
  let last = -1;
  for (let i = shapes.rowStart[s]; i < end; i++) {
    const value = indexValues[indexStart[rowList[i]]];
    if (value !== last) {
      into.add(value);
      last = value;
    }
  }
}

/** A separate multi-token-prediction stack or head (DeepSeek-V3's `mtp.`), outside the main layer stack. */
function findMtp(
  scan: ArchitectureScan,
  containers: ReadonlyMap<string, Container>,
): { mtpPrefix: Container | undefined; mtpLayers: number } {
  const mtpPrefix = [...containers.values()].find((c) => /^(?:model\.)?mtp\.(?:layers\.)?$/.test(c.prefix));
  if (mtpPrefix) {
    const mtpLayers = mtpPrefix.indices.size;
    scan.evidence.push(`${mtpLayers} MTP layer(s) under ${mtpPrefix.prefix} (separate multi-token-prediction stack)`);
    return { mtpPrefix, mtpLayers };
  }
  if (scan.anyName(/^(?:model\.)?mtp\./)) {
    scan.evidence.push('MTP module under mtp. (separate multi-token-prediction head)');
    return { mtpPrefix, mtpLayers: 1 };
  }
  return { mtpPrefix, mtpLayers: 0 };
}

/** The container with the most tensors that is a layer stack (not MTP, not an experts list). */
function findMainStack(
  scan: ArchitectureScan,
  containers: ReadonlyMap<string, Container>,
  mtpPrefix: Container | undefined,
  containerOf: ReadonlyArray<Container | null>,
): Container | null {
  let main: Container | null = null;
  for (const container of containers.values()) {
    if (container === mtpPrefix || /experts\.$/.test(container.prefix)) {
      continue;
    }
    if (main === null || container.tensors > main.tensors) {
      main = container;
    }
  }
  // An encoder-decoder generates with its decoder, whatever the two stacks' sizes (distil-whisper: 32 encoder layers,
  // 2 decoder layers).
  const pair = encoderDecoderStacks(containers);
  if (pair) {
    main = pair.decoder;
  }
  // A layer stack is named like one (layers, h, blocks…) or holds attention; an nn.Sequential's `0.`, `2.` is not.
  const prefix = main?.prefix ?? '';
  if (main && !RE_STACK.test(prefix) && !scan.names.some((n) => n.startsWith(prefix) && /attn|attention/i.test(n))) {
    return null;
  }
  // Layers hold modules (`h.0.attn.c_attn.weight`): a stack whose every name is one plain tensor per index
  // (`blocks.7.param_3`, `h.12.weight`) is a list of tensors, not evidence of a transformer.
  const stack = main;
  if (stack && !scan.shapes.pieces.some((pieces, s) => containerOf[s] === stack && holdsModules(pieces))) {
    scan.evidence.push(
      `${groupDigits(stack.indices.size)} numbered entries under ${stack.prefix} hold plain tensors (no submodules such as attention or MLP): not read as layers`,
    );
    return null;
  }
  return main;
}

/** An encoder-decoder's two stacks (`encoder.block.` beside `decoder.block.`), or null. */
function encoderDecoderStacks(
  containers: ReadonlyMap<string, Container>,
): { encoder: Container; decoder: Container } | null {
  for (const decoder of containers.values()) {
    const at = decoder.prefix.search(/(?:^|\.)decoder\.[a-z_]+\.$/);
    if (at < 0) {
      continue;
    }
    const start = decoder.prefix[at] === '.' ? at + 1 : at;
    const encoder = containers.get(`${decoder.prefix.slice(0, start)}en${decoder.prefix.slice(start + 2)}`);
    if (encoder) {
      return { encoder, decoder };
    }
  }
  return null;
}

/**
 * The LM head a PyTorch checkpoint stored as the same storage as the token embedding (torch.save keeps a tied
 * weight once, under both names), or null. Its name is in the table, so only the shared storage tells it is tied.
 */
function headSharingStorage(header: ParsedHeader, embedding: string): string | null {
  for (const [first, second] of header.checkpoint?.tied ?? []) {
    const other = first === embedding ? second : second === embedding ? first : null;
    if (other !== null && LM_HEAD_NAME.test(other)) {
      return other;
    }
  }
  return null;
}

/** The token embedding (its first 2-D row) and whether an LM head is present; both sit outside the layer stack. */
function findEmbedding(
  scan: ArchitectureScan,
  isTower: Uint8Array,
  containerOf: ReadonlyArray<Container | null>,
): { embeddingRow: number; lmHead: boolean } {
  const { shapes, index } = scan;
  const { rowShape } = shapes;
  let embeddingRow = -1;
  let lmHead = false;
  const isEmbedding = new Uint8Array(shapes.count);
  for (let s = 0; s < shapes.count; s++) {
    // Embeddings and heads sit outside the layer stack.
    if (isTower[s] || containerOf[s] !== null) {
      continue;
    }
    isEmbedding[s] = TOKEN_EMBEDDING_NAME.test(shapes.text[s]) ? 1 : 0;
    lmHead ||= LM_HEAD_NAME.test(shapes.text[s]);
  }
  for (let row = 0; row < index.count; row++) {
    if (isEmbedding[rowShape[row]] === 1 && index.rank(row) === 2) {
      embeddingRow = row;
      break;
    }
  }
  return { embeddingRow, lmHead };
}

/**
 * Why a model without an LM head tensor has none to tie, or null when its head may be the embedding: an encoder
 * without a masked-LM head (T5's and CLIP's text encoders, ViT, wav2vec2), a sequence classifier's head (a reward
 * model's `score`), or a base model saved alone (transformers' `embed_tokens` at the root: an embedding model's).
 */
function headlessModel(scan: ArchitectureScan, main: { prefix: string } | null, embeddingRow: number): string | null {
  const { anyName, names } = scan;
  if (
    main !== null &&
    ENCODER_STACK_PREFIX.test(main.prefix) &&
    !anyName(/(?:^|\.)decoder\./) &&
    !anyName(MASKED_LM_HEAD_NAME)
  ) {
    return 'encoder-only stack (no decoder, no masked-LM head)';
  }
  if (anyName(/^(?:score|classifier)\.weight$/)) {
    return 'a classification head (score / classifier) in place of an LM head';
  }
  if (embeddingRow >= 0 && names[embeddingRow].startsWith('embed_tokens.')) {
    return 'a base model saved without its head (embed_tokens at the root)';
  }
  return null;
}

/** hidden_size from the best witness there is: a norm, a DiT's patch embedder, the embedding, or config.json. */
function findHiddenSize(
  scan: ArchitectureScan,
  embeddingRow: number,
  diffusion: ReturnType<typeof detectDiffusion>,
): number | null {
  const { index, names, evidence, config } = scan;
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
    evidence.push(`hidden_size ${hiddenSize} from ${config.source}`);
  }
  return hiddenSize;
}

/** The layer stack: its layer count (MTP layers apart), attention, MLP widths, experts and family. */
function analyzeStack(
  scan: ArchitectureScan,
  main: Container,
  containerOf: ReadonlyArray<Container | null>,
  hiddenSize: number | null,
): StackFacts {
  const { index, evidence, findings, bytes, shapes } = scan;
  const prefix = main.prefix;
  const inStack = new Uint8Array(shapes.count);
  containerOf.forEach((container, s) => {
    inStack[s] = container === main ? 1 : 0;
  });
  const stack = scanStack(index, inStack, hiddenSize);
  const mtpIndices = stack.layers.filter((_, id) => stack.mtp[id]);
  if (mtpIndices.length > 0) {
    evidence.push(
      `layer(s) ${mtpIndices.join(', ')} hold eh_proj/enorm/hnorm/shared_head: multi-token-prediction, not counted as layers`,
    );
  }
  const indices = [...main.indices].filter((i) => !mtpIndices.includes(i)).sort((a, b) => a - b);
  const max = indices.length > 0 ? indices[indices.length - 1] : -1;
  const layers = max + 1;
  const partialLayers = indices.length !== max + 1;
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
  const modules = new LayerModules(index, repRows);
  const attentionAt = firstAttentionLayer(index, scan.bytes, stack, indices, modules, hiddenSize);
  const heads = stackAttention(scan, attentionAt.modules, `${prefix}${attentionAt.layer}.`, hiddenSize);

  // MLP widths.
  let intermediateSize: number | null = null;
  const dense = findDenseMlp(index, inStack, indices, hiddenSize, bytes);
  if (dense) {
    intermediateSize = dense.size;
    evidence.push(`intermediate_size ${dense.size} from ${dense.module}`);
  }
  const moe = stackExperts(scan, stack, hiddenSize);
  if (moe.experts > 0 && intermediateSize === null) {
    intermediateSize = moe.expertIntermediateSize;
  }
  const family = guessFamily(scan.anyName, modules, {
    mla: heads.mla !== null,
    experts: moe.experts,
    expertsPacked: moe.expertsPacked,
    sinks: modules.findTensor(/(?:^|\.)sinks$/) >= 0,
  });
  return { layers, partialLayers, intermediateSize, ...heads, ...moe, mtpLayers: mtpIndices.length, family };
}

type AttentionFacts = Pick<StackFacts, 'attention' | 'heads' | 'kvHeads' | 'headDim' | 'headDimSource' | 'mla'>;

/** Attention of the representative layer: MLA (DeepSeek's kv_a_proj_with_mqa) or q/k/v widths and head_dim. */
function stackAttention(
  scan: ArchitectureScan,
  modules: LayerModules,
  layerPrefix: string,
  hiddenSize: number | null,
): AttentionFacts {
  const { index, evidence, config, bytes } = scan;
  // llama.cpp's GGUF names: attn_kv_a_mqa, attn_kv_a_norm, attn_q_a_norm, attn_q_b.
  const kvA = modules.findModule(MLA_KV_A);
  if (!kvA) {
    return standardAttention(scan, modules, hiddenSize);
  }
  let heads: number | undefined;
  let headDimSource: HeadDimSource | undefined;
  // One shard of a sharded model may hold only part of its first layer: take the norms from any layer then.
  const normOf = (hf: string, gguf: string) =>
    orAnyLayer(
      index,
      orAnyLayer(index, modules.findTensor(new RegExp(`(?:${hf}|${gguf})\\.weight$`)), `.${hf}.weight`),
      `.${gguf}.weight`,
    );
  const kvNorm = normOf('kv_a_layernorm', 'attn_kv_a_norm');
  const qNorm = normOf('q_a_layernorm', 'attn_q_a_norm');
  const kvOut = outFeatures(index, kvA, hiddenSize, bytes);
  const kvLoraRank = kvNorm >= 0 ? index.dim(kvNorm, 0) : null;
  const mla: MlaShape = {
    qLoraRank: qNorm >= 0 ? index.dim(qNorm, 0) : null,
    kvLoraRank,
    ropeHeadDim: kvOut !== null && kvLoraRank !== null ? kvOut - kvLoraRank : null,
  };
  evidence.push(
    `MLA: ${kvA.slice(layerPrefix.length)} + kv_a_layernorm (kv_lora_rank ${mla.kvLoraRank ?? '?'}, rope dim ${mla.ropeHeadDim ?? '?'}, q_lora_rank ${mla.qLoraRank ?? 'none'})`,
  );
  if (config?.heads) {
    heads = config.heads;
    headDimSource = config.source;
  } else {
    const qb = modules.findModule(/(?:^|\.)(?:q_b_proj|q_proj|attn_q_b|attn_q)$/);
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
  return { attention: 'MLA', heads, headDimSource, mla };
}

/** q/k/v attention: the widths, then head_dim from config.json, a q/k norm, sinks, rotary inv_freq, or a guess. */
function standardAttention(scan: ArchitectureScan, modules: LayerModules, hiddenSize: number | null): AttentionFacts {
  const { index, evidence, config, bytes } = scan;
  const widths = attentionWidths(index, modules, hiddenSize, bytes);
  if (!widths) {
    return { attention: null, mla: null };
  }
  const attn = withoutQueryGate(widths, config, evidence);
  // Widths read from a float weight's rows only: a packing along the output rows (BitNet's U8) would read short.
  const qWeight = attn.qModule === null ? -1 : index.row(`${attn.qModule}.weight`);
  if (!attn.fused && attn.qModule !== null && qWeight >= 0 && isFloatWeight(index.dtype(qWeight))) {
    scan.attentionWidths = { q: attn.q, kv: attn.kv, qModule: attn.qModule };
  }
  let heads: number | undefined;
  let kvHeads: number | undefined;
  let headDim: number | undefined;
  let headDimSource: HeadDimSource | undefined;
  evidence.push(attn.evidence);
  let source: HeadDimSource | null = null;
  let dim: number | null = null;
  if (config?.headDim) {
    dim = config.headDim;
    source = config.source;
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
        : `head_dim ${dim} from ${source}${source === 'sinks' ? ' (one sink per head)' : ''}: ${plural(heads, 'query head')}, ${plural(kvHeads, 'KV head')}`,
    );
  }
  const attention = attn.kv === attn.q ? 'MHA' : kvHeads === 1 ? 'MQA' : 'GQA';
  if (config?.kvHeads && heads !== undefined && headDimSource === config.source) {
    kvHeads = config.kvHeads;
  }
  return { attention, heads, kvHeads, headDim, headDimSource, mla: null };
}

type ExpertFacts = Pick<
  StackFacts,
  'experts' | 'expertsPacked' | 'moeLayers' | 'sharedExperts' | 'expertIntermediateSize'
>;

/** Experts, per layer in order of first appearance; the MTP layer repeats a MoE block and is not one of them. */
function stackExperts(
  scan: ArchitectureScan,
  stack: ReturnType<typeof scanStack>,
  hiddenSize: number | null,
): ExpertFacts {
  const { index, names, evidence, bytes } = scan;
  const perLayerExperts = new Map<number, number>();
  let expertModule: string | null = null;
  let packedIntermediate: number | null = null;
  let expertsPacked = false;
  let sharedExperts = 0;
  let expertIntermediateSize: number | null = null;
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
  const moeLayers = perLayerExperts.size;
  const experts = Math.max(0, ...perLayerExperts.values());
  if (experts > 0) {
    evidence.push(
      `${experts} routed experts in ${moeLayers} MoE layer(s), ${expertsPacked ? 'packed as 3-D tensors [E, …] (shape[0] = E)' : 'one tensor set per expert (experts.N.)'}${sharedExperts > 0 ? `, ${sharedExperts} shared expert(s)` : ''}`,
    );
    if (expertModule) {
      expertIntermediateSize = outFeatures(index, expertModule, hiddenSize, bytes);
    } else if (packedIntermediate !== null) {
      expertIntermediateSize = packedIntermediate;
    }
  }
  return { experts, expertsPacked, moeLayers, sharedExperts, expertIntermediateSize };
}

/** `row` when found in the representative layer, else the first row of any layer with that name ending. */
function orAnyLayer(index: TensorIndex, row: number, suffix: string): number {
  if (row >= 0) {
    return row;
  }
  const rows = index.rowsEndingWith(suffix);
  return rows.length > 0 ? rows[0] : -1;
}
