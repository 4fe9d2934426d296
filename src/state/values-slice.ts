/**
 * Tensor values on demand: "Read values" for one tensor and "Scan all values" for the model, run in the worker
 * (worker/values-handler.ts) and kept per load. Nothing is read until an action is called; a remote tensor past the
 * default budget is sampled unless `whole` is asked for (the view says how many bytes first).
 */
import type { StateCreator } from 'zustand';
import type { SourceReads } from '../core/result';
import type { ValueScan } from '../core/values/value-scan';
import type { TensorValues } from '../core/values/tensor-values';
import type { ValuesComparisonResult } from '../core/values/compare-values';
import {
  compareAllValues,
  readLoraDelta,
  readValues,
  scanAllValues,
  type SideReads,
  type ValuesAnswer,
  type ValuesHandle,
} from '../worker/client';
import type { ReadySlot, SlotState } from './source-loader';
import type { AppState } from './store';

export type ValuesEntry =
  | { status: 'reading'; whole: boolean; bytesRead: number; bytesTotal: number | null }
  | { status: 'ready'; values: TensorValues }
  | { status: 'error'; message: string; confirmBytes?: number };

export type ScanState =
  | { status: 'idle' }
  | { status: 'scanning'; bytesRead: number; bytesTotal: number | null }
  | { status: 'ready'; scan: ValueScan }
  | { status: 'error'; message: string };

export type CompareValuesState =
  | { status: 'idle' }
  | { status: 'comparing'; compareId: number; bytesRead: number; bytesTotal: number | null }
  | { status: 'ready'; compareId: number; result: ValuesComparisonResult }
  | { status: 'error'; compareId: number; message: string };

export interface ValuesSlice {
  /** "Compare values" of the shown comparison (compareId says which). */
  valueCompare: CompareValuesState;
  compareValues: () => void;
  cancelCompareValues: () => void;
  /** Values read for the current load, by row. */
  tensorValues: Record<number, ValuesEntry>;
  valueScan: ScanState;
  /** Which load `tensorValues` and `valueScan` belong to; they are dropped when another load is shown. */
  valuesLoadId: number | null;
  /** Reads `row`'s values: the default (whole locally, up to 16 MiB or a row sample remotely), or all of them. */
  /** `stored`: the stored values of a tensor that also offers dequantized ones. */
  readTensorValues: (row: number, whole: boolean, stored?: boolean) => void;
  cancelTensorValues: (row: number) => void;
  /** "Compute ΔW" of LoRA modules for the current load, by module name. */
  loraDeltas: Record<string, ValuesEntry>;
  /** Forms the update of `module`, whose factor is `row`; progress counts the factors' bytes, then ΔW's as Float32. */
  computeLoraDelta: (row: number, module: string, whole?: boolean) => void;
  cancelLoraDelta: (module: string) => void;
  scanAllValues: () => void;
  cancelValueScan: () => void;
}

const running = new Map<string, { cancel: () => void }>();

/**
 * `slot` with what its load has read after a values job: a remote load's network figures hold every byte; a local
 * load adds its values reads to the bytes its load read. Null when the slot no longer holds load `loadId`.
 */
function withReads(slot: SlotState, loadId: number, reads: SourceReads | null): ReadySlot | null {
  if (!reads || slot.status !== 'ready' || slot.result.loadId !== loadId) {
    return null;
  }
  const { result } = slot;
  const { network, valuesBytes } = reads;
  const bytesRead = network ? network.bytesFetched : result.bytesRead - (result.valuesBytesRead ?? 0) + valuesBytes;
  return {
    ...slot,
    result: { ...result, network: network ?? result.network, bytesRead, valuesBytesRead: valuesBytes },
  };
}

export const createValuesSlice: StateCreator<AppState, [], [], ValuesSlice> = (set, get) => {
  /** The ready load's id, after dropping values kept for an earlier load. */
  const currentLoad = (): number | null => {
    const load = get().load;
    if (load.status !== 'ready') {
      return null;
    }
    if (get().valuesLoadId !== load.result.loadId) {
      for (const handle of running.values()) {
        handle.cancel();
      }
      running.clear();
      set({ tensorValues: {}, loraDeltas: {}, valueScan: { status: 'idle' }, valuesLoadId: load.result.loadId });
    }
    return load.result.loadId;
  };

  /** The main load's figures now include the values reads. */
  const takeReads = (loadId: number, reads: SourceReads | null) => {
    const load = withReads(get().load, loadId, reads);
    if (load) {
      set({ load });
    }
  };

  /** After "Compare values" each slot's figures include its side's reads: A's in the main slot, B's in compare's. */
  const takeSideReads = (loadA: number, loadB: number, reads: SideReads | null) => {
    takeReads(loadA, reads?.a ?? null);
    const compareSource = withReads(get().compareSource, loadB, reads?.b ?? null);
    if (compareSource) {
      set({ compareSource });
    }
  };

  const settle = <T>(
    loadId: number,
    key: string,
    answer: Promise<ValuesAnswer<T>>,
    apply: (a: ValuesAnswer<T>) => void,
  ) => {
    answer.then(
      (result) => {
        running.delete(key);
        if (get().valuesLoadId === loadId) {
          apply(result);
          takeReads(loadId, result.reads);
        }
      },
      (error: unknown) => {
        running.delete(key);
        if (get().valuesLoadId === loadId) {
          apply({ value: null, error: error instanceof Error ? error.message : String(error), reads: null });
        }
      },
    );
  };

  /**
   * A job kept as one entry (a tensor's values by row, a LoRA update by module): reading with progress while it runs
   * (only while this load's values are shown), then ready or its error. A second start while it runs does nothing.
   */
  const startEntry = (
    loadId: number,
    key: string,
    whole: boolean,
    slot: {
      entry: () => ValuesEntry | undefined;
      setEntry: (entry: ValuesEntry) => void;
      start: (progress: (bytesRead: number, bytesTotal: number) => void) => ValuesHandle<TensorValues>;
      failed: string;
    },
  ) => {
    if (running.has(key)) {
      return;
    }
    slot.setEntry({ status: 'reading', whole, bytesRead: 0, bytesTotal: null });
    const handle = slot.start((bytesRead, bytesTotal) => {
      if (get().valuesLoadId === loadId && slot.entry()?.status === 'reading') {
        slot.setEntry({ status: 'reading', whole, bytesRead, bytesTotal });
      }
    });
    running.set(key, handle);
    settle(loadId, key, handle.promise, (answer) =>
      slot.setEntry(
        answer.value
          ? { status: 'ready', values: answer.value }
          : {
              status: 'error',
              message: answer.error ?? slot.failed,
              ...(answer.confirmBytes !== undefined && { confirmBytes: answer.confirmBytes }),
            },
      ),
    );
  };

  return {
    valueCompare: { status: 'idle' },

    compareValues: () => {
      const diff = get().diff;
      if (diff.status !== 'ready' || running.has('compare')) {
        return;
      }
      const { compareId, loadA, loadB } = diff.result;
      const still = () => {
        const now = get().valueCompare;
        return now.status !== 'idle' && now.compareId === compareId;
      };
      set({ valueCompare: { status: 'comparing', compareId, bytesRead: 0, bytesTotal: null } });
      const handle = compareAllValues(compareId, loadA, loadB, (bytesRead, bytesTotal) => {
        if (still() && get().valueCompare.status === 'comparing') {
          set({ valueCompare: { status: 'comparing', compareId, bytesRead, bytesTotal } });
        }
      });
      running.set('compare', handle);
      const apply = (answer: ValuesAnswer<ValuesComparisonResult, SideReads | null>) => {
        running.delete('compare');
        // The reads happened whether or not this comparison is still shown: the loads' figures count them.
        takeSideReads(loadA, loadB, answer.reads);
        if (still()) {
          set({
            valueCompare: answer.value
              ? { status: 'ready', compareId, result: answer.value }
              : { status: 'error', compareId, message: answer.error ?? 'Comparing values failed.' },
          });
        }
      };
      handle.promise.then(apply, (error: unknown) =>
        apply({ value: null, error: error instanceof Error ? error.message : String(error), reads: null }),
      );
    },

    cancelCompareValues: () => running.get('compare')?.cancel(),

    tensorValues: {},
    valueScan: { status: 'idle' },
    valuesLoadId: null,

    readTensorValues: (row, whole, stored = false) => {
      const loadId = currentLoad();
      if (loadId !== null) {
        startEntry(loadId, `row:${row}`, whole, {
          entry: () => get().tensorValues[row],
          setEntry: (entry) => set({ tensorValues: { ...get().tensorValues, [row]: entry } }),
          start: (progress) => readValues(loadId, row, whole, progress, stored),
          failed: 'The values could not be read.',
        });
      }
    },

    cancelTensorValues: (row) => running.get(`row:${row}`)?.cancel(),

    loraDeltas: {},

    computeLoraDelta: (row, module, whole = false) => {
      const loadId = currentLoad();
      if (loadId !== null) {
        startEntry(loadId, `delta:${module}`, whole, {
          entry: () => get().loraDeltas[module],
          setEntry: (entry) => set({ loraDeltas: { ...get().loraDeltas, [module]: entry } }),
          start: (progress) => readLoraDelta(loadId, row, whole, progress),
          failed: 'ΔW could not be formed.',
        });
      }
    },

    cancelLoraDelta: (module) => running.get(`delta:${module}`)?.cancel(),

    scanAllValues: () => {
      const loadId = currentLoad();
      if (loadId === null || running.has('scan')) {
        return;
      }
      set({ valueScan: { status: 'scanning', bytesRead: 0, bytesTotal: null } });
      const handle = scanAllValues(loadId, (bytesRead, bytesTotal) => {
        if (get().valuesLoadId === loadId && get().valueScan.status === 'scanning') {
          set({ valueScan: { status: 'scanning', bytesRead, bytesTotal } });
        }
      });
      running.set('scan', handle);
      settle(loadId, 'scan', handle.promise, (answer) =>
        set({
          valueScan: answer.value
            ? { status: 'ready', scan: answer.value }
            : { status: 'error', message: answer.error ?? 'The scan failed.' },
        }),
      );
    },

    cancelValueScan: () => running.get('scan')?.cancel(),
  };
};

/** True when the kept values belong to the shown load (not an earlier one). */
function valuesShown(state: AppState): boolean {
  return state.load.status === 'ready' && state.valuesLoadId === state.load.result.loadId;
}

/** "Compute ΔW" of `module` for the shown load. */
export function loraDeltaOf(state: AppState, module: string): ValuesEntry | null {
  return valuesShown(state) ? (state.loraDeltas[module] ?? null) : null;
}

/** The values entry of `row` for the shown load. */
export function valuesOf(state: AppState, row: number): ValuesEntry | null {
  return valuesShown(state) ? (state.tensorValues[row] ?? null) : null;
}
