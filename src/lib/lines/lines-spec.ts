/** What a line chart of the app shows: values over a numeric axis (a training run's steps), drawn by Lines.tsx. */
export interface LineSeries {
  /** The series' name in the legend and the tooltip (`loss`, `eval_loss`). */
  name: string;
  /** Where each value sits along the axis, ascending, one per value. */
  xs: readonly number[];
  values: readonly number[];
  /** A CSS colour (the theme's variables work). */
  color: string;
  dashed?: boolean;
}

export interface LinesSpec {
  series: readonly LineSeries[];
  /** Pixels; the chart's box has this height before the chart is drawn. */
  height: number;
  /** The axis' name in the tooltip (`step`). */
  xName: string;
  formatValue: (value: number) => string;
  /** A logarithmic value axis (every value must then be positive). */
  logScale?: boolean;
  /** A dashed vertical line at `x`, named by `label` (the best checkpoint's step). */
  marker?: { x: number; label: string };
  /** The axis' extent, when it is more than the points span (a run whose last values were not finite). */
  xDomain?: readonly [number, number];
  /** A band shaded from `from` to `to`, named by `label` (where a run had diverged). */
  shade?: { from: number; to: number; label: string };
}
