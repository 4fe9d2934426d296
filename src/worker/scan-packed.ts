/**
 * "Scan all values" over packed layouts (GPTQ, AWQ, bitsandbytes NF4/FP4, compressed-tensors, NVFP4/MXFP4). Their
 * stored integers pack several codes each, so a NaN count, an all-zero verdict or an abs-max over them says nothing about the weight: a packed
 * weight is scanned in its dequantized values, read whole with its companions (worker/values-packed.ts), and the
 * code-only parts of its layout (`qzeros`, quant_state, packed zero points, `weight_shape`) are not scanned on their own. Scales and absmax are values in
 * their own right and are scanned as stored. A weight past MAX_DEQUANTIZED_ELEMENTS is scanned as its stored codes.
 */
import { mayBePackedPart, packedCodeOwner, packedPlan, type PackedPlan } from '../core/values/packed';
import { scanTensor, TensorScanAccumulator, type ScanTensor } from '../core/values/value-scan';
import type { KeptLoad } from './load-source';
import { rowDtype } from './values-handler';
import { dequantizedWeight, MAX_DEQUANTIZED_ELEMENTS, packedFacts, plannedElements } from './values-packed';

export interface PackedScan {
  /** Packed weights scanned dequantized, by row. */
  weights: Map<number, PackedPlan>;
  /** Rows left to their weight's dequantized values. */
  codeOnly: Set<number>;
}

/** Whether a plan's weight fits one dequantized read. */
function fits(load: KeptLoad, plan: PackedPlan): boolean {
  return plannedElements(load, plan) <= MAX_DEQUANTIZED_ELEMENTS;
}

/** Which rows of the load the scan reads dequantized, and which it leaves to them. */
export function packedScanPlan(load: KeptLoad): PackedScan {
  const facts = packedFacts(load, rowDtype);
  const weights = new Map<number, PackedPlan>();
  const codeOnly = new Set<number>();
  for (let row = 0; row < load.columns.count; row++) {
    const name = load.names[row];
    if (!mayBePackedPart(name)) {
      continue;
    }
    const plan = packedPlan(facts, row);
    if (plan && fits(load, plan)) {
      weights.set(row, plan);
      continue;
    }
    const owner = packedCodeOwner(facts, row);
    if (owner && fits(load, owner)) {
      codeOnly.add(row);
    }
  }
  return { weights, codeOnly };
}

/** A packed weight's scan figures over its dequantized values (`onRead`: bytes read so far for it). */
export async function scanDequantized(
  load: KeptLoad,
  row: number,
  plan: PackedPlan,
  signal: AbortSignal,
  onRead: (bytesRead: number) => void,
): Promise<ScanTensor> {
  const { values, shape } = await dequantizedWeight(load, plan, signal, onRead, rowDtype);
  const stats = new TensorScanAccumulator('F32', values.length, shape, load.names[row]);
  stats.add(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), 0);
  return scanTensor(row, load.names[row], rowDtype(load, row), stats.result());
}
