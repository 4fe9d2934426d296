/**
 * A bar chart in a box of its final height. The box is drawn with the view; the chart (recharts, loaded on first use)
 * mounts `afterTasks` tasks later in a transition (lib/mount-after-paint), so neither the download nor the chart's
 * commit lands in the task that opened the view.
 */
import { lazy, Suspense } from 'react';
import { useMountedAfterFirstPaint } from '../mount-after-paint';
import type { BarsSpec } from './bars-spec';

const Bars = lazy(() => import('./Bars'));

export function BarsChart<Row extends object>({ afterTasks = 1, ...spec }: BarsSpec<Row> & { afterTasks?: number }) {
  const mounted = useMountedAfterFirstPaint(afterTasks);
  return (
    <div className="chart-box" style={{ height: spec.height }}>
      {mounted && (
        <Suspense fallback={null}>
          <Bars {...(spec as unknown as BarsSpec<Record<string, unknown>>)} />
        </Suspense>
      )}
    </div>
  );
}
