/**
 * The anatomy of adapter (LoRA / LyCORIS) tensor names, in one place for every reader of them: the LoRA analysis,
 * the LoRA-against-base check (compare/lora-fit.ts), and the analyses that defer to an adapter. A name is a module
 * path, then a suffix that says which part of the module it is; the suffix fixes the part's role and, for factors,
 * which feature size of the base weight it pins (docs/format-notes.md#adapter-signatures-lora-and-lycoris).
 */
import type { LoraFamily, LoraNaming } from './report-sections';
import type { TensorIndex } from './tensor-index';

export type AdapterRole =
  | 'down'
  | 'up'
  | 'mid'
  | 'magnitude'
  | 'alpha'
  | 'bias'
  | 'singular'
  | 'loha'
  | 'lokr'
  | 'oft'
  | 'ia3'
  | 'vera'
  | 'full';

/** Parts that ride along a module's factors and say nothing of its method or rank (alpha, DoRA's magnitude, a bias). */
export function isAuxiliaryRole(role: AdapterRole): boolean {
  return role === 'alpha' || role === 'magnitude' || role === 'bias';
}

export interface AdapterSuffix {
  suffix: string;
  role: AdapterRole;
  /** Which feature size of the base weight [out, in, …] this factor pins; null for parts that pin none. */
  side: 'in' | 'out' | null;
  /** Dimension of the factor that holds that size (negative counts from the end). */
  dim: number;
  /** Embedding factors pin [vocab, dim] = base [0, 1] the other way round. */
  embedding?: boolean;
  /** LoHa `_b` factors flatten conv kernels: compare with the product of base dims 1…. */
  flattened?: boolean;
}

/** Every suffix an adapter module's tensors end in; longest first where one ends another. */
export const ADAPTER_SUFFIXES: readonly AdapterSuffix[] = [
  { suffix: '.lora_magnitude_vector.weight', role: 'magnitude', side: null, dim: 0 },
  { suffix: '.lora_magnitude_vector', role: 'magnitude', side: null, dim: 0 },
  { suffix: '.lora_embedding_A', role: 'down', side: 'in', dim: 1, embedding: true },
  { suffix: '.lora_embedding_B', role: 'up', side: 'out', dim: 0, embedding: true },
  { suffix: '.lora_A.weight', role: 'down', side: 'in', dim: 1 },
  { suffix: '.lora_B.weight', role: 'up', side: 'out', dim: 0 },
  // PEFT's lora_bias: a bias learned beside B.
  { suffix: '.lora_B.bias', role: 'bias', side: 'out', dim: 0 },
  // AdaLoRA (peft tuners/adalora): bare parameters, B · diag(E) · A, with E the r singular values [r, 1].
  { suffix: '.lora_A', role: 'down', side: 'in', dim: 1 },
  { suffix: '.lora_B', role: 'up', side: 'out', dim: 0 },
  { suffix: '.lora_E', role: 'singular', side: null, dim: 0 },
  { suffix: '.lora_down.weight', role: 'down', side: 'in', dim: 1 },
  { suffix: '.lora_up.weight', role: 'up', side: 'out', dim: 0 },
  { suffix: '.lora_mid.weight', role: 'mid', side: null, dim: 0 },
  { suffix: '.lora.down.weight', role: 'down', side: 'in', dim: 1 },
  { suffix: '.lora.up.weight', role: 'up', side: 'out', dim: 0 },
  { suffix: '_lora.down.weight', role: 'down', side: 'in', dim: 1 },
  { suffix: '_lora.up.weight', role: 'up', side: 'out', dim: 0 },
  // llama.cpp's adapters (convert_lora_to_gguf.py): `blk.0.attn_q.weight.lora_a`, PEFT's A and B as they are.
  { suffix: '.weight.lora_a', role: 'down', side: 'in', dim: 1 },
  { suffix: '.weight.lora_b', role: 'up', side: 'out', dim: 0 },
  { suffix: '.lora_a', role: 'down', side: 'in', dim: 0 },
  { suffix: '.lora_b', role: 'up', side: 'out', dim: -1 },
  { suffix: '.dora_scale', role: 'magnitude', side: null, dim: 0 },
  { suffix: '.alpha', role: 'alpha', side: null, dim: 0 },
  { suffix: '.hada_w1_a', role: 'loha', side: 'out', dim: 0 },
  { suffix: '.hada_w1_b', role: 'loha', side: 'in', dim: 1, flattened: true },
  { suffix: '.hada_w2_a', role: 'loha', side: 'out', dim: 0 },
  { suffix: '.hada_w2_b', role: 'loha', side: 'in', dim: 1, flattened: true },
  { suffix: '.hada_t1', role: 'loha', side: null, dim: 0 },
  { suffix: '.hada_t2', role: 'loha', side: null, dim: 0 },
  { suffix: '.lokr_w1_a', role: 'lokr', side: null, dim: 0 },
  { suffix: '.lokr_w1_b', role: 'lokr', side: null, dim: 0 },
  { suffix: '.lokr_w2_a', role: 'lokr', side: null, dim: 0 },
  { suffix: '.lokr_w2_b', role: 'lokr', side: null, dim: 0 },
  { suffix: '.lokr_w1', role: 'lokr', side: null, dim: 0 },
  { suffix: '.lokr_w2', role: 'lokr', side: null, dim: 0 },
  { suffix: '.lokr_t2', role: 'lokr', side: null, dim: 0 },
  { suffix: '.oft_blocks', role: 'oft', side: null, dim: 0 },
  { suffix: '.oft_diag', role: 'oft', side: null, dim: 0 },
  // PEFT's own methods beyond LoRA: OFT's packed skew blocks [blocks, entries], BOFT's butterfly blocks and scale,
  // IA³'s learned vector, VeRA's per-module scaling vectors (its random projections are shared, saved once).
  { suffix: '.oft_R.weight', role: 'oft', side: null, dim: 0 },
  { suffix: '.boft_R', role: 'oft', side: null, dim: 0 },
  { suffix: '.boft_s', role: 'oft', side: null, dim: 0 },
  { suffix: '.ia3_l', role: 'ia3', side: null, dim: 0 },
  { suffix: '.vera_lambda_b', role: 'vera', side: null, dim: 0 },
  { suffix: '.vera_lambda_d', role: 'vera', side: null, dim: 0 },
  { suffix: '.diff_b', role: 'full', side: null, dim: 0 },
  { suffix: '.diff', role: 'full', side: null, dim: 0 },
];

/** The parts of PEFT's methods that learn no low-rank pair (IA³, OFT, BOFT, VeRA in ADAPTER_SUFFIXES above). */
export const PEFT_NON_LOW_RANK_SUFFIXES: ReadonlySet<string> = new Set([
  '.oft_R.weight',
  '.boft_R',
  '.boft_s',
  '.ia3_l',
  '.vera_lambda_b',
  '.vera_lambda_d',
]);

/**
 * Adapter families that learn no low-rank factors (PEFT's IA³ vectors, BOFT's rotations, prompt learning's virtual
 * tokens): they have no rank.
 */
export const RANKLESS_FAMILIES: ReadonlySet<LoraFamily> = new Set([
  'peft-ia3',
  'peft-boft',
  'peft-prompt-tuning',
  'peft-prefix-tuning',
  'peft-p-tuning',
  'peft-prompt-learning',
]);

/**
 * What PEFT's prompt learning saves (peft `get_peft_model_state_dict`): the virtual tokens' embeddings, and multitask
 * prompt tuning's task factors. No module of the model is adapted.
 */
const PROMPT_LEARNING_TENSOR = /^(?:prompt_embeddings|prefix_task_cols|prefix_task_rows)$/;
const PROMPT_LEARNING_TENSORS = 3;

/**
 * A file of PEFT prompt learning alone: its `prompt_embeddings` (and multitask prompt tuning's task factors). A file
 * of more tensors is answered without reading its names.
 */
export function isPromptLearningIndex(index: TensorIndex): boolean {
  const { names } = index;
  return (
    names.length <= PROMPT_LEARNING_TENSORS &&
    names.includes('prompt_embeddings') &&
    names.every((name) => PROMPT_LEARNING_TENSOR.test(name))
  );
}

const SUFFIX_BY_TEXT = new Map(ADAPTER_SUFFIXES.map((entry) => [entry.suffix, entry]));

/**
 * PEFT's parts with the adapter's name still inside (`q_proj.lora_A.default.weight`): what a PeftModel's
 * `state_dict()` holds. `save_pretrained()` (peft `get_peft_model_state_dict`) drops the name; files saved otherwise
 * keep it. Group 1 is the part, 2 the adapter name, 3 an optional `.weight`.
 */
const RE_PEFT_NAMED_PART =
  /\.(lora_A|lora_B|lora_magnitude_vector|lora_embedding_A|lora_embedding_B)\.([^.]+)(\.weight)?$/;

/**
 * XLabs' Flux LoRAs (XLabs-AI/x-flux): `double_blocks.N.processor.{qkv,proj}_lora{1,2}.{down,up}.weight`, stream 1
 * the image and 2 the text, and `single_blocks.N.processor.{qkv,proj}_lora.{down,up}.weight`. Their parts end in a
 * bare `.down.weight`, which only this path makes an adapter part.
 */
const RE_XLABS_PART = /\.processor\.(?:qkv|proj)_lora[12]?(\.(?:down|up)\.weight)$/;
const RE_XLABS_MODULE = /^((?:.*\.)?)(double|single)_blocks\.(\d+)\.processor\.(qkv|proj)_lora([12]?)$/;
const XLABS_PARTS: Readonly<Record<string, AdapterSuffix>> = {
  '.down.weight': { suffix: '.down.weight', role: 'down', side: 'in', dim: 1 },
  '.up.weight': { suffix: '.up.weight', role: 'up', side: 'out', dim: 0 },
};

/**
 * The Flux weight an XLabs module adapts, in Black Forest Labs' own names, and a short label for it. `sized` when the
 * factors' sizes are that weight's: a double block's attention qkv or proj; a single block's factors adapt part of its
 * fused linear1 (qkv beside the MLP input) or linear2, which are wider.
 */
export function xlabsTarget(module: string): { path: string; label: string; sized: boolean } | null {
  const match = RE_XLABS_MODULE.exec(module);
  if (match === null) {
    return null;
  }
  const [, prefix, kind, block, projection, stream] = match;
  if (kind === 'double') {
    const attention = `${stream === '2' ? 'txt' : 'img'}_attn.${projection}`;
    return { path: `${prefix}double_blocks.${block}.${attention}`, label: attention, sized: true };
  }
  const linear = projection === 'qkv' ? 'linear1' : 'linear2';
  return { path: `${prefix}single_blocks.${block}.${linear}`, label: `${linear} (${projection})`, sized: false };
}

export interface AdapterTensorName {
  /** The adapted module's path: the name without the part's suffix (and adapter name). */
  module: string;
  /** The part's suffix as `save_pretrained()` spells it (`.lora_A.weight`), whatever the file spelled. */
  part: AdapterSuffix;
  /** PEFT's adapter name when the name still carries it (`default`), else null. */
  adapterName: string | null;
}

/** A tensor name split into module and adapter part, or null when it is no adapter part. */
export function splitAdapterTensor(name: string): AdapterTensorName | null {
  const xlabs = RE_XLABS_PART.exec(name);
  if (xlabs !== null) {
    return { module: name.slice(0, name.length - xlabs[1].length), part: XLABS_PARTS[xlabs[1]], adapterName: null };
  }
  const named = RE_PEFT_NAMED_PART.exec(name);
  if (named !== null && named[2] !== 'weight' && named[2] !== 'bias' && named.index > 0) {
    const part = SUFFIX_BY_TEXT.get(`.${named[1]}${named[3] ?? ''}`);
    if (part !== undefined) {
      return { module: name.slice(0, named.index), part, adapterName: named[2] };
    }
  }
  for (const part of ADAPTER_SUFFIXES) {
    if (name.endsWith(part.suffix) && name.length > part.suffix.length) {
      return { module: name.slice(0, name.length - part.suffix.length), part, adapterName: null };
    }
  }
  return null;
}

/** kohya sd-scripts' module prefixes (`lora_unet_…`, `lora_te1_…`), dots written as underscores after them. */
export const RE_KOHYA_PREFIX = /^lora_(unet|te\d?|transformer)_/;
/** LyCORIS's own networks (not through kohya's): `lycoris_` + the module path, dots written as underscores. */
export const RE_LYCORIS_PREFIX = /^lycoris_/;
/** diffusers' component prefixes in front of PEFT-style keys. */
export const RE_DIFFUSERS_PREFIX = /^(unet|transformer|text_encoder(?:_\d)?|prior|decoder)\./;
/** PEFT's wrapper in front of the base model's own path. */
export const RE_PEFT_WRAPPER = /^base_model\.model\./;
/** XLabs' module paths (see RE_XLABS_PART). */
const RE_XLABS_NAMING = /(?:^|\.)processor\.(?:qkv|proj)_lora[12]?$/;
/** ComfyUI's own spelling: the diffusion model's path under `diffusion_model.` (Wan, HunyuanVideo, Qwen-Image LoRAs). */
export const RE_COMFYUI_PREFIX = /^diffusion_model\./;
/**
 * llama.cpp's LoRA of the token embedding (convert_lora_to_gguf.py): its A is PEFT's lora_embedding_A transposed,
 * [vocab, r], and B [dim, r], against the base's [vocab, dim].
 */
export const RE_GGUF_TOKEN_EMBEDDING = /(?:^|\.)token_embd$/;

/**
 * Each naming's tool and an example of its keys, for the evidence, the Model tab and the compare card; `detail` is
 * what the evidence adds (how a spelling differs from the module path).
 */
export const LORA_NAMINGS: Readonly<Record<LoraNaming, { tool: string | null; example: string; detail?: string }>> = {
  peft: { tool: 'PEFT', example: 'base_model.model.…' },
  kohya: { tool: 'kohya', example: 'lora_unet_… / lora_te_…', detail: 'dots as underscores' },
  lycoris: { tool: 'LyCORIS', example: 'lycoris_…', detail: 'dots as underscores' },
  diffusers: { tool: 'diffusers', example: 'unet. / transformer. / text_encoder.' },
  comfyui: { tool: 'ComfyUI', example: 'diffusion_model.…' },
  xlabs: { tool: 'XLabs', example: 'processor.qkv_lora1 …' },
  gguf: { tool: 'llama.cpp', example: 'blk.N.attn_q.weight.lora_a' },
  mlx: { tool: 'MLX', example: 'lora_a / lora_b', detail: 'lora_a [in, r], lora_b [r, out]' },
  plain: { tool: null, example: "the model's own module paths" },
};

/** Which tool's names an adapter's modules use, from their paths and parts. */
export function adapterNaming(parts: Iterable<{ module: string; suffix: string }>): LoraNaming {
  let peft = false;
  let diffusers = false;
  let comfyui = false;
  let mlx = false;
  let xlabs = false;
  let gguf = false;
  for (const { module, suffix } of parts) {
    if (RE_KOHYA_PREFIX.test(module)) {
      return 'kohya';
    }
    if (RE_LYCORIS_PREFIX.test(module)) {
      return 'lycoris';
    }
    xlabs ||= RE_XLABS_NAMING.test(module);
    peft ||= RE_PEFT_WRAPPER.test(module);
    // diffusers' older attention-processor factors: `to_q.lora.down.weight`, `to_q_lora.down.weight`.
    diffusers ||= RE_DIFFUSERS_PREFIX.test(module) || /lora\.(?:down|up)\.weight$/.test(suffix);
    comfyui ||= RE_COMFYUI_PREFIX.test(module);
    mlx ||= suffix === '.lora_a' || suffix === '.lora_b';
    gguf ||= suffix === '.weight.lora_a' || suffix === '.weight.lora_b';
  }
  return gguf
    ? 'gguf'
    : peft
      ? 'peft'
      : xlabs
        ? 'xlabs'
        : diffusers
          ? 'diffusers'
          : comfyui
            ? 'comfyui'
            : mlx
              ? 'mlx'
              : 'plain';
}

/**
 * A module's two low-rank factors and the dimension of each that holds the rank: PEFT, kohya, diffusers and XLabs
 * A [r, in, …] with B [out, r, …]; MLX a [in, r] with b [r, out]; llama.cpp's GGUF lora_a [r, in] with lora_b
 * [out, r], whose rank is read from B (its token_embd A is stored transposed, [vocab, r]).
 */
export const FACTOR_PAIRS: ReadonlyArray<{
  down: string;
  downDim: number;
  up: string;
  upDim: number;
  rankFromUp?: true;
}> = [
  { down: '.lora_A.weight', downDim: 0, up: '.lora_B.weight', upDim: 1 },
  { down: '.lora_A', downDim: 0, up: '.lora_B', upDim: 1 },
  { down: '.lora_down.weight', downDim: 0, up: '.lora_up.weight', upDim: 1 },
  { down: '.lora.down.weight', downDim: 0, up: '.lora.up.weight', upDim: 1 },
  { down: '_lora.down.weight', downDim: 0, up: '_lora.up.weight', upDim: 1 },
  { down: '.lora_embedding_A', downDim: 0, up: '.lora_embedding_B', upDim: 1 },
  { down: '.down.weight', downDim: 0, up: '.up.weight', upDim: 1 },
  { down: '.weight.lora_a', downDim: 0, up: '.weight.lora_b', upDim: -1, rankFromUp: true },
  { down: '.lora_a', downDim: -1, up: '.lora_b', upDim: 0 },
];

/** A module's factor pair, from its parts' rows by suffix: the two rows and the pair's layout; null when it lacks one half of every pair. */
export function factorPair(
  rows: ReadonlyMap<string, number>,
): { down: number; up: number; pair: (typeof FACTOR_PAIRS)[number] } | null {
  for (const pair of FACTOR_PAIRS) {
    const down = rows.get(pair.down);
    const up = rows.get(pair.up);
    if (down !== undefined && up !== undefined) {
      return { down, up, pair };
    }
  }
  return null;
}

/**
 * The module an update's part belongs to, and the update's form: a LoRA pair's down or up factor, or a part of a
 * LyCORIS LoKr or LoHa module; null for any other tensor.
 */
export function loraFactorModule(name: string): { module: string; form: 'pair' | 'lokr' | 'loha' | 'locon' } | null {
  if (!mayBeAdapterTensor(name)) {
    return null;
  }
  const split = splitAdapterTensor(name);
  const role = split?.part.role;
  if (split === null || role === undefined) {
    return null;
  }
  const form =
    role === 'down' || role === 'up'
      ? 'pair'
      : role === 'mid'
        ? 'locon'
        : role === 'lokr' || role === 'loha'
          ? role
          : null;
  return form === null ? null : { module: split.module, form };
}

/** A kohya path's last numbered container and what follows it (group 1). */
const RE_KOHYA_IN_BLOCK = /^(?:.*_)?(?:blocks|layers|attentions|resnets|block|layer|h)_\d+(?:_\d+)?_(.+)$/;

/** What a module adapts, as the LoRA section lists it: its last path segment (kohya's: after the last index). */
/** Attribute names of PEFT's module wrappers (ModulesToSaveWrapper, the tuner layers' base_layer). */
const PEFT_WRAPPER_SEGMENTS = new Set(['modules_to_save', 'original_module', 'base_layer']);

export function targetOf(module: string, naming: LoraNaming): string {
  if (naming === 'kohya' || naming === 'lycoris') {
    const tail = module.replace(naming === 'kohya' ? RE_KOHYA_PREFIX : RE_LYCORIS_PREFIX, '');
    // What follows the last numbered container (`…transformer_blocks_0_`, SDXL's `input_blocks_4_1_`), its own digits
    // kept: `ff_net_0_proj` against `proj_in`, `attn1_to_q`.
    const inBlock = RE_KOHYA_IN_BLOCK.exec(tail);
    if (inBlock !== null) {
      return inBlock[1];
    }
    const parts = tail.split(/_\d+_/);
    return parts[parts.length - 1];
  }
  if (naming === 'xlabs') {
    return xlabsTarget(module)?.label ?? module;
  }
  // PEFT's wrappers name no module: a LoRA inside a modules_to_save copy (`classifier.modules_to_save.lora_A`) or
  // its original (`classifier.original_module.lora_A`) adapts `classifier`.
  const parts = module.split('.').filter((part) => !PEFT_WRAPPER_SEGMENTS.has(part));
  const last = parts[parts.length - 1] ?? module;
  // A numbered child names nothing on its own: diffusers' `to_out.0`, Wan's `ffn.0` keep their parent.
  if (/^\d+$/.test(last) && parts.length > 1) {
    return `${parts[parts.length - 2]}.${last}`;
  }
  return last.endsWith('_lora') ? last.slice(0, -'_lora'.length) : last === 'processor' ? module : last;
}

/** Suffixes of low-rank factors and LyCORIS module tensors, with or without PEFT's adapter name inside. */
const RE_LORA_TENSOR =
  /(?:\.lora_[AB]\.weight|\.lora_B\.bias|\.lora_[ABE]|\.lora_embedding_[AB]|\.lora_magnitude_vector(?:\.weight)?|\.lora_(?:[AB]|magnitude_vector)\.[^.]+\.weight|\.lora_embedding_[AB]\.[^.]+|\.lora_magnitude_vector\.[^.]+|\.lora_(?:down|up|mid)\.weight|\.processor\.(?:qkv|proj)_lora[12]\.(?:down|up)\.weight|\.lora\.(?:down|up)\.weight|_lora\.(?:down|up)\.weight|\.lora_[ab]|\.hada_w[12]_[ab]|\.hada_t[12]|\.lokr_w[12](?:_[ab])?|\.lokr_t[12]|\.oft_blocks|\.oft_diag|\.oft_R\.weight|\.boft_[Rs]|\.ia3_l|\.vera_lambda_[bd]|\.dora_scale|\.alpha)$/;

/** Cheap pre-filter: every adapter suffix contains one of these; the regex runs only on names that pass. */
export function mayBeAdapterTensor(name: string): boolean {
  return (
    name.includes('lora') ||
    name.includes('hada_') ||
    name.includes('lokr_') ||
    name.includes('oft_') ||
    name.includes('ia3_') ||
    name.includes('vera_') ||
    name.includes('dora_') ||
    name.endsWith('.alpha')
  );
}

export function isLoraTensor(name: string): boolean {
  return mayBeAdapterTensor(name) && RE_LORA_TENSOR.test(name);
}

const adapterCache = new WeakMap<readonly string[], boolean>();

/** True when adapter tensors make up most of the file (a LoRA file carries no base weights). Cached per names array. */
export function isAdapterFile(names: readonly string[]): boolean {
  const cached = adapterCache.get(names);
  if (cached !== undefined) {
    return cached;
  }
  let hits = 0;
  let factors = 0;
  for (const name of names) {
    if (isLoraTensor(name)) {
      hits++;
      if (!name.endsWith('.alpha')) {
        factors++;
      }
    }
  }
  // PEFT files may add full copies (modules_to_save), so "most", not "all"; `.alpha` alone never decides.
  const result = names.length > 0 && hits * 2 >= names.length && factors > 0;
  adapterCache.set(names, result);
  return result;
}

/**
 * isAdapterFile over a shared index: the adapter patterns match literal segments only (no index digits), so they
 * are tested once per name shape rather than once per tensor. Same answer, same cache.
 */
export function isAdapterIndex(index: TensorIndex): boolean {
  const cached = adapterCache.get(index.names);
  if (cached !== undefined) {
    return cached;
  }
  const shapes = index.shapes();
  let hits = 0;
  let factors = 0;
  for (let s = 0; s < shapes.count; s++) {
    const text = shapes.text[s];
    if (isLoraTensor(text)) {
      const rows = shapes.rowStart[s + 1] - shapes.rowStart[s];
      hits += rows;
      if (!text.endsWith('.alpha')) {
        factors += rows;
      }
    }
  }
  const result =
    (index.names.length > 0 && hits * 2 >= index.names.length && factors > 0) || isPromptLearningIndex(index);
  adapterCache.set(index.names, result);
  return result;
}
