/**
 * Textual inversion embeddings: a few learned token vectors for a diffusion model's text encoder, not a model. The
 * layouts the tools write (AUTOMATIC1111's `textual_inversion.py`, diffusers' `textual_inversion.py`):
 *
 * - AUTOMATIC1111 `.pt`: `{'string_to_param': {'*': [N, W]}, 'string_to_token', 'name', 'step', 'sd_checkpoint',
 *   'sd_checkpoint_name'}` (the first textual-inversion code saved string_to_param as a ParameterDict, a module
 *   whose entries read as the dict's do, and the token as a tensor); its safetensors form keeps the vectors alone as
 *   `emb_params` [N, W].
 * - One set per text encoder, keyed by encoder: SDXL's `clip_l` [N, 768] and `clip_g` [N, 1280] (A1111, ComfyUI,
 *   kohya), and `t5xxl` [N, 4096] for the T5-XXL of Flux and Stable Diffusion 3 (ComfyUI's embedding tools).
 * - diffusers: `{'<token>': [W]}` (or [N, W]) in `learned_embeds.safetensors` / `.bin`, keyed by the placeholder.
 *
 * The width names the text encoder, and so the base: 768 CLIP ViT-L/14 (Stable Diffusion 1.x), 1024 OpenCLIP
 * ViT-H/14 (2.x), 1280 OpenCLIP ViT-bigG/14 (SDXL's second encoder). Pure.
 */
import { plural } from '../number-format';
import type { Analysis } from './analysis-types';
import type { TensorIndex } from './tensor-index';
import { tensorIndex } from './tensor-index';

/** A text encoder's width and its name. */
const ENCODERS: ReadonlyMap<number, string> = new Map([
  [768, 'CLIP ViT-L/14'],
  [1024, 'OpenCLIP ViT-H/14'],
  [1280, 'OpenCLIP ViT-bigG/14'],
  [4096, 'T5-XXL'],
]);
/** The per-encoder keys and each one's width. */
const ENCODER_KEYS: ReadonlyMap<string, number> = new Map([
  ['clip_l', 768],
  ['clip_g', 1280],
  ['t5xxl', 4096],
]);
/** The model family a set of per-encoder keys is for, keyed by the sorted keys. */
const BASE_BY_KEYS: ReadonlyMap<string, string> = new Map([
  ['clip_g,clip_l', 'SDXL'],
  ['clip_g,clip_l,t5xxl', 'Stable Diffusion 3'],
  ['clip_l,t5xxl', 'Flux'],
  ['t5xxl', 'Flux or Stable Diffusion 3 (their T5-XXL)'],
]);
/** Bases by the width of a single-encoder embedding. */
const BASE_BY_WIDTH: ReadonlyMap<number, string> = new Map([
  [768, 'Stable Diffusion 1.x'],
  [1024, 'Stable Diffusion 2.x'],
]);
/** An embedding file holds one set of vectors per text encoder: more tensors than this is something else. */
const MAX_EMBEDDING_TENSORS = 4;
/** Vectors per embedding: tools allow up to 75 (a prompt's token budget); more is no embedding. */
const MAX_VECTORS = 75;
/** AUTOMATIC1111's key for the vectors, in a `.pt` and alone in a safetensors. */
const A1111_PREFIX = 'string_to_param.';
/** A1111's token ids, a tensor in the first code's files: not vectors. */
const A1111_TOKENS = 'string_to_token.';
const A1111_SAFETENSORS = 'emb_params';

export interface TextualInversionSection {
  format: 'a1111' | 'per-encoder' | 'diffusers';
  /** Each tensor: its text encoder, width and vector count. */
  encoders: Array<{ tensor: string; encoder: string; width: number; vectors: number }>;
  /** Prompt tokens the embedding takes (its vectors). */
  vectors: number;
  /** The model family the width implies; null when the widths fit none. */
  base: string | null;
  /** The placeholder the file names (diffusers' `<cat-toy>`, A1111's `*`), or null. */
  token: string | null;
  /** AUTOMATIC1111's `name`, `step` and `sd_checkpoint_name` when the `.pt` stores them. */
  name: string | null;
  step: number | null;
  trainedOn: string | null;
  evidence: string[];
}

export const textualInversionAnalysis: Analysis<'textualInversion', TextualInversionSection> = {
  id: 'textualInversion',
  run: (input) => {
    const index = tensorIndex(input.header, input.names);
    return { section: detect(index, input.header.checkpoint?.scalars ?? [], input.fileName), findings: [] };
  },
};

/** A tensor of N vectors of an encoder's width (or one vector, as diffusers saves a single token). */
function vectorsOf(index: TensorIndex, row: number): { vectors: number; width: number } | null {
  const rank = index.rank(row);
  const width = index.dim(row, -1);
  const vectors = rank === 1 ? 1 : rank === 2 ? index.dim(row, 0) : 0;
  return ENCODERS.has(width) && vectors >= 1 && vectors <= MAX_VECTORS ? { vectors, width } : null;
}

function detect(
  index: TensorIndex,
  scalars: ReadonlyArray<{ path: string; value: string; kind: string }>,
  fileName: string,
): TextualInversionSection | null {
  if (index.count === 0 || index.count > MAX_EMBEDDING_TENSORS) {
    return null;
  }
  const all = index.names;
  const a1111Pt = all.some((name) => name.startsWith(A1111_PREFIX));
  // The vector tensors: all but the first code's token ids beside string_to_param.
  const rows = all.flatMap((name, row) => (a1111Pt && name.startsWith(A1111_TOKENS) ? [] : [row]));
  const shaped = rows.map((row) => vectorsOf(index, row));
  if (rows.length === 0 || shaped.some((entry) => entry === null)) {
    return null;
  }
  const names = rows.map((row) => all[row]);
  const encoders = names.map((tensor, at) => {
    const { vectors, width } = shaped[at] as { vectors: number; width: number };
    return { tensor, encoder: ENCODERS.get(width) ?? '', width, vectors };
  });
  // A stored None (a merged embedding's sd_checkpoint_name) is no value.
  const scalar = (path: string) => {
    const entry = scalars.find((candidate) => candidate.path === path);
    return entry === undefined || entry.kind === 'null' ? null : entry.value;
  };
  const base = { name: null, step: null, trainedOn: null, token: null };
  if ((names.length === 1 && names[0] === A1111_SAFETENSORS) || names.every((name) => name.startsWith(A1111_PREFIX))) {
    const step = scalar('step');
    const token = a1111Pt ? names[0].slice(A1111_PREFIX.length) : null;
    return {
      ...base,
      format: 'a1111',
      encoders,
      vectors: encoders[0].vectors,
      base: BASE_BY_WIDTH.get(encoders[0].width) ?? null,
      token,
      name: scalar('name'),
      step: step === null || !Number.isFinite(Number(step)) ? null : Number(step),
      trainedOn: scalar('sd_checkpoint_name'),
      evidence: [
        `${a1111Pt ? `${names[0]} (AUTOMATIC1111's string_to_param)` : 'emb_params alone'}: ${plural(encoders[0].vectors, 'vector')} of ${encoders[0].width}, the ${encoders[0].encoder} text encoder's width`,
      ],
    };
  }
  const keys = [...names].sort().join(',');
  if (BASE_BY_KEYS.has(keys) && encoders.every(({ tensor, width }) => ENCODER_KEYS.get(tensor) === width)) {
    return {
      ...base,
      format: 'per-encoder',
      encoders,
      vectors: Math.max(...encoders.map((entry) => entry.vectors)),
      base: BASE_BY_KEYS.get(keys) ?? null,
      evidence: [
        `${names.join(' and ')}: one set of vectors per text encoder, each of its encoder's width (clip_l 768, clip_g 1,280, t5xxl 4,096)`,
      ],
    };
  }
  // diffusers keys the vectors by their placeholder token, one tensor per token of one width, in a file it names
  // learned_embeds; a bare `<token>` key says the same of a renamed file.
  const widths = new Set(encoders.map((entry) => entry.width));
  const diffusersNamed = /learned_embeds/i.test(fileName) || names.every((name) => /^<[^<>]+>$/.test(name));
  if (diffusersNamed && widths.size === 1 && names.every((name) => !name.includes('.'))) {
    const width = encoders[0].width;
    return {
      ...base,
      format: 'diffusers',
      encoders,
      vectors: encoders.reduce((sum, entry) => sum + entry.vectors, 0),
      base: BASE_BY_WIDTH.get(width) ?? null,
      token: names.length === 1 ? names[0] : null,
      evidence: [
        `${plural(names.length, 'tensor')} keyed by placeholder token (${names.join(', ')}) of width ${width}: diffusers' learned_embeds`,
      ],
    };
  }
  return null;
}
