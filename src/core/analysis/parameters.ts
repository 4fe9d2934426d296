/**
 * The headline parameter figure, one rule for every format: what the verdict line says, what bits per parameter
 * divides by, and what the report carries as `parameters: {model, stored, basis}` (docs/report-schema.md).
 *
 * - safetensors files and shard sets: the logical parameters the quantization analysis counts (packed weights
 *   unpacked, scale sidecars left out), as stored when nothing is packed;
 * - PyTorch checkpoints: the tensors of the model-weights section only (optimizer moments, EMA copies and other
 *   sections are shown apart), each storage region once (a tied name or an overlapping view adds nothing);
 * - in every format, registered buffers (analysis/buffers.ts: causal masks, rotary tables, batch-norm statistics)
 *   left out, as `model.parameters()` leaves them out.
 */
import { elementBits } from '../dtypes';
import type { ParsedHeader } from '../model';
import type { HeaderTotals } from '../stats';
import { PACKED_UNKNOWN_FORMAT } from './quant/wording';
import type { QuantizationSection } from './report-sections';

/** How `model` was counted; stable strings a script can switch on. */
export type ParametersBasis =
  /** Every tensor's elements, as stored (nothing packed, no scale sidecar), registered buffers left out. */
  | 'stored-elements'
  /** Packed quantized weights unpacked and scale/zero/index sidecars left out (the quantization analysis). */
  | 'logical-quantized'
  /** A checkpoint's model-weights section, each storage region once. */
  | 'checkpoint-weights-storage-once'
  /** A checkpoint with no section that holds model weights. */
  | 'checkpoint-no-weights'
  /** Integer-packed weights of a scheme no detector knows: how many values each element holds is unknown. */
  | 'packed-unknown'
  /** The quantization analysis has not run yet. */
  | 'pending'
  /** A GGUF of statistics or directions, not weights: an importance matrix or a control vector. */
  | 'not-weights';

export interface ParameterFigure {
  /** Logical parameters of the model weights, each storage once; null when unknown (packed-unknown, pending). */
  model: number | null;
  /** Stored elements of every tensor (Σ ∏shape over every name, as the header lists them). */
  stored: number;
  basis: ParametersBasis;
  /** Registered buffers (masks, rotary tables, batch-norm statistics) `model` leaves out; absent when none. */
  buffers?: { tensors: number; elements: number };
}

export interface HeadlineParameters extends ParameterFigure {
  /** Bytes the `model` parameters occupy, for bits per parameter; null when only the whole file's bytes apply. */
  modelBytes: number | null;
  /** Names sharing storage with an earlier name (checkpoints), 0 elsewhere. */
  sharedNames: number;
}

export function headlineParameters(
  header: ParsedHeader,
  totals: Pick<HeaderTotals, 'elements'>,
  quantization: QuantizationSection | undefined,
): HeadlineParameters {
  const stored = totals.elements;
  if (header.gguf?.imatrix || header.gguf?.controlVector) {
    return { model: null, stored, basis: 'not-weights', modelBytes: null, sharedNames: 0 };
  }
  const checkpoint = header.checkpoint;
  if (checkpoint) {
    if (checkpoint.weights === null) {
      return { model: null, stored, basis: 'checkpoint-no-weights', modelBytes: null, sharedNames: 0 };
    }
    let model = 0;
    let modelBytes = 0;
    checkpoint.rows.model.forEach((elements, row) => {
      model += elements;
      modelBytes += (elements * elementBits(header.tensors, row)) / 8;
    });
    const weights = checkpoint.sections.find((section) => section.kind === 'weights');
    // Buffers in the weights section leave the count and the bytes bits per parameter is taken over.
    const buffers = quantization?.buffers;
    const inWeights = buffers && buffers.modelElements > 0 ? buffers : undefined;
    return {
      model: model - (inWeights?.modelElements ?? 0),
      stored,
      basis: 'checkpoint-weights-storage-once',
      modelBytes: modelBytes - (inWeights?.modelBytes ?? 0),
      sharedNames: weights?.shared ?? 0,
      ...(inWeights ? { buffers: { tensors: inWeights.tensors, elements: inWeights.modelElements } } : {}),
    };
  }
  if (quantization === undefined) {
    return { model: null, stored, basis: 'pending', modelBytes: null, sharedNames: 0 };
  }
  if (quantization.format === PACKED_UNKNOWN_FORMAT) {
    return { model: null, stored, basis: 'packed-unknown', modelBytes: null, sharedNames: 0 };
  }
  const model = quantization.logicalParams;
  const buffers = quantization.buffers;
  return {
    model,
    stored,
    basis: model + (buffers?.elements ?? 0) === stored ? 'stored-elements' : 'logical-quantized',
    modelBytes: null,
    sharedNames: 0,
    ...(buffers ? { buffers: { tensors: buffers.tensors, elements: buffers.elements } } : {}),
  };
}

/** The report's `parameters` field. */
export function parameterFigure(headline: HeadlineParameters): ParameterFigure {
  return {
    model: headline.model,
    stored: headline.stored,
    basis: headline.basis,
    ...(headline.buffers ? { buffers: headline.buffers } : {}),
  };
}
