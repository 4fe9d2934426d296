/** Quantization wording shared by the analysis and the views (kept apart so the page bundle stays small). */

/** Format of a file whose weights are integer containers without any known scheme's signature. */
export const PACKED_UNKNOWN_FORMAT = 'packed-unknown';

/**
 * "GPTQ", "AWQ (gemm)", "ComfyUI mixed quantization (int8_tensorwise)": a family label, and the format only when it
 * adds something (never "GPTQ gptq" or "MXFP4 mxfp4").
 */
export function withFormat(label: string, family: string, format: string): string {
  const squash = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, '');
  const redundant =
    squash(format) === '' || squash(label).includes(squash(format)) || squash(format) === squash(family);
  if (redundant) {
    return label;
  }
  // "ComfyUI mixed precision (comfy_quant)" + int8_tensorwise → "… (comfy_quant, int8_tensorwise)", not "(…) (…)".
  return label.endsWith(')') ? `${label.slice(0, -1)}, ${format})` : `${label} (${format})`;
}
