/**
 * A bar chart in a box of its final height. The box is drawn with the view; the chart (recharts, loaded on first use)
 * mounts in its turn, a task or more later, in a transition (lib/mount-in-turn: one chart commit per task), so
 * neither the download nor the chart's commit lands in the task that opened the view. The box measures its own width
 * and hands it to the chart: recharts' ResponsiveContainer would render the chart once at width 0, measure, and
 * render it again in the same task. The tooltip joins the chart when the pointer or the focus first enters the box.
 */
import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useMountInTurn } from '../mount-in-turn';
import type { BarsSpec } from './bars-spec';
import { ChartLoadBoundary } from './ChartLoadBoundary';

const Bars = lazy(() => import('./Bars'));

export function BarsChart<Row extends object>(spec: BarsSpec<Row>) {
  const { mounted, done } = useMountInTurn();
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  // The tooltip mounts with the first pointer or focus in the box, not with the chart (lib/bars/Bars.tsx).
  const [tooltip, setTooltip] = useState(false);
  const wantTooltip = useCallback(() => setTooltip(true), []);
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) {
      return;
    }
    setWidth(Math.floor(element.clientWidth));
    if (typeof ResizeObserver === 'undefined') {
      return;
    }
    const observer = new ResizeObserver(() => setWidth(Math.floor(element.clientWidth)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    // A box with no width (a hidden view) draws no chart yet: let the next chart have its turn meanwhile.
    if (mounted && width === 0) {
      done();
    }
  }, [mounted, width, done]);
  return (
    <div
      ref={box}
      className="chart-box"
      style={{ height: spec.height }}
      onPointerEnter={wantTooltip}
      onFocus={wantTooltip}
    >
      {mounted && width > 0 && (
        <ChartLoadBoundary onError={done}>
          <Suspense fallback={null}>
            <Bars
              {...(spec as unknown as BarsSpec<Record<string, unknown>>)}
              width={width}
              tooltip={tooltip}
              onMounted={done}
            />
          </Suspense>
        </ChartLoadBoundary>
      )}
    </div>
  );
}
