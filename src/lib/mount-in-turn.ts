/**
 * Mounting a recharts chart costs 40–60 ms whatever the input (its store, axes and first layout in one commit, even
 * with the plain ticks and bars of lib/bars/Bars.tsx), and a commit is never time-sliced. A view that holds charts
 * therefore draws its cheap parts in the click's own task, and its charts mount one at a time afterwards: each in a
 * transition of its own, the next only once the previous chart has committed (not just its Suspense fallback while
 * its code downloads). Two charts started together would otherwise be rendered and committed as one (their
 * transitions merge), which made one 150 ms task where two of 55–60 ms were intended.
 */
import { startTransition, useEffect, useState } from 'react';

interface Ticket {
  mount: () => void;
}

/** Charts waiting for their turn, in the order they asked. */
const waiting: Ticket[] = [];
/** The chart whose mount has been started and not yet committed. */
let mounting: Ticket | null = null;

function startNext(): void {
  if (mounting !== null) {
    return;
  }
  const next = waiting.shift();
  if (!next) {
    return;
  }
  mounting = next;
  // A task after the one that asked (or that committed the previous chart), so the page paints in between.
  setTimeout(() => {
    if (mounting === next) {
      startTransition(next.mount);
    }
  }, 0);
}

function release(ticket: Ticket): void {
  const at = waiting.indexOf(ticket);
  if (at >= 0) {
    waiting.splice(at, 1);
  }
  if (mounting === ticket) {
    mounting = null;
    startNext();
  }
}

/**
 * `mounted` is false on the first render and turns true when this component's turn has come (at least a task later).
 * Call `done` once what was mounted has committed (from an effect of the mounted component): the next waiting
 * component then gets its turn. Unmounting also hands the turn on.
 */
export function useMountInTurn(): { mounted: boolean; done: () => void } {
  const [mounted, setMounted] = useState(false);
  const [ticket] = useState<Ticket>(() => ({ mount: () => setMounted(true) }));
  useEffect(() => {
    waiting.push(ticket);
    startNext();
    return () => release(ticket);
  }, [ticket]);
  const [done] = useState(() => () => release(ticket));
  return { mounted, done };
}
