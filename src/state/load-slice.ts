/** Load lifecycle: idle → loading (progress, preview) → ready | error. One load at a time; a new one cancels. */
import type { SectionPage, SectionPageRequest } from '../core/formats/types';
import type { StateCreator } from 'zustand';
import type { SerializedSourceError } from '../core/errors';
import type { TensorColumns } from '../core/model';
import type { LocalFileEntry } from '../core/result';
import type { LoadPhase, LoadResult, ShardProgress, SidecarsUpdate, SourceSpec, StallNotice } from '../core/result';
import {
  fetchRawHeader,
  fetchSectionPage,
  readSidecarsOnDemand as readSidecars,
  releaseLoad,
  type AnalysesUpdate,
} from '../worker/client';
import { createSourceLoader } from './source-loader';
import type { AppState } from './store';
import { markLoadDone, markLoadStart, markStep } from '../lib/perf-marks';

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
  /**
   * Opens a bundled sample (an app asset, fetched whole: they are tiny) exactly like a dropped file; `mark` lets the
   * caller tag the File (the share bar links to samples). Rejects when the sample cannot be fetched.
   */
  openSample: (url: string, name: string, mark?: (file: File) => File) => Promise<void>;
  /** The current load's raw header bytes (8 + N), kept by the worker; null when there are none. */
  rawHeader: () => Promise<Uint8Array | null>;
  /** A page of a format's long list (GGUF's tokens) for the current load, kept by the worker; null when none. */
  sectionPage: (request: SectionPageRequest) => Promise<SectionPage | null>;
  /**
   * Reads, once, the sidecars the current load left for later (the config.json beside a Hub file or index URL)
   * and takes in the re-run analyses. The views that show what config.json says call it: the Memory, Model and
   * Quantization tabs, and the report download.
   */
  readSidecarsOnDemand: () => void;
  /** Re-opens the current folder drop or repository on another of its models (a ModelChoice key). */
  switchModel: (key: string) => Promise<void>;
  cancelLoad: () => void;
  resetLoad: () => void;
}

/**
 * `result` with analyses that arrived after it (the first run, or a re-run once a sidecar was read on demand): their
 * sections and findings, and the network figures that now include the analyses' reads.
 */
function withAnalyses(result: LoadResult, update: AnalysesUpdate): LoadResult {
  return {
    ...result,
    sections: update.sections,
    analysisFindings: update.analysisFindings,
    network: update.network ?? result.network,
    bytesRead: result.source.kind === 'url' && update.network ? update.network.bytesFetched : result.bytesRead,
    timings: { ...result.timings, analyzeMs: update.analyzeMs },
  };
}

export const createLoadSlice: StateCreator<AppState, [], [], LoadSlice> = (set, get) => {
  const loader = createSourceLoader('main', {
    started: (loadId, source, label) => {
      markLoadStart(loadId);
      set({
        lastSource: source,
        load: {
          status: 'loading',
          loadId,
          label,
          phase: 'connect',
          bytesRead: 0,
          bytesTotal: null,
          preview: null,
          shards: null,
          stall: null,
        },
      });
      get().resetViewForNewSource();
    },
    progress: (loadId, { phase, bytesRead, bytesTotal, shards, stall }) => {
      const load = get().load;
      if (load.status === 'loading' && load.loadId === loadId) {
        set({
          load: { ...load, phase, bytesRead, bytesTotal, shards, stall: stall === undefined ? load.stall : stall },
        });
      }
    },
    preview: (loadId, rows) => {
      const load = get().load;
      if (load.status === 'loading' && load.loadId === loadId) {
        set({ load: { ...load, preview: rows } });
      }
    },
    ready: (result) => {
      markStep('result-received');
      set({ load: { status: 'ready', result } });
      if (!result.analysisPending) {
        markLoadDone(result.loadId);
      }
      get().refreshTable();
    },
    analyses: (loadId, update) => {
      const load = get().load;
      if (load.status === 'ready' && load.result.loadId === loadId) {
        markStep('analyses-received');
        set({
          load: {
            status: 'ready',
            result: { ...withAnalyses(load.result, update), analysisPending: false },
          },
        });
        markLoadDone(loadId);
      }
    },
    failed: (label, error) => set({ load: { status: 'error', label, error } }),
  });

  return {
    load: { status: 'idle' },
    lastSource: null,

    openSource: async (source, options = {}) => {
      const previous = get().load;
      if (previous.status === 'ready') {
        releaseLoad(previous.result.loadId);
      }
      return loader.open(source, options);
    },

    openFiles: loader.openFiles,

    openSample: async (url, name, mark = (file) => file) => {
      const response = await fetch(url);
      if (!response.ok) {
        throw new Error(`HTTP ${response.status}`);
      }
      const file = mark(new File([await response.blob()], name));
      void get().openSource({ kind: 'file', file });
    },

    rawHeader: async () => {
      const load = get().load;
      return load.status === 'ready' ? fetchRawHeader(load.result.loadId) : null;
    },

    sectionPage: async (request) => {
      const load = get().load;
      return load.status === 'ready' ? fetchSectionPage(load.result.loadId, request) : null;
    },

    readSidecarsOnDemand: () => {
      const load = get().load;
      if (load.status !== 'ready' || !load.result.sidecarsOnDemand || load.result.sidecarsReading) {
        return;
      }
      const { loadId } = load.result;
      const asked = load.result.sidecarsOnDemand;
      set({ load: { status: 'ready', result: { ...load.result, sidecarsReading: true } } });
      const settle = (update: SidecarsUpdate | null) => {
        const now = get().load;
        if (now.status !== 'ready' || now.result.loadId !== loadId) {
          return;
        }
        const { sidecarsOnDemand: _asked, sidecarsReading: _reading, ...result } = now.result;
        const read = update?.sidecarsRead ?? [];
        const notFound = asked.filter((file) => !read.includes(file));
        set({
          load: {
            status: 'ready',
            result: {
              ...(update
                ? withAnalyses(result, { ...update, analyzeMs: result.timings.analyzeMs + update.analyzeMs })
                : result),
              ...(read.length > 0 && { sidecarsRead: [...(result.sidecarsRead ?? []), ...read] }),
              ...(notFound.length > 0 && { sidecarsNotFound: notFound }),
            },
          },
        });
      };
      readSidecars(loadId).then(settle, () => settle(null));
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

    cancelLoad: loader.cancel,

    resetLoad: () => {
      loader.reset();
      set({ load: { status: 'idle' } });
    },
  };
};
