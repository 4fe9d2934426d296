/** What the user is looking at: table query, selection, active panel, chart metric. Shareable parts go in URLs. */
import type { StateCreator } from 'zustand';
import { DEFAULT_QUERY, type TableQuery } from '../core/table-query';
import { QueryTimeout, queryTable } from '../worker/client';
import { hungFilterNotice, queryHung } from './source-loader';
import type { AppState } from './store';

export const PANELS = [
  'tensors',
  'checkpoint',
  'gguf',
  'modules',
  'dtypes',
  'quantization',
  'model',
  'memory',
  'metadata',
  'shards',
  'compare',
] as const;
export type Panel = (typeof PANELS)[number];

export const CHART_METRICS = ['tensors', 'elements', 'bytes'] as const;
export type ChartMetric = (typeof CHART_METRICS)[number];

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
  /** The finding whose tensors currently restrict the table, for the "showing N tensors of finding X" chip. */
  findingFilter: { code: string; count: number } | null;
  setQuery: (patch: Partial<TableQuery>) => void;
  selectRow: (row: number | null) => void;
  setPanel: (panel: Panel) => void;
  setChartMetric: (metric: ChartMetric) => void;
  showFindingTensors: (code: string, rows: number[]) => void;
  /** Filters the table to one module-tree node and switches to the table. */
  showModule: (pattern: string) => void;
  clearFindingFilter: () => void;
  refreshTable: () => void;
  resetViewForNewSource: () => void;
}

let queryVersion = 0;
/** The filter of the last query the watchdog stopped, for the notice a newer query may have to give. */
let stoppedFilter: string | null = null;

export const createViewSlice: StateCreator<AppState, [], [], ViewSlice> = (set, get) => ({
  query: DEFAULT_QUERY,
  order: null,
  filterError: null,
  tableBusy: false,
  tableNotice: null,
  selectedRow: null,
  activePanel: 'tensors',
  chartMetric: 'bytes',
  findingFilter: null,

  setQuery: (patch) => {
    set({ query: { ...get().query, ...patch }, tableNotice: null });
    get().refreshTable();
  },
  selectRow: (row) => set({ selectedRow: row }),
  setPanel: (panel) => set({ activePanel: panel }),
  setChartMetric: (metric) => set({ chartMetric: metric }),
  showFindingTensors: (code, rows) => {
    set({
      findingFilter: { code, count: rows.length },
      query: { ...get().query, rows, filter: '', dtypes: [], module: '' },
      selectedRow: rows[0] ?? null,
      activePanel: 'tensors',
    });
    get().refreshTable();
  },
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
    const version = ++queryVersion;
    const loadId = load.result.loadId;
    const sentFilter = get().query.filter;
    set({ tableBusy: true });
    void queryTable(loadId, get().query).then(
      ({ order, filterError }) => {
        const now = get().load;
        // Drop answers for an older query or a source that has since been replaced.
        if (version !== queryVersion || now.status !== 'ready' || now.result.loadId !== loadId) {
          return;
        }
        set({ order, filterError, tableBusy: false });
      },
      (error: unknown) => {
        if (error instanceof QueryTimeout) {
          stoppedFilter = sentFilter;
        }
        if (version === queryVersion) {
          set({ tableBusy: false });
        }
        // Only the latest query recovers. When an older query hangs (a share link's filter applied twice, say), the
        // watchdog's worker restart fails the latest one with a LoadFailure instead: it must recover just the same,
        // or the table waits forever on a worker that no longer exists.
        if (version !== queryVersion || !queryHung(error)) {
          return;
        }
        const hungFilter = stoppedFilter ?? sentFilter;
        stoppedFilter = null;
        // The worker was replaced and its rows are gone: reopen the source without the filter that hung.
        const source = get().lastSource;
        if (source) {
          void get().openSource(source);
        }
        set({ tableNotice: hungFilterNotice(hungFilter, 'the file was') });
      },
    );
  },
  resetViewForNewSource: () => {
    queryVersion++;
    set({
      order: null,
      filterError: null,
      tableBusy: false,
      selectedRow: null,
      findingFilter: null,
      query: DEFAULT_QUERY,
    });
  },
});
