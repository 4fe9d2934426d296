/**
 * Keeps the address bar and the store in step (see docs/architecture: Perfetto's idempotent `?url=` handling).
 * - On boot, `?url=` loads that source and restores the view state once it is ready.
 * - Loading a new URL source pushes a history entry, so Back and Forward move between sources.
 * - View changes (filter, sort, row, panel) replace the current entry.
 * - Local files never enter the URL: their names stay on this machine.
 */
import { decodeShareState, encodeShareState, type ShareState } from '../state/share-state';
import { useAppStore, type AppState } from '../state/store';
import { valuesOf } from '../state/values-slice';

/** Typing in the filter would otherwise write a history entry per keystroke. */
const REPLACE_DEBOUNCE_MS = 250;

function currentShareState(state: AppState): ShareState | null {
  if (state.load.status !== 'ready' || state.load.result.source.kind !== 'url') {
    return null;
  }
  const { query } = state;
  return {
    url: state.load.result.source.input,
    select: state.load.result.source.select,
    compare: state.compareSpec?.kind === 'url' ? state.compareSpec.url : undefined,
    filter: query.filter || undefined,
    sortKey: query.sortKey,
    descending: query.descending,
    row: state.selectedRow ?? undefined,
    panel: state.activePanel,
    dtype: query.dtypes[0],
    values: state.selectedRow !== null && valuesOf(state, state.selectedRow) !== null ? true : undefined,
  };
}

function applyViewState(view: ShareState): void {
  const store = useAppStore.getState();
  if (view.panel) {
    store.setPanel(view.panel);
  }
  store.setQuery({
    filter: view.filter ?? '',
    sortKey: view.sortKey ?? 'index',
    descending: view.descending ?? false,
    dtypes: view.dtype ? [view.dtype] : [],
  });
  if (view.row !== undefined) {
    store.selectRow(view.row);
    if (view.values) {
      // The default read only (whole up to the remote limit, else a row sample): reading more takes a click.
      store.readTensorValues(view.row, false);
    }
  }
}

/** Rejected parameters are reported once, so a bad share link says what it ignored instead of failing silently. */
function loadFromLocation(): void {
  const { state, rejected } = decodeShareState(window.location.search);
  const store = useAppStore.getState();
  store.setShareWarnings(rejected.map((entry) => `Ignored "${entry.param}" in the link: ${entry.reason}.`));
  if (!state.url) {
    return;
  }
  openCompareFromLink(state.compare);
  const loadedInput =
    store.load.status === 'ready' && store.load.result.source.kind === 'url' ? store.load.result.source.input : null;
  const loadedSelect =
    store.load.status === 'ready' && store.load.result.source.kind === 'url'
      ? store.load.result.source.select
      : undefined;
  if (loadedInput === state.url && loadedSelect === state.select) {
    applyViewState(state);
    return;
  }
  pendingView = state;
  void store.openSource({ kind: 'url', url: state.url, select: state.select });
}

/** `compare=` opens B (compare mode) once per distinct URL; it loads alongside A, and the diff runs when both are in. */
function openCompareFromLink(compare: string | undefined): void {
  const store = useAppStore.getState();
  const open = store.compareSpec;
  if (!compare || (open?.kind === 'url' && open.url === compare)) {
    return;
  }
  void store.openCompareSource({ kind: 'url', url: compare });
}

let pendingView: ShareState | null = null;
let replaceTimer: ReturnType<typeof setTimeout> | undefined;

export function installUrlSync(): () => void {
  loadFromLocation();
  const onPopState = () => loadFromLocation();
  window.addEventListener('popstate', onPopState);

  const unsubscribe = useAppStore.subscribe((state, previous) => {
    const becameReady =
      state.load.status === 'ready' &&
      (previous.load.status !== 'ready' || previous.load.result.loadId !== state.load.result.loadId);
    if (becameReady && pendingView) {
      const view = pendingView;
      pendingView = null;
      applyViewState(view);
      return;
    }
    const share = currentShareState(state);
    if (!share) {
      if (becameReady && window.location.search) {
        // A local file replaced a URL source: drop the stale link rather than advertise the wrong source.
        history.pushState(null, '', window.location.pathname);
      }
      return;
    }
    const search = encodeShareState(share);
    if (search === window.location.search) {
      return;
    }
    const previousShare = decodeShareState(window.location.search).state;
    // Another repository model (`model=`) is another source too: it gets its own history entry.
    if (becameReady && (previousShare.url !== share.url || previousShare.select !== share.select)) {
      history.pushState(null, '', `${window.location.pathname}${search}`);
      return;
    }
    clearTimeout(replaceTimer);
    replaceTimer = setTimeout(() => {
      const latest = currentShareState(useAppStore.getState());
      if (latest) {
        history.replaceState(null, '', `${window.location.pathname}${encodeShareState(latest)}`);
      }
    }, REPLACE_DEBOUNCE_MS);
  });
  return () => {
    window.removeEventListener('popstate', onPopState);
    unsubscribe();
    clearTimeout(replaceTimer);
  };
}
