/**
 * Norm weights still at their initial value. transformers, PyTorch's LayerNorm and llama.cpp's converters all start
 * a norm's weight (RMSNorm, LayerNorm, T5's, GPT-2's `ln_1`, llama.cpp's `attn_norm`) at exactly 1.0, and training
 * moves every one of them: a trained model does not keep thousands of values at exactly 1. So a model whose every
 * norm weight is 1.0 was never trained (saved from its config, or before its checkpoint was loaded, or a test model
 * of random weights), and a few at 1.0 among trained ones mark layers added or left at initialization. Gemma keeps
 * its norms as an offset from 1 (initialized at 0): those show in the scan's all-zero list instead. Pure.
 */
import type { ScanTensor } from './value-scan';

/** A norm's weight: the last part before `.weight` names a norm (`input_layernorm`, `LayerNorm`, `ln_f`, `attn_norm`). */
const NORM_WEIGHT = /(?:^|\.)(?:[^.]*norm[^.]*|ln_[^.]+|ln\d*)\.weight$/i;

/** Norm weights named in the view and the report. */
export const MAX_INITIAL_NORMS_LISTED = 10;

export interface InitialNorms {
  /** Norm weights scanned, and how many of them are 1.0 in every value. */
  normTensors: number;
  atOne: number;
  /** The first of those at 1.0, in scan order. */
  examples: string[];
}

function atOne(entry: ScanTensor): boolean {
  return entry.count > 0 && entry.std === 0 && entry.absMax === 1 && (entry.mean ?? 0) > 0 && entry.nan === 0;
}

/** Null when fewer than two norm weights were scanned or none is at 1.0. */
export function initialNorms(perTensor: readonly ScanTensor[]): InitialNorms | null {
  const norms = perTensor.filter((entry) => NORM_WEIGHT.test(entry.tensor));
  const ones = norms.filter(atOne);
  if (norms.length < 2 || ones.length === 0) {
    return null;
  }
  return {
    normTensors: norms.length,
    atOne: ones.length,
    examples: ones.slice(0, MAX_INITIAL_NORMS_LISTED).map((entry) => entry.tensor),
  };
}
