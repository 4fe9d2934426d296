/**
 * Compare mode: a second source (B) loaded through the same worker `open` path as the main one (A), whatever its
 * SourceSpec kind, and the diff of A against B, re-run whenever A, B or the alignment rules change. The comparison
 * table's rows are sorted and filtered in the worker, like the tensor table's.
 */
import type { StateCreator } from 'zustand';
import { COMPARE_RULES, DEFAULT_COMPARE_RULES, type CompareRule } from '../core/compare/align';
import { DEFAULT_COMPARE_QUERY, type CompareQuery } from '../core/compare/compare-query';
import type { CompareResult, LoadResult, LocalFileEntry, SourceSpec } from '../core/result';
import {
  compareLoads,
  compareVocabularyLists,
  encodeText,
  failureOf,
  queryComparison,
  releaseComparison,
} from '../worker/client';
import type { VocabularyDiff } from '../core/compare/vocabulary-diff';
import type { EncodeAnswer } from '../core/analysis/tokenizer/encode';
import { listedTokens } from './selectors';
import {
  createSourceLoader,
  createTableQueries,
  hungFilterNotice,
  cancelSlotOnDemand,
  readSlotOnDemand,
  type SlotState,
} from './source-loader';
import type { AppState } from './store';

/** Source B's slot, the same state machine as the main source's. */
export type CompareSourceState = SlotState;

export type DiffState =
  | { status: 'idle' }
  | { status: 'running'; loadA: number; loadB: number }
  /** `a` and `b` are the loads the diff was computed from: the table decodes names from their columns. */
  | { status: 'ready'; result: CompareResult; a: LoadResult; b: LoadResult }
  | { status: 'error'; message: string };

export type CompareView = 'tensors' | 'modules';

/** The token-by-token comparison, for the loads it was asked for (a view shows it only while both are open). */
export type VocabularyDiffState =
  | { status: 'idle' }
  | { status: 'running'; loadA: number; loadB: number }
  | { status: 'ready'; loadA: number; loadB: number; diff: VocabularyDiff }
  | { status: 'error'; loadA: number; loadB: number; message: string };

export interface CompareSlice {
  compareSource: CompareSourceState;
  /** The SourceSpec B was opened with (its URL goes into share links; a File never does). */
  compareSpec: SourceSpec | null;
  /** Enabled alignment rules, in ALIGN_RULES order. */
  alignRules: CompareRule[];
  diff: DiffState;
  compareQuery: CompareQuery;
  compareOrder: Uint32Array | null;
  compareFilterError: string | null;
  /** Set when a compare filter hung and was stopped (the worker was replaced and both sources reopened). */
  compareNotice: string | null;
  compareView: CompareView;
  /** A view asked to bring the compared tensors into sight: the table scrolls to itself, then says it did. */
  compareTableRevealPending: boolean;
  openCompareSource: (source: SourceSpec) => Promise<void>;
  /** Picked files: one model file opens as itself; several (shards, an index, a folder) as one `files` source. */
  openCompareFiles: (files: readonly LocalFileEntry[]) => Promise<void>;
  cancelCompareSource: () => void;
  /** Reads, once, B's tokenizer files left for later (LoadResult.tokenizerOnDemand), for the tokenizer comparison. */
  readCompareTokenizerOnDemand: () => void;
  /** Reads B's tokenizer.json (LoadResult.vocabularyOnDemand), for the tokenizer comparison. */
  readCompareVocabulary: () => Promise<void>;
  /** Stops that read (its Cancel). */
  cancelCompareVocabulary: () => void;
  /** Encodes a text with B's tokenizer.json, in its tokenizer's own worker; null when B is not open. */
  encodeCompareText: (text: string) => Promise<EncodeAnswer | null>;
  /** The token-by-token comparison of A's and B's tokenizers, for the loads it names. */
  vocabularyDiff: VocabularyDiffState;
  /** Reads whichever tokenizer.json is still unread, then compares both tokenizers token by token in the worker. */
  compareVocabularies: () => Promise<void>;
  closeCompare: () => void;
  setAlignRule: (rule: CompareRule, enabled: boolean) => void;
  /** (Re)computes the diff of the current A and B; a no-op while either is not a parsed safetensors header. */
  runDiff: () => void;
  setCompareQuery: (patch: Partial<CompareQuery>) => void;
  setCompareView: (view: CompareView) => void;
  /** Shows the compared tensors a filter keeps (every group, any module), and brings their table into sight. */
  showComparedTensors: (filter: string) => void;
  compareTableRevealed: () => void;
  refreshCompareTable: () => void;
}

function parsedLoadId(result: LoadResult | null): number | null {
  return result && result.outcome.kind === 'parsed' ? result.loadId : null;
}

/** The compareVocabularies action: whichever tokenizer.json is unread first, then both lists in the worker. */
async function compareBothVocabularies(get: () => AppState, set: (patch: Partial<AppState>) => void): Promise<void> {
  await Promise.all([get().readVocabulary(), get().readCompareVocabulary()]);
  const { load, compareSource } = get();
  // A read cancelled or failed leaves a side without a list: its card says so, nothing is compared.
  if (load.status !== 'ready' || compareSource.status !== 'ready') {
    return;
  }
  if (![load.result, compareSource.result].every((result) => listedTokens(result) === 'listed')) {
    return;
  }
  const loadA = load.result.loadId;
  const loadB = compareSource.result.loadId;
  set({ vocabularyDiff: { status: 'running', loadA, loadB } });
  let answer: { diff: VocabularyDiff | null; error: string | null };
  try {
    answer = await compareVocabularyLists(loadA, loadB);
  } catch (error) {
    answer = { diff: null, error: failureOf(error).message };
  }
  const now = get().vocabularyDiff;
  if (now.status !== 'running' || now.loadA !== loadA || now.loadB !== loadB) {
    return;
  }
  set({
    vocabularyDiff: answer.diff
      ? { status: 'ready', loadA, loadB, diff: answer.diff }
      : { status: 'error', loadA, loadB, message: answer.error ?? 'The tokenizers could not be compared.' },
  });
}

export const createCompareSlice: StateCreator<AppState, [], [], CompareSlice> = (set, get, api) => {
  let diffVersion = 0;

  // A new main source (A) re-runs the comparison against the B already open.
  api.subscribe((state, previous) => {
    if (state.load === previous.load || state.load.status !== 'ready' || state.compareSource.status !== 'ready') {
      return;
    }
    const loadA = state.load.result.loadId;
    const diff = state.diff;
    const current =
      (diff.status === 'running' && diff.loadA === loadA) || (diff.status === 'ready' && diff.result.loadA === loadA);
    if (!current) {
      state.runDiff();
    }
  });

  const releaseDiff = () => {
    const diff = get().diff;
    if (diff.status === 'ready') {
      releaseComparison(diff.result.compareId);
    }
  };

  const queries = createTableQueries({
    answered: ({ order, filterError }) => set({ compareOrder: order, compareFilterError: filterError }),
    hung: (filter) => {
      // The watchdog replaced the worker (a filter hung): both loads are gone, so both sources reopen, without it.
      const { lastSource, compareSpec } = get();
      if (lastSource) {
        void get().openSource(lastSource);
      }
      if (compareSpec) {
        void get().openCompareSource(compareSpec);
      }
      set({ compareNotice: hungFilterNotice(filter, 'both sources were') });
    },
  });

  /** Frees the diff in the worker; diffs and queries still in flight for it are then ignored. */
  const dropDiff = (): void => {
    releaseDiff();
    diffVersion++;
    queries.invalidate();
  };

  const compareSlot = {
    read: () => get().compareSource,
    write: (compareSource: CompareSourceState) => set({ compareSource }),
  };
  const loader = createSourceLoader('compare', {
    ...compareSlot,
    token: () => get().token,
    started: (source) => {
      dropDiff();
      set({
        compareSpec: source,
        diff: { status: 'idle' },
        compareQuery: DEFAULT_COMPARE_QUERY,
        compareOrder: null,
        compareFilterError: null,
      });
    },
    ready: () => get().runDiff(),
  });

  return {
    compareSource: { status: 'idle' },
    compareSpec: null,
    alignRules: [...DEFAULT_COMPARE_RULES],
    diff: { status: 'idle' },
    compareQuery: DEFAULT_COMPARE_QUERY,
    compareOrder: null,
    compareFilterError: null,
    compareNotice: null,
    compareView: 'tensors',
    compareTableRevealPending: false,

    openCompareSource: (source) => loader.open(source),

    readCompareTokenizerOnDemand: () => readSlotOnDemand(compareSlot, 'tokenizer'),

    readCompareVocabulary: () => readSlotOnDemand(compareSlot, 'vocabulary'),

    cancelCompareVocabulary: () => cancelSlotOnDemand(compareSlot, 'vocabulary'),

    encodeCompareText: async (text) => {
      const source = get().compareSource;
      return source.status === 'ready' ? encodeText(source.result.loadId, text) : null;
    },

    vocabularyDiff: { status: 'idle' },

    compareVocabularies: () => compareBothVocabularies(get, set),

    openCompareFiles: loader.openFiles,

    cancelCompareSource: loader.cancel,

    closeCompare: () => {
      loader.reset();
      dropDiff();
      set({
        compareSource: { status: 'idle' },
        compareSpec: null,
        diff: { status: 'idle' },
        compareQuery: DEFAULT_COMPARE_QUERY,
        compareOrder: null,
        compareFilterError: null,
        compareNotice: null,
      });
    },

    setAlignRule: (rule, enabled) => {
      const rules = new Set(get().alignRules);
      if (enabled) {
        rules.add(rule);
      } else {
        rules.delete(rule);
      }
      set({ alignRules: COMPARE_RULES.filter((candidate) => rules.has(candidate)) });
      get().runDiff();
    },

    runDiff: () => {
      const { load, compareSource, alignRules } = get();
      const a = load.status === 'ready' ? load.result : null;
      const b = compareSource.status === 'ready' ? compareSource.result : null;
      const loadA = parsedLoadId(a);
      const loadB = parsedLoadId(b);
      const version = ++diffVersion;
      if (a === null || b === null || loadA === null || loadB === null) {
        releaseDiff();
        set({ diff: { status: 'idle' }, compareOrder: null });
        return;
      }
      releaseDiff();
      set({ diff: { status: 'running', loadA, loadB } });
      compareLoads(loadA, loadB, alignRules).then(
        (result) => {
          if (version !== diffVersion) {
            releaseComparison(result.compareId);
            return;
          }
          queries.invalidate();
          set({ diff: { status: 'ready', result, a, b }, compareOrder: null, compareFilterError: null });
          get().refreshCompareTable();
        },
        (error: unknown) => {
          if (version !== diffVersion) {
            return;
          }
          set({
            diff: {
              status: 'error',
              message: failureOf(error).message,
            },
          });
        },
      );
    },

    setCompareQuery: (patch) => {
      set({ compareQuery: { ...get().compareQuery, ...patch }, compareNotice: null });
      get().refreshCompareTable();
    },

    setCompareView: (view) => set({ compareView: view }),

    showComparedTensors: (filter) => {
      set({ compareView: 'tensors', compareTableRevealPending: true });
      get().setCompareQuery({ filter, groups: [], module: '' });
    },
    compareTableRevealed: () => set({ compareTableRevealPending: false }),

    refreshCompareTable: () => {
      const diff = get().diff;
      if (diff.status !== 'ready') {
        return;
      }
      const compareId = diff.result.compareId;
      queries.run(
        get().compareQuery.filter,
        () => queryComparison(compareId, get().compareQuery),
        () => {
          const now = get().diff;
          return now.status === 'ready' && now.result.compareId === compareId;
        },
      );
    },
  };
};
