/** Name patterns that mark adapter (LoRA / LyCORIS) tensors; shared by the LoRA analysis and the others that defer to it. */
import type { TensorIndex } from './tensor-index';

/** Suffixes of low-rank factors and LyCORIS module tensors. */
const RE_LORA_TENSOR =
  /(?:\.lora_[AB]\.weight|\.lora_embedding_[AB]|\.lora_magnitude_vector(?:\.weight)?|\.lora_(?:down|up|mid)\.weight|\.lora\.(?:down|up)\.weight|_lora\.(?:down|up)\.weight|\.lora_[ab]|\.hada_w[12]_[ab]|\.hada_t[12]|\.lokr_w[12](?:_[ab])?|\.lokr_t[12]|\.oft_blocks|\.oft_diag|\.dora_scale|\.alpha)$/;

/** Cheap pre-filter: every adapter suffix contains one of these; the regex runs only on names that pass. */
function mayBeAdapterTensor(name: string): boolean {
  return (
    name.includes('lora') ||
    name.includes('hada_') ||
    name.includes('lokr_') ||
    name.includes('oft_') ||
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
  const result = index.names.length > 0 && hits * 2 >= index.names.length && factors > 0;
  adapterCache.set(index.names, result);
  return result;
}
