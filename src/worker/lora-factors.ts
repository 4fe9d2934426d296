/**
 * One LoRA module's factors and `.alpha`, read whole and decoded for the measures that need their values: the
 * two-LoRA comparison (values-lora-pair.ts) and "Compute ΔW" (values-lora-delta.ts).
 */
import type { ModulePlan } from '../core/values/lora-update';
import type { KeptLoad } from './load-source';
import { readDecodedRow, rowsBytes } from './values-handler';

export interface ReadModuleFactors {
  /** null where a factor is not decoded or not located. */
  down: Float32Array | null;
  up: Float32Array | null;
  /** The `.alpha` value, or null when the module has none or it is not a finite number. */
  alpha: number | null;
}

/** `onBytes` hears each tensor's bytes as it is read. */
export async function readModuleFactors(
  load: KeptLoad,
  module: ModulePlan,
  signal: AbortSignal,
  onBytes: (bytes: number) => void = () => undefined,
): Promise<ReadModuleFactors> {
  const read = async (row: number) => {
    const values = await readDecodedRow(load, row, signal);
    onBytes(rowsBytes(load, [row]));
    return values;
  };
  const down = await read(module.downRow);
  const up = await read(module.upRow);
  const alphaValues = module.alphaRow === null ? null : await read(module.alphaRow);
  const alpha =
    alphaValues !== null && alphaValues.length > 0 && Number.isFinite(alphaValues[0]) ? alphaValues[0] : null;
  return { down, up, alpha };
}
