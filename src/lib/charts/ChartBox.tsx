/**
 * A chart in a box of its final height. The box is drawn with the view; the chart (recharts, loaded on first use)
 * mounts in its turn, a task or more later, in a transition (lib/mount-in-turn: one chart commit per task), so
 * neither the download nor the chart's commit lands in the task that opened the view. The box measures its own width
 * and hands it to the chart: recharts' ResponsiveContainer would render the chart once at width 0, measure, and
 * render it again in the same task. The tooltip joins the chart when the pointer or the focus first enters the box.
 */
import { Suspense, useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useMountInTurn } from '../mount-in-turn';
import { ChartLoadBoundary } from './ChartLoadBoundary';

/** What the box hands its chart: the width to draw at, whether the tooltip is wanted, and the call after its commit. */
export interface ChartBoxProps {
  width: number;
  tooltip: boolean;
  onMounted: () => void;
}

export function ChartBox({
  height,
  label,
  children,
}: {
  /** Pixels; the box has this height before the chart is drawn, so nothing moves when it arrives. */
  height: number;
  /** The chart's accessible name, when the box stands for it. */
  label?: string;
  /** The lazily loaded chart, drawn once the box has a width and its turn came. */
  children: (props: ChartBoxProps) => ReactNode;
}) {
  const { mounted, done } = useMountInTurn();
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
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
      style={{ height }}
      onPointerEnter={wantTooltip}
      onFocus={wantTooltip}
      {...(label !== undefined && { role: 'img', 'aria-label': label })}
    >
      {mounted && width > 0 && (
        <ChartLoadBoundary onError={done}>
          <Suspense fallback={null}>{children({ width, tooltip, onMounted: done })}</Suspense>
        </ChartLoadBoundary>
      )}
    </div>
  );
}
