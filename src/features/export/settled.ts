/**
 * Exports wait for the analyses: the first result arrives as soon as the header is parsed, and the quantization,
 * architecture and LoRA sections (and any data-region reads) follow up to a few seconds later. A report taken in
 * between would silently lack them, so a download waits until they land, and names what is still pending if they
 * never do.
 */
import type { LoadResult } from '../../core/result';
import { selectSidecarsReading } from '../../state/selectors';
import { useAppStore } from '../../state/store';

/** Longest wait before exporting what there is: the analyses of a 250,000-tensor header take about a second. */
const EXPORT_WAIT_MS = 20_000;

/** The analysis sections a report lacks while `analysisPending` is set. */
export const PENDING_WHILE_ANALYSING = ['quantization', 'architecture', 'lora', 'metadataInsights', 'moduleTree'];

/**
 * Resolves with the current result of load `loadId` once `ready` holds for it (and, for the table, once no query
 * is in flight), or with whatever there is after `timeoutMs`; null when the user opened something else meanwhile.
 */
export function whenSettled(
  loadId: number,
  options: { table?: boolean; timeoutMs?: number } = {},
): Promise<LoadResult | null> {
  const check = (): LoadResult | null | undefined => {
    const state = useAppStore.getState();
    if (state.load.status !== 'ready' || state.load.result.loadId !== loadId) {
      return null;
    }
    const result = state.load.result;
    // The views (the module tree) follow the analyses, and a config.json being read on demand re-runs the analyses
    // that read it: the report waits for those too.
    if (result.analysisPending || result.viewsPending || selectSidecarsReading(state)) {
      return undefined;
    }
    if (options.table && (state.tableBusy || state.order === null)) {
      return undefined;
    }
    return result;
  };
  const now = check();
  if (now !== undefined) {
    return Promise.resolve(now);
  }
  return new Promise((resolve) => {
    const finish = (result: LoadResult | null) => {
      clearTimeout(timer);
      unsubscribe();
      resolve(result);
    };
    const unsubscribe = useAppStore.subscribe(() => {
      const settled = check();
      if (settled !== undefined) {
        finish(settled);
      }
    });
    const timer = setTimeout(() => {
      const state = useAppStore.getState();
      finish(state.load.status === 'ready' && state.load.result.loadId === loadId ? state.load.result : null);
    }, options.timeoutMs ?? EXPORT_WAIT_MS);
  });
}
