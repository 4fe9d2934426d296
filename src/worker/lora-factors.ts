/**
 * One LoRA module's factors (a LyCORIS module's parts) and `.alpha`, read whole and decoded for the measures that need
 * their values: the two-LoRA comparison (values-lora-pair.ts) and "Compute ΔW" (values-lora-delta.ts).
 */
import type { ModulePlan } from '../core/values/lora-update';
import type { LycorisModulePlan } from '../core/values/lycoris-update';
import type { KeptLoad } from './load-source';
import { readDecodedRow, rowsBytes } from './values-handler';

export interface ReadModuleFactors {
  /** null where a factor is not decoded or not located. */
  down: Float32Array | null;
  up: Float32Array | null;
  /** The `.alpha` value, or null when the module has none or it is not a finite number. */
  alpha: number | null;
}

/** One row decoded whole (null where it is not decoded or not located), `onBytes` told its bytes. */
async function readRow(
  load: KeptLoad,
  row: number,
  signal: AbortSignal,
  onBytes: (bytes: number) => void,
): Promise<Float32Array | null> {
  const values = await readDecodedRow(load, row, signal);
  onBytes(rowsBytes(load, [row]));
  return values;
}

/** The `.alpha` value of decoded values, or null when there are none or it is not a finite number. */
function alphaOf(values: Float32Array | null): number | null {
  return values !== null && values.length > 0 && Number.isFinite(values[0]) ? values[0] : null;
}

/**
 * A LyCORIS module's parts by suffix, and its `.alpha`; null in place of the parts when one is not decoded or not
 * located (its name is given).
 */
export async function readLycorisParts(
  load: KeptLoad,
  module: LycorisModulePlan & { alphaRow: number | null },
  signal: AbortSignal,
  onBytes: (bytes: number) => void = () => undefined,
): Promise<{ parts: Map<string, Float32Array> | null; missing: string | null; alpha: number | null }> {
  const parts = new Map<string, Float32Array>();
  for (const [suffix, row] of module.parts) {
    const values = await readRow(load, row, signal, onBytes);
    if (values === null) {
      return { parts: null, missing: load.names[row], alpha: null };
    }
    parts.set(suffix, values);
  }
  const alpha = module.alphaRow === null ? null : alphaOf(await readRow(load, module.alphaRow, signal, onBytes));
  return { parts, missing: null, alpha };
}

/** `onBytes` hears each tensor's bytes as it is read. */
export async function readModuleFactors(
  load: KeptLoad,
  module: ModulePlan,
  signal: AbortSignal,
  onBytes: (bytes: number) => void = () => undefined,
): Promise<ReadModuleFactors> {
  const down = await readRow(load, module.downRow, signal, onBytes);
  const up = await readRow(load, module.upRow, signal, onBytes);
  const alpha = module.alphaRow === null ? null : alphaOf(await readRow(load, module.alphaRow, signal, onBytes));
  return { down, up, alpha };
}
