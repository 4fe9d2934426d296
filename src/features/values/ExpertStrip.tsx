/**
 * One bar per expert of a compared stack (core/values/expert-changes.ts), its height the expert's relative change
 * against the most changed one; an expert left bit for bit as it was is a dot on the baseline, one not read (a
 * remote sample) a gap. Shows at a glance whether a fine-tune moved a few experts or all of them.
 */
import { formatPercent, formatValue } from '../../core/number-format';
import type { ExpertChanges } from '../../core/values/expert-changes';

/** Widest a bar is drawn, in px; many experts share the strip's width instead. */
const BAR_PX = 6;
/** The strip's width at most, in px. */
const STRIP_PX = 320;
const HEIGHT_PX = 24;

export function ExpertStrip({ experts }: { experts: ExpertChanges }) {
  const step = Math.min(BAR_PX, STRIP_PX / experts.experts);
  const width = step * experts.experts;
  const top = Math.max(0, ...experts.read.map((expert) => expert.relL2 ?? 0));
  return (
    <svg
      className="values-expert-strip"
      width={width}
      height={HEIGHT_PX}
      viewBox={`0 0 ${width} ${HEIGHT_PX}`}
      role="img"
      aria-label={`relative change of each of ${experts.experts} experts`}
      data-testid="compare-values-expert-strip"
    >
      <line x1={0} x2={width} y1={HEIGHT_PX - 0.5} y2={HEIGHT_PX - 0.5} className="values-expert-baseline" />
      {experts.read.map((expert) => {
        const changed = expert.changedShare > 0;
        const share = expert.relL2 === null ? 1 : top > 0 ? expert.relL2 / top : 0;
        const height = changed ? Math.max(2, share * (HEIGHT_PX - 2)) : 1;
        return (
          <rect
            key={expert.expert}
            x={expert.expert * step + step * 0.1}
            y={HEIGHT_PX - height}
            width={Math.max(0.5, step * 0.8)}
            height={height}
            className={changed ? 'values-expert-changed' : 'values-expert-same'}
          >
            <title>
              {changed
                ? `expert ${expert.expert}: relative L2 ${formatValue(expert.relL2)}, ${formatPercent(expert.changedShare, 1)} of values changed`
                : `expert ${expert.expert}: bit for bit the same`}
            </title>
          </rect>
        );
      })}
    </svg>
  );
}
