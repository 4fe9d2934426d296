/** Tick labels of the app's recharts charts (lib/bars/Bars.tsx, lib/lines/Lines.tsx), in the chunk with recharts. */
import type { XAxisTickContentProps, YAxisTickContentProps } from 'recharts';

/** Baseline shifts of a one-line SVG label, as recharts' own `Text` sets them (0.71em is the cap height). */
const TICK_DY = { start: '0.71em', middle: '0.355em', end: '0' } as const;

/**
 * One tick label as a plain SVG text. recharts' own `Text` measures every word of a label in the DOM to wrap it to
 * the axis width (a forced layout per new label, about a tenth of a chart's first commit); these labels are one
 * line, already fitted (category labels elided to the axis, intervals estimated), so there is nothing to wrap.
 * The label does not carry recharts' tick class (`recharts-cartesian-axis-tick-value`): an axis reads the computed
 * style of the first element with it while it mounts (a forced style pass in the chart's commit) and renders again
 * with the font it found, which only its own `Text` uses.
 */
export function TickLabel(props: XAxisTickContentProps | YAxisTickContentProps) {
  const { x, y, textAnchor, verticalAnchor, fill, index, payload, tickFormatter } = props;
  return (
    <text x={x} y={y} dy={TICK_DY[verticalAnchor]} textAnchor={textAnchor} fill={fill}>
      {tickFormatter ? tickFormatter(payload.value, index) : String(payload.value)}
    </text>
  );
}
