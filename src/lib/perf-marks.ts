/**
 * User Timing marks for the benchmark (scripts/bench.ts reads them): when a load starts and when its first table
 * rows are painted. Marks are cheap and invisible; nothing else reads them.
 */
export const MARK_LOAD_START = 'lens:load-start';
export const MARK_FIRST_ROWS = 'lens:first-rows';
export const MARK_LOAD_DONE = 'lens:load-done';

let firstRowsMarkedFor: number | null = null;

export function markLoadStart(loadId: number): void {
  firstRowsMarkedFor = null;
  performance.clearMarks(MARK_LOAD_START);
  performance.clearMarks(MARK_FIRST_ROWS);
  performance.clearMarks(MARK_LOAD_DONE);
  performance.mark(MARK_LOAD_START, { detail: { loadId } });
}

/** Called after rows render; the mark lands on the next frame, after the browser painted them. */
export function markFirstRowsPainted(loadId: number): void {
  if (firstRowsMarkedFor === loadId) {
    return;
  }
  firstRowsMarkedFor = loadId;
  requestAnimationFrame(() => setTimeout(() => performance.mark(MARK_FIRST_ROWS, { detail: { loadId } }), 0));
}

export function markLoadDone(loadId: number): void {
  performance.mark(MARK_LOAD_DONE, { detail: { loadId } });
}
