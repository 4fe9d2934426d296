/** Test helper: one compare side straight from tensor specs (no bytes, no parser). Not used by app code. */
import { allTensorNames } from '../core/model';
import type { TensorSpec } from './build-safetensors';
import { headerFromSpecs } from './models/header-from-specs';
import type { CompareSide } from '../core/compare/diff';

export function sideOf(specs: readonly TensorSpec[]): CompareSide {
  const header = headerFromSpecs(specs);
  return { columns: header.tensors, names: allTensorNames(header.tensors), unknownDtypes: header.unknownDtypes };
}
