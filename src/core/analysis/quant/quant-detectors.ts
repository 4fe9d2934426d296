/**
 * Quantization detectors in the order they run. Order is specificity: a detector may only take tensors no earlier
 * detector claimed, so formats with a unique marker (comfy_quant JSON, torchao metadata, bitsandbytes quant_state)
 * go first, name-sharing formats are separated by orientation (GPTQ before AWQ), and the FP8 rules run last, with
 * the "unscaled cast" rule at the very end catching F8 matrices nobody explained.
 */
import { awqDetector } from './awq';
import { bnb4bitDetector, bnbInt8Detector } from './bnb';
import { comfyQuantDetector, comfyScaledFp8Detector } from './comfy';
import { compressedTensorsDetector } from './compressed-tensors';
import { exl2Detector, exl3Detector } from './exllama';
import { fp8BlockDetector, fp8CastDetector, fp8ScaledDetector } from './fp8';
import { ggmlDetector } from './ggml';
import { gptqDetector, gptqMarlinDetector } from './gptq';
import { hqqDetector } from './hqq';
import { mlxDetector } from './mlx';
import { modeloptDetector } from './modelopt';
import { mxfp4Detector } from './mxfp4';
import { quantoDetector } from './quanto';
import { torchaoDetector } from './torchao';
import type { QuantDetector } from './quant-types';

export const QUANT_DETECTORS: readonly QuantDetector[] = [
  // GGUF's block types are told by the dtype alone, and no other format stores them.
  ggmlDetector,
  comfyQuantDetector,
  comfyScaledFp8Detector,
  torchaoDetector,
  quantoDetector,
  bnb4bitDetector,
  bnbInt8Detector,
  gptqDetector,
  awqDetector,
  gptqMarlinDetector,
  exl2Detector,
  exl3Detector,
  hqqDetector,
  compressedTensorsDetector,
  modeloptDetector,
  mxfp4Detector,
  mlxDetector,
  fp8BlockDetector,
  fp8ScaledDetector,
  fp8CastDetector,
];
