/**
 * What config.json says about quantization, normalised across producers: transformers' `quantization_config`
 * (also nested under `text_config` for VLMs), compressed-tensors' `config_groups`, bitsandbytes' `load_in_*`,
 * and mlx-lm's `quantization` block with its per-layer overrides.
 */
import type { ConfigFile } from '../analysis-types';
import { asNumber, asString, isRecord } from '../values';

export interface QuantConfigHint {
  /** Lower-cased `quant_method` (`gptq`, `awq`, `fp8`, `compressed-tensors`, `bitsandbytes`, `mlx`…). */
  method: string | null;
  bits: number | null;
  groupSize: number | null;
  /** `format` (compressed-tensors), `version` (AWQ), `bnb_4bit_quant_type`, MLX `mode`. */
  format: string | null;
  weightBlockSize: [number, number] | null;
  /** MLX per-module overrides: module path → bits / group size. */
  perModule: Map<string, { bits: number | null; groupSize: number | null }>;
  /** Where the block was found, for evidence lines. */
  source: string;
}

/**
 * The quantization block of a config; `file` names where it was read (a params.json's `quantization` arrives mapped
 * to quantization_config: analysis/native-params.ts).
 */
export function quantConfigHint(config: unknown, file: ConfigFile = 'config.json'): QuantConfigHint | null {
  if (!isRecord(config)) {
    return null;
  }
  if (file === 'params.json') {
    return isRecord(config.quantization_config)
      ? fromBlock(config.quantization_config, 'params.json quantization')
      : null;
  }
  const candidates: Array<[unknown, string]> = [
    [config.quantization_config, 'config.json quantization_config'],
    [
      isRecord(config.text_config) ? config.text_config.quantization_config : undefined,
      'config.json text_config.quantization_config',
    ],
    [config.quantization, 'config.json quantization (mlx-lm)'],
  ];
  for (const [block, source] of candidates) {
    if (isRecord(block)) {
      return fromBlock(block, source);
    }
  }
  return null;
}

function fromBlock(block: Record<string, unknown>, source: string): QuantConfigHint {
  const mlx = source.includes('mlx');
  let method = asString(block.quant_method)?.toLowerCase() ?? (mlx ? 'mlx' : null);
  let bits = asNumber(block.bits) ?? asNumber(block.nbits) ?? asNumber(block.weight_bits) ?? asNumber(block.w_bit);
  let groupSize = asNumber(block.group_size) ?? asNumber(block.q_group_size);
  let format =
    asString(block.format) ?? asString(block.version) ?? asString(block.bnb_4bit_quant_type) ?? asString(block.mode);
  const blockSizeValue = block.weight_block_size;
  const weightBlockSize =
    Array.isArray(blockSizeValue) && blockSizeValue.length === 2 && blockSizeValue.every((v) => typeof v === 'number')
      ? ([blockSizeValue[0], blockSizeValue[1]] as [number, number])
      : null;

  if (method === 'bitsandbytes' || block.load_in_4bit === true || block.load_in_8bit === true) {
    method = 'bitsandbytes';
    bits ??= block.load_in_4bit === true ? 4 : block.load_in_8bit === true ? 8 : null;
    groupSize ??= null;
  }
  // compressed-tensors keeps the weight scheme inside config_groups; the first group is the main one.
  if (isRecord(block.config_groups)) {
    for (const group of Object.values(block.config_groups)) {
      if (isRecord(group) && isRecord(group.weights)) {
        bits ??= asNumber(group.weights.num_bits);
        groupSize ??= asNumber(group.weights.group_size);
        break;
      }
    }
  }
  if (method === 'mxfp4') {
    bits ??= 4;
    groupSize ??= 32;
  }
  if (weightBlockSize) {
    groupSize ??= weightBlockSize[1];
    bits ??= method === 'fp8' ? 8 : null;
  }
  if (method === 'fp8') {
    bits ??= 8;
    format ??= asString(block.fmt);
  }

  const perModule = new Map<string, { bits: number | null; groupSize: number | null }>();
  if (mlx) {
    for (const [key, value] of Object.entries(block)) {
      if (isRecord(value)) {
        perModule.set(key, { bits: asNumber(value.bits), groupSize: asNumber(value.group_size) });
      }
    }
  }
  return { method, bits, groupSize, format, weightBlockSize, perModule, source };
}

/** Which detector families a config method stands for (a method may map to several: fp8 → block or per-tensor). */
export const METHOD_FAMILIES: Readonly<Record<string, readonly string[]>> = {
  gptq: ['gptq', 'gptq-marlin'],
  awq: ['awq'],
  bitsandbytes: ['bnb-int8', 'bnb-4bit'],
  fp8: ['fp8', 'fp8-block', 'comfy-scaled-fp8'],
  fbgemm_fp8: ['fp8'],
  'compressed-tensors': ['compressed-tensors', 'fp8', 'fp8-block'],
  modelopt: ['modelopt', 'fp8'],
  mxfp4: ['mxfp4'],
  mlx: ['mlx'],
  exl2: ['exl2'],
  exl3: ['exl3'],
  hqq: ['hqq'],
  quanto: ['quanto'],
  torchao: ['torchao'],
};
