/**
 * User Timing marks for the benchmarks (scripts/bench*.ts read them): when a load starts, when its first table rows
 * are painted, when the report is complete, and when the views built after it have landed. Marks are cheap and
 * invisible; nothing else in the app reads them.
 */
import { afterNextPaint } from './after-paint';

const MARK_LOAD_START = 'lens:load-start';
const MARK_FIRST_ROWS = 'lens:first-rows';
const MARK_LOAD_DONE = 'lens:load-done';
/** After load-done: the view sections (the Modules tab's tree) have landed too. */
const MARK_VIEWS_DONE = 'lens:views-done';

let firstRowsMarkedFor: number | null = null;

export function markLoadStart(loadId: number): void {
  firstRowsMarkedFor = null;
  performance.clearMarks(MARK_LOAD_START);
  performance.clearMarks(MARK_FIRST_ROWS);
  performance.clearMarks(MARK_LOAD_DONE);
  performance.clearMarks(MARK_VIEWS_DONE);
  performance.mark(MARK_LOAD_START, { detail: { loadId } });
}

/** Called after rows render; the mark lands on the next frame, after the browser painted them. */
export function markFirstRowsPainted(loadId: number): void {
  if (firstRowsMarkedFor === loadId) {
    return;
  }
  firstRowsMarkedFor = loadId;
  afterNextPaint(() => performance.mark(MARK_FIRST_ROWS, { detail: { loadId } }));
}

export function markLoadDone(loadId: number): void {
  performance.mark(MARK_LOAD_DONE, { detail: { loadId } });
  // The complete report as the user sees it: the frame after the store took it in.
  afterNextPaint(() => markStep('report-painted'));
}

export function markViewsDone(loadId: number): void {
  performance.mark(MARK_VIEWS_DONE, { detail: { loadId } });
}

/** Prefix of the load-step marks the remote benchmark prints as a timeline (`BENCH_TIMELINE=1`). */
const STEP_MARK_PREFIX = 'lens:step:';

/**
 * A User Timing mark for one step of a load (index parsed, a shard's header, each analysis, publish), in whichever
 * thread it runs; the remote benchmark reads the page's and the worker's marks to print where the time goes.
 */
export function markStep(step: string): void {
  performance.mark(STEP_MARK_PREFIX + step);
}

/** Forgets the previous load's step marks, so a long-lived worker does not collect them without end. */
export function clearStepMarks(): void {
  for (const entry of performance.getEntriesByType('mark')) {
    if (entry.name.startsWith(STEP_MARK_PREFIX)) {
      performance.clearMarks(entry.name);
    }
  }
}
