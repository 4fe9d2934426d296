/**
 * The main source (slot A) and what only it has: the last source (for retry, "parse anyway" and the model switcher),
 * the raw header download, and the sidecars read on demand. Opening, releasing and progress are the slot's
 * (source-loader.ts).
 */
import type { StateCreator } from 'zustand';
import type { SectionPage, SectionPageRequest } from '../core/formats/format-reader';
import { encodeText as encodeTextInWorker, fetchRawHeader, fetchSectionPage } from '../worker/client';
import type { EncodeAnswer } from '../core/analysis/tokenizer/encode';
import type { LocalFileEntry, SourceSpec } from '../core/result';
import { cancelSlotOnDemand, createSourceLoader, readSlotOnDemand, type SlotState } from './source-loader';
import type { AppState } from './store';
import { markLoadDone, markLoadStart, markStep, markViewsDone } from '../lib/perf-marks';

/** The main slot: idle → loading (progress, preview) → ready | error. */
export type LoadState = SlotState;

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
   * Reads, once, the sidecars the current load left for later (the config.json beside a file or index URL)
   * and takes in the re-run analyses. The views that show what config.json says call it: the Memory, Model and
   * Quantization tabs, and the report download.
   */
  readSidecarsOnDemand: () => void;
  /** Reads, once, the tokenizer's files the current load left for the Tokenizer tab (LoadResult.tokenizerOnDemand). */
  readTokenizerOnDemand: () => void;
  /** Reads tokenizer.json beside the main load (a click in the Tokenizer tab); the tokenizer analyses run again. */
  readVocabulary: () => Promise<void>;
  /** Stops that read (its Cancel): tokenizer.json stays unread, offered again. */
  cancelVocabulary: () => void;
  /** Reads, once, the trainer_state.json the current load left for the Training tab (LoadResult.trainingOnDemand). */
  readTrainingOnDemand: () => Promise<void>;
  /** Stops that read (its Cancel): trainer_state.json stays unread, offered again. */
  cancelTrainingOnDemand: () => void;
  /** Encodes a text with that tokenizer.json, in the tokenizer's own worker; null when no load is shown. */
  encodeText: (text: string) => Promise<EncodeAnswer | null>;
  /** Re-opens the current folder drop or repository on another of its models (a ModelChoice key). */
  switchModel: (key: string) => Promise<void>;
  cancelLoad: () => void;
  resetLoad: () => void;
}

export const createLoadSlice: StateCreator<AppState, [], [], LoadSlice> = (set, get) => {
  const mainSlot = { read: () => get().load, write: (load: LoadState) => set({ load }) };
  const loader = createSourceLoader('main', {
    ...mainSlot,
    token: () => get().token,
    started: (source) => {
      set({ lastSource: source });
      const load = get().load;
      if (load.status === 'loading') {
        markLoadStart(load.loadId);
      }
      get().resetViewForNewSource();
    },
    ready: (result) => {
      markStep('result-received');
      // A file that would run code opens on its safety verdict (the Checkpoint tab), not on its tensor table.
      if (result.outcome.kind === 'parsed' && (result.outcome.header.pickle?.dangerous ?? 0) > 0) {
        set({ activePanel: 'checkpoint' });
      }
      if (!result.analysisPending) {
        markLoadDone(result.loadId);
      }
      get().refreshTable();
    },
    analysed: (loadId) => {
      markStep('analyses-received');
      markLoadDone(loadId);
    },
    // A load that ends in an error is done too: a timer waiting on the mark stops at the message the page shows.
    failed: (loadId) => markLoadDone(loadId),
    viewed: (loadId) => markViewsDone(loadId),
  });

  return {
    load: { status: 'idle' },
    lastSource: null,

    openSource: loader.open,

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

    readSidecarsOnDemand: () => readSlotOnDemand(mainSlot, 'config'),

    readTokenizerOnDemand: () => readSlotOnDemand(mainSlot, 'tokenizer'),

    readVocabulary: () => readSlotOnDemand(mainSlot, 'vocabulary'),

    cancelVocabulary: () => cancelSlotOnDemand(mainSlot, 'vocabulary'),

    readTrainingOnDemand: () => readSlotOnDemand(mainSlot, 'training'),

    cancelTrainingOnDemand: () => cancelSlotOnDemand(mainSlot, 'training'),

    encodeText: async (text) => {
      const load = get().load;
      return load.status === 'ready' ? encodeTextInWorker(load.result.loadId, text) : null;
    },

    switchModel: async (key) => {
      const source = get().lastSource;
      if (source?.kind === 'files') {
        return get().openSource({ ...source, select: key });
      }
      if (source?.kind === 'url') {
        return get().openSource({ ...source, select: key });
      }
    },

    cancelLoad: loader.cancel,

    resetLoad: loader.reset,
  };
};
