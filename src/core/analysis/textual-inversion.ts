/**
 * Textual inversion embeddings: a few learned token vectors for a diffusion model's text encoder, not a model. The
 * layouts the tools write (AUTOMATIC1111's `textual_inversion.py`, diffusers' `textual_inversion.py`):
 *
 * - AUTOMATIC1111 `.pt`: `{'string_to_param': {'*': [N, W]}, 'string_to_token', 'name', 'step', 'sd_checkpoint',
 *   'sd_checkpoint_name'}`; its safetensors form keeps the tensor alone as `emb_params` [N, W].
 * - SDXL (A1111, ComfyUI, kohya): `clip_l` [N, 768] and `clip_g` [N, 1280], one set per text encoder.
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
const A1111_SAFETENSORS = 'emb_params';

export interface TextualInversionSection {
  format: 'a1111' | 'sdxl' | 'diffusers';
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
  scalars: ReadonlyArray<{ path: string; value: string }>,
  fileName: string,
): TextualInversionSection | null {
  if (index.count === 0 || index.count > MAX_EMBEDDING_TENSORS) {
    return null;
  }
  const names = index.names;
  const shaped = names.map((_, row) => vectorsOf(index, row));
  if (shaped.some((entry) => entry === null)) {
    return null;
  }
  const encoders = names.map((tensor, row) => {
    const { vectors, width } = shaped[row] as { vectors: number; width: number };
    return { tensor, encoder: ENCODERS.get(width) ?? '', width, vectors };
  });
  const scalar = (path: string) => scalars.find((entry) => entry.path === path)?.value ?? null;
  const base = { name: null, step: null, trainedOn: null, token: null };
  const a1111Pt = names.every((name) => name.startsWith(A1111_PREFIX));
  if ((names.length === 1 && names[0] === A1111_SAFETENSORS) || a1111Pt) {
    const step = scalar('step');
    return {
      ...base,
      format: 'a1111',
      encoders,
      vectors: encoders[0].vectors,
      base: BASE_BY_WIDTH.get(encoders[0].width) ?? null,
      token: a1111Pt ? names[0].slice(A1111_PREFIX.length) : null,
      name: scalar('name'),
      step: step === null || !Number.isFinite(Number(step)) ? null : Number(step),
      trainedOn: scalar('sd_checkpoint_name'),
      evidence: [
        `${a1111Pt ? `${names[0]} (AUTOMATIC1111's string_to_param)` : 'emb_params alone'}: ${plural(encoders[0].vectors, 'vector')} of ${encoders[0].width}, the ${encoders[0].encoder} text encoder's width`,
      ],
    };
  }
  const sdxl = names.every((name) => name === 'clip_l' || name === 'clip_g');
  if (sdxl && encoders.every(({ tensor, width }) => width === (tensor === 'clip_l' ? 768 : 1280))) {
    return {
      ...base,
      format: 'sdxl',
      encoders,
      vectors: Math.max(...encoders.map((entry) => entry.vectors)),
      base: 'SDXL',
      evidence: [
        `${names.join(' and ')}: one set of vectors per SDXL text encoder (clip_l 768 wide, clip_g 1,280 wide)`,
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
