/**
 * One bar per expert of a stack: in "Compare values" each expert's relative change (an expert left bit for bit as it
 * was a dot on the baseline), in "Read values" each expert's RMS (one that stands out in the accent colour). An expert
 * not read (a remote sample) is a gap. Shows at a glance whether a fine-tune moved a few experts or all of them, and
 * which expert is out of scale.
 */

/** Widest a bar is drawn, in px; many experts share the strip's width instead. */
const BAR_PX = 6;
/** The strip's width at most, in px. */
const STRIP_PX = 320;
const HEIGHT_PX = 24;

export interface ExpertBar {
  expert: number;
  /** The bar's height as a share of the strip's, 0 to 1; null draws the baseline dot. */
  height: number | null;
  /** Drawn in the accent colour: changed, or standing out. */
  marked: boolean;
  title: string;
}

export function ExpertStrip({
  bars,
  experts,
  label,
  testId,
}: {
  bars: readonly ExpertBar[];
  experts: number;
  label: string;
  testId: string;
}) {
  const step = Math.min(BAR_PX, STRIP_PX / experts);
  const width = step * experts;
  return (
    <svg
      className="values-expert-strip"
      width={width}
      height={HEIGHT_PX}
      viewBox={`0 0 ${width} ${HEIGHT_PX}`}
      role="img"
      aria-label={label}
      data-testid={testId}
    >
      <line x1={0} x2={width} y1={HEIGHT_PX - 0.5} y2={HEIGHT_PX - 0.5} className="values-expert-baseline" />
      {bars.map((bar) => {
        const height = bar.height === null ? 1 : Math.max(2, bar.height * (HEIGHT_PX - 2));
        return (
          <rect
            key={bar.expert}
            x={bar.expert * step + step * 0.1}
            y={HEIGHT_PX - height}
            width={Math.max(0.5, step * 0.8)}
            height={height}
            className={bar.marked ? 'values-expert-changed' : 'values-expert-same'}
          >
            <title>{bar.title}</title>
          </rect>
        );
      })}
    </svg>
  );
}
