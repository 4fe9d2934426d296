/** Quantization wording shared by the analysis and the views (kept apart so the page bundle stays small). */
import type { QuantFamily } from '../report-sections';

/** Each family's name in the report's sentences and evidence, where a format and figures follow it. */
export const FAMILY_LABEL: Readonly<Record<QuantFamily, string>> = {
  none: 'Not quantized',
  'comfy-quant': 'ComfyUI mixed quantization',
  'comfy-scaled-fp8': 'ComfyUI scaled FP8',
  fp8: 'FP8',
  'fp8-block': 'Block-scaled FP8',
  'compressed-tensors': 'compressed-tensors',
  modelopt: 'NVIDIA ModelOpt',
  mxfp4: 'MXFP4',
  gptq: 'GPTQ',
  'gptq-marlin': 'GPTQ (Marlin)',
  awq: 'AWQ',
  'bnb-int8': 'bitsandbytes LLM.int8',
  'bnb-4bit': 'bitsandbytes 4-bit',
  mlx: 'MLX',
  exl2: 'EXL2',
  exl3: 'EXL3',
  hqq: 'HQQ',
  quanto: 'optimum-quanto',
  torchao: 'torchao',
  ggml: 'llama.cpp GGUF',
};

/** Where a family is named on its own (the Quantization panel, the verdict), these read better in full. */
const FAMILY_TITLE: Readonly<Partial<Record<QuantFamily, string>>> = {
  'comfy-quant': 'ComfyUI mixed precision (comfy_quant)',
  'comfy-scaled-fp8': 'ComfyUI scaled FP8 (legacy)',
  'fp8-block': 'FP8 with block scales',
  exl2: 'ExLlamaV2 (EXL2)',
  exl3: 'ExLlamaV3 (EXL3)',
};

/**
 * A family's name for the views; an unknown family (a newer report) shows as it is spelled. FP8 weights without
 * scales are family `none` (no quantization scheme) but are still named for what they are.
 */
export function familyTitle(family: string, format?: string): string {
  if (family === 'none' && format === 'fp8-cast') {
    return 'Plain FP8 cast (no scales)';
  }
  return FAMILY_TITLE[family as QuantFamily] ?? FAMILY_LABEL[family as QuantFamily] ?? family;
}

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
