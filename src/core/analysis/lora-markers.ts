/** Name patterns that mark adapter (LoRA / LyCORIS) tensors; shared by the LoRA analysis and the others that defer to it. */

/** Suffixes of low-rank factors and LyCORIS module tensors. */
export const RE_LORA_TENSOR =
  /(?:\.lora_[AB]\.weight|\.lora_embedding_[AB]|\.lora_magnitude_vector(?:\.weight)?|\.lora_(?:down|up|mid)\.weight|\.lora\.(?:down|up)\.weight|_lora\.(?:down|up)\.weight|\.lora_[ab]|\.hada_w[12]_[ab]|\.hada_t[12]|\.lokr_w[12](?:_[ab])?|\.lokr_t[12]|\.oft_blocks|\.oft_diag|\.dora_scale|\.alpha)$/;

/** True when adapter tensors make up most of the file (a LoRA file carries no base weights). */
export function isAdapterFile(names: readonly string[]): boolean {
  if (names.length === 0) {
    return false;
  }
  let hits = 0;
  for (const name of names) {
    if (RE_LORA_TENSOR.test(name)) {
      hits++;
    }
  }
  // PEFT files may add full copies (modules_to_save), so "most", not "all"; `.alpha` alone never decides.
  return hits * 2 >= names.length && names.some((name) => RE_LORA_TENSOR.test(name) && !name.endsWith('.alpha'));
}
