/** Load lifecycle: idle → loading (progress, preview) → ready | error. One load at a time; a new one cancels. */
import type { StateCreator } from 'zustand';
import type { SerializedSourceError } from '../core/errors';
import type { TensorColumns } from '../core/model';
import type { LocalFileEntry } from '../core/result';
import { sourceForFiles } from './source-loader';
import type { LoadPhase, LoadResult, ShardProgress, SourceSpec, StallNotice } from '../core/result';
import { failureOf, releaseLoad, startLoad, type LoadHandle } from '../worker/client';
import type { AppState } from './store';
import { markLoadDone, markLoadStart } from '../lib/perf-marks';

export type LoadState =
  | { status: 'idle' }
  | {
      status: 'loading';
      loadId: number;
      label: string;
      phase: LoadPhase;
      bytesRead: number;
      bytesTotal: number | null;
      preview: TensorColumns | null;
      /** Shard headers done / total while a sharded model loads. */
      shards: ShardProgress | null;
      /** Set while the current request crawls (bytes so far and for how long), for "the server sent 48 bytes in 35 s". */
      stall: StallNotice | null;
    }
  | { status: 'ready'; result: LoadResult }
  | { status: 'error'; label: string; error: SerializedSourceError };

export interface LoadSlice {
  load: LoadState;
  /** The last source requested, so "parse anyway" and "retry" can repeat it. */
  lastSource: SourceSpec | null;
  openSource: (source: SourceSpec, options?: { allowOversizedHeader?: boolean }) => Promise<void>;
  /** Opens dropped or picked files: one file as itself, several (a folder) as a group the worker sorts into models. */
  openFiles: (files: readonly LocalFileEntry[]) => Promise<void>;
  /** Re-opens the current folder drop or repository on another of its models (a ModelChoice key). */
  switchModel: (key: string) => Promise<void>;
  cancelLoad: () => void;
  resetLoad: () => void;
}

let current: LoadHandle | null = null;

function labelOf(source: SourceSpec): string {
  switch (source.kind) {
    case 'file':
      return source.file.name;
    case 'files':
      return `${source.files.length} files`;
    case 'url':
      return source.url;
  }
}

export const createLoadSlice: StateCreator<AppState, [], [], LoadSlice> = (set, get) => ({
  load: { status: 'idle' },
  lastSource: null,

  openSource: async (source, options = {}) => {
    current?.cancel();
    const previous = get().load;
    if (previous.status === 'ready') {
      releaseLoad(previous.result.loadId);
    }
    const handle = startLoad(source, options, {
      onProgress: (phase, bytesRead, bytesTotal, shards, stall) => {
        const load = get().load;
        if (load.status === 'loading' && load.loadId === handle.id) {
          set({
            load: {
              ...load,
              phase,
              bytesRead,
              bytesTotal,
              shards: shards ?? null,
              stall: stall === undefined ? load.stall : stall,
            },
          });
        }
      },
      onAnalyses: (update) => {
        const load = get().load;
        if (load.status === 'ready' && load.result.loadId === handle.id) {
          set({
            load: {
              status: 'ready',
              result: {
                ...load.result,
                sections: update.sections,
                analysisFindings: update.analysisFindings,
                network: update.network ?? load.result.network,
                bytesRead:
                  load.result.source.kind === 'url' && update.network
                    ? update.network.bytesFetched
                    : load.result.bytesRead,
                analysisPending: false,
                timings: { ...load.result.timings, analyzeMs: update.analyzeMs },
              },
            },
          });
          markLoadDone(handle.id);
        }
      },
      onPreview: (rows) => {
        const load = get().load;
        if (load.status === 'loading' && load.loadId === handle.id) {
          set({ load: { ...load, preview: rows } });
        }
      },
    });
    current = handle;
    markLoadStart(handle.id);
    set({
      lastSource: source,
      load: {
        status: 'loading',
        loadId: handle.id,
        label: labelOf(source),
        phase: 'connect',
        bytesRead: 0,
        bytesTotal: null,
        preview: null,
        shards: null,
        stall: null,
      },
    });
    get().resetViewForNewSource();
    try {
      const result = await handle.promise;
      if (current !== handle) {
        return;
      }
      current = null;
      set({ load: { status: 'ready', result } });
      if (!result.analysisPending) {
        markLoadDone(handle.id);
      }
      get().refreshTable();
    } catch (error) {
      if (current !== handle) {
        return;
      }
      current = null;
      const serialized = failureOf(error);
      set({ load: { status: 'error', label: labelOf(source), error: serialized } });
    }
  },

  openFiles: async (files) => {
    const source = sourceForFiles(files);
    if (source) {
      return get().openSource(source);
    }
  },

  switchModel: async (key) => {
    const source = get().lastSource;
    if (source?.kind === 'files') {
      return get().openSource({ ...source, select: key });
    }
    if (source?.kind === 'url') {
      return get().openSource({ ...source, select: key, token: get().token || undefined });
    }
  },

  cancelLoad: () => {
    current?.cancel();
  },

  resetLoad: () => {
    current?.cancel();
    current = null;
    set({ load: { status: 'idle' } });
  },
});
