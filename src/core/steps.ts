/**
 * Work written as a generator that yields at points where it may pause: run in one go where nothing waits (tests,
 * sync callers), or in slices by the worker (worker/publish.ts), where a message for a new load must not wait for a
 * large build to end.
 */

/** A computation that yields (nothing) where it may pause and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end without pausing. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) {
      return step.value;
    }
  }
}
