/**
 * Mounting a recharts tree costs 50–100 ms whatever the input (its store, axes and ResizeObserver in one commit), and
 * a commit is never time-sliced. A view that holds charts therefore draws its cheap parts in the click's own task
 * and mounts each chart in a transition some tasks later, so no single task blocks the page for the whole view.
 */
import { startTransition, useEffect, useState } from 'react';

/**
 * False on the first render, true `afterTasks` macrotasks later (a transition). Give each chart of a view its own
 * `afterTasks` so their commits land in separate tasks instead of one.
 */
export function useMountedAfterFirstPaint(afterTasks = 1): boolean {
  const [mounted, setMounted] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const step = (left: number) => {
      timer = setTimeout(() => (left > 1 ? step(left - 1) : startTransition(() => setMounted(true))), 0);
    };
    step(afterTasks);
    return () => clearTimeout(timer);
  }, [afterTasks]);
  return mounted;
}
