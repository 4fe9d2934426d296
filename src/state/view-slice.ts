/** What the user is looking at: table query, selection, active panel, chart metric. Shareable parts go in URLs. */
import type { StateCreator } from 'zustand';
import { GPUS } from '../core/analysis/memory/estimate';
import { DEFAULT_QUERY, fileOrderAnswer, type TableQuery } from '../core/table-query';
import { queryTable, renderChatTemplate } from '../worker/client';
import type { ChatPreview, ChatTemplateInput } from '../core/analysis/tokenizer/chat-preview';
import { createTableQueries, hungFilterNotice } from './source-loader';
import { nextTask } from '../lib/after-paint';
import type { AppState } from './store';

export const PANELS = [
  'tensors',
  'checkpoint',
  'gguf',
  'modules',
  'dtypes',
  'quantization',
  'model',
  'tokenizer',
  'training',
  'memory',
  'metadata',
  'shards',
  'compare',
] as const;
export type Panel = (typeof PANELS)[number];

export const CHART_METRICS = ['tensors', 'elements', 'bytes'] as const;
export type ChartMetric = (typeof CHART_METRICS)[number];

/**
 * The GPU and context a model must fit: the Memory tab sets the context (and a GPU of the user's own), the Hub GGUF
 * list shows each quant against them and can change both. Kept across loads, so opening another quant keeps them.
 */
export interface FitTarget {
  gpuBytes: number;
  /** What the GPU is called in the list (`RTX 4090 / L4 / A10 (24 GB)`, `your GPU (20 GiB)`). */
  gpuName: string;
  contextTokens: number;
}

/** Where a fit starts: the smallest common card (24 GB, the RTX 4090 class) and a 4k context. */
export const DEFAULT_FIT_TARGET: FitTarget = {
  gpuBytes: GPUS[0].capacityBytes,
  gpuName: GPUS[0].name,
  contextTokens: 4096,
};

export interface ViewSlice {
  query: TableQuery;
  /** Row order after filtering and sorting (from the worker); null until the first answer. */
  order: Uint32Array | null;
  filterError: string | null;
  /** A table query is in flight: the table keeps its previous rows and says it is working. */
  tableBusy: boolean;
  /** A message about the table that outlives one query (a filter that hung and was stopped). */
  tableNotice: string | null;
  /** Rows selected by clicking a finding; highlighted and filtered to in the table. */
  selectedRow: number | null;
  activePanel: Panel;
  chartMetric: ChartMetric;
  /**
   * The rows that currently restrict the table, and what they are for the chip: a finding's tensors (`code`), or
   * another set a view pointed at (a LoRA module's factors; `code` empty).
   */
  findingFilter: { code: string; count: number; label: string } | null;
  fitTarget: FitTarget;
  setFitTarget: (patch: Partial<FitTarget>) => void;
  setQuery: (patch: Partial<TableQuery>) => void;
  selectRow: (row: number | null) => void;
  setPanel: (panel: Panel) => void;
  /** A chat template rendered on the sample conversation, in a worker of its own (worker/template-renderer.ts). */
  renderChatTemplate: (input: ChatTemplateInput) => Promise<ChatPreview>;
  setChartMetric: (metric: ChartMetric) => void;
  showFindingTensors: (code: string, rows: number[]) => void;
  /** Restricts the table to `rows`, selects the first and switches to the table; the chip reads `label`. */
  showRows: (label: string, rows: number[]) => void;
  /** Filters the table to one module-tree node and switches to the table. */
  showModule: (pattern: string) => void;
  clearFindingFilter: () => void;
  refreshTable: () => void;
  resetViewForNewSource: () => void;
}

export const createViewSlice: StateCreator<AppState, [], [], ViewSlice> = (set, get) => {
  const queries = createTableQueries({
    answered: ({ order, filterError }) => set({ order, filterError, tableBusy: false }),
    failed: () => set({ tableBusy: false }),
    hung: (filter) => {
      // The worker was replaced and its rows are gone: reopen the source without the filter that hung.
      const source = get().lastSource;
      if (source) {
        void get().openSource(source);
      }
      set({ tableNotice: hungFilterNotice(filter, 'the file was') });
    },
  });

  const showRows = (code: string, label: string, rows: number[]) => {
    set({
      findingFilter: { code, count: rows.length, label },
      query: { ...get().query, rows, filter: '', dtypes: [], module: '' },
      selectedRow: rows[0] ?? null,
      activePanel: 'tensors',
    });
    get().refreshTable();
  };

  return {
    query: DEFAULT_QUERY,
    order: null,
    filterError: null,
    tableBusy: false,
    tableNotice: null,
    selectedRow: null,
    activePanel: 'tensors',
    chartMetric: 'bytes',
    findingFilter: null,
    fitTarget: DEFAULT_FIT_TARGET,

    setFitTarget: (patch) => set({ fitTarget: { ...get().fitTarget, ...patch } }),
    setQuery: (patch) => {
      set({ query: { ...get().query, ...patch }, tableNotice: null });
      get().refreshTable();
    },
    selectRow: (row) => set({ selectedRow: row }),
    setPanel: (panel) => set({ activePanel: panel }),
    renderChatTemplate,
    setChartMetric: (metric) => set({ chartMetric: metric }),
    showFindingTensors: (code, rows) => showRows(code, `finding: ${code}`, rows),
    showRows: (label, rows) => showRows('', label, rows),
    showModule: (pattern) => {
      set({ query: { ...get().query, module: pattern, rows: null }, findingFilter: null, activePanel: 'tensors' });
      get().refreshTable();
    },
    clearFindingFilter: () => {
      set({ findingFilter: null, query: { ...get().query, rows: null } });
      get().refreshTable();
    },
    refreshTable: () => {
      const load = get().load;
      if (load.status !== 'ready' || load.result.outcome.kind !== 'parsed') {
        return;
      }
      const loadId = load.result.loadId;
      const local = fileOrderAnswer(get().query, load.result.outcome.header.tensors.count);
      set({ tableBusy: true });
      queries.run(
        get().query.filter,
        // Answered in the page, but a task later, so the table's first render does not lengthen the task that took
        // in the result.
        () => (local ? nextTask().then(() => local) : queryTable(loadId, get().query)),
        () => {
          const now = get().load;
          return now.status === 'ready' && now.result.loadId === loadId;
        },
      );
    },
    resetViewForNewSource: () => {
      queries.invalidate();
      set({
        order: null,
        filterError: null,
        tableBusy: false,
        selectedRow: null,
        findingFilter: null,
        query: DEFAULT_QUERY,
      });
    },
  };
};
