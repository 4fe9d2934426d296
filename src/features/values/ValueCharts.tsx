/**
 * The pictures of a tensor's values: a histogram (linear or log counts), a heatmap of a matrix (cell means on a
 * diverging palette centred on zero, rows and columns labelled), and a line of a 1-D tensor (cell mean, with the
 * min–max band). Plain SVG and one small canvas: at most 96 × 192 cells, drawn in well under a frame.
 */
import { useEffect, useRef } from 'react';
import { formatValue, groupDigits } from '../../core/number-format';
import type { ValueGrid } from '../../core/values/grid';
import { stacksText, type StackLayer } from '../../core/values/layer-names';
import type { Histogram } from '../../core/values/value-stats';

const WIDTH = 480;
const HEIGHT = 140;

export function HistogramChart({ histogram, log }: { histogram: Histogram; log: boolean }) {
  const { counts, edges } = histogram;
  const scaled = counts.map((count) => (log ? Math.log10(count + 1) : count));
  const top = Math.max(...scaled, 1e-9);
  const bar = WIDTH / counts.length;
  const peak = Math.max(...counts);
  return (
    <figure className="values-figure" data-testid="values-histogram">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT + 18}`} role="img" aria-label={`Histogram of ${counts.length} bins`}>
        {scaled.map((value, i) => {
          const h = (value / top) * HEIGHT;
          return (
            <rect key={i} x={i * bar} y={HEIGHT - h} width={Math.max(1, bar - 1)} height={h} className="values-bar">
              <title>
                [{formatValue(edges[i])}, {formatValue(edges[i + 1])}): {groupDigits(counts[i])} values
              </title>
            </rect>
          );
        })}
        <line x1={0} x2={WIDTH} y1={HEIGHT} y2={HEIGHT} className="values-axis" />
        <text x={0} y={HEIGHT + 14} className="values-tick">
          {formatValue(edges[0])}
        </text>
        <text x={WIDTH} y={HEIGHT + 14} textAnchor="end" className="values-tick">
          {formatValue(edges[edges.length - 1])}
        </text>
      </svg>
      <figcaption>
        {counts.length} bins over [min, max] of the finite values; {log ? 'log' : 'linear'} counts, tallest bar{' '}
        {groupDigits(peak)} values
      </figcaption>
    </figure>
  );
}

/** Blue (negative) → white (0) → red (positive), scaled to the larger magnitude. */
function diverging(value: number, scale: number): [number, number, number] {
  const t = Math.max(-1, Math.min(1, value / scale));
  if (t >= 0) {
    return [255, Math.round(255 * (1 - t * 0.85)), Math.round(255 * (1 - t * 0.9))];
  }
  const u = -t;
  return [Math.round(255 * (1 - u * 0.9)), Math.round(255 * (1 - u * 0.7)), 255];
}

export function Heatmap({ grid, sampled }: { grid: ValueGrid; sampled: boolean }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  // The colour scale ends at the 99th percentile of |cell mean|, so one outlier cell does not wash out the rest.
  const magnitudes = Array.from(grid.mean, Math.abs)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const scale = magnitudes[Math.floor(0.99 * (magnitudes.length - 1))] ?? 0;
  const clipped = magnitudes.length > 0 && magnitudes[magnitudes.length - 1] > scale;
  useEffect(() => {
    const context = canvas.current?.getContext('2d');
    if (!context) {
      return;
    }
    const image = context.createImageData(grid.gridCols, grid.gridRows);
    for (let i = 0; i < grid.mean.length; i++) {
      const value = grid.mean[i];
      const [r, g, b] = Number.isFinite(value) ? diverging(value, scale || 1) : [200, 200, 200];
      image.data.set([r, g, b, Number.isFinite(value) ? 255 : 60], i * 4);
    }
    context.putImageData(image, 0, 0);
  }, [grid, scale]);
  const rowsPerCell = grid.rows / grid.gridRows;
  const colsPerCell = grid.cols / grid.gridCols;
  return (
    <figure className="values-figure" data-testid="values-heatmap">
      <div className="values-heatmap-frame">
        <span className="values-axis-label values-axis-rows">rows 0 → {groupDigits(grid.rows - 1)}</span>
        <canvas
          ref={canvas}
          width={grid.gridCols}
          height={grid.gridRows}
          className="values-heatmap"
          role="img"
          aria-label={`Heatmap of ${grid.rows} rows by ${grid.cols} columns`}
        />
        <span className="values-axis-label">columns 0 → {groupDigits(grid.cols - 1)}</span>
      </div>
      <figcaption>
        {groupDigits(grid.rows)} rows × {groupDigits(grid.cols)} columns as {grid.gridRows} × {grid.gridCols} cells
        {rowsPerCell > 1 || colsPerCell > 1
          ? ` (each the mean of ${formatValue(rowsPerCell)} × ${formatValue(colsPerCell)} values)`
          : ''}
        ; blue −{formatValue(scale)}, white 0, red +{formatValue(scale)}
        {clipped ? ' (1% of cells lie beyond and show at full colour)' : ''}
        {sampled ? '; grey rows were not in the sample' : ''}
      </figcaption>
    </figure>
  );
}

/** Height kept above and below a line chart's plot for its largest and smallest values' labels. */
const LINE_LABEL_BAND = 14;

export function LineChart({ grid }: { grid: ValueGrid }) {
  const n = grid.gridCols;
  let low = Infinity;
  let high = -Infinity;
  for (let i = 0; i < n; i++) {
    if (Number.isFinite(grid.min[i])) {
      low = Math.min(low, grid.min[i]);
      high = Math.max(high, grid.max[i]);
    }
  }
  if (!Number.isFinite(low)) {
    return null;
  }
  const span = high - low || 1;
  const x = (i: number) => (n === 1 ? WIDTH / 2 : (i / (n - 1)) * WIDTH);
  // The extremes' labels have bands of their own, above and below the plot, so neither sits on the line.
  const y = (v: number) => HEIGHT - LINE_LABEL_BAND - ((v - low) / span) * (HEIGHT - 2 * LINE_LABEL_BAND);
  const points = (values: Float32Array) =>
    Array.from({ length: n }, (_, i) => (Number.isFinite(values[i]) ? `${x(i)},${y(values[i])}` : '')).filter(Boolean);
  const band = [...points(grid.max), ...points(grid.min).reverse()].join(' ');
  return (
    <figure className="values-figure" data-testid="values-line">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT + 18}`} role="img" aria-label={`Values of ${grid.cols} elements`}>
        <polygon points={band} className="values-band" />
        <polyline points={points(grid.mean).join(' ')} className="values-line" />
        <text x={0} y={HEIGHT + 14} className="values-tick">
          index 0
        </text>
        <text x={WIDTH} y={HEIGHT + 14} textAnchor="end" className="values-tick">
          {groupDigits(grid.cols - 1)}
        </text>
        <text x={2} y={10} className="values-tick">
          {formatValue(high)}
        </text>
        <text x={2} y={HEIGHT - 2} className="values-tick">
          {formatValue(low)}
        </text>
      </svg>
      <figcaption>
        {groupDigits(grid.cols)} values
        {n < grid.cols ? ` in ${n} points (mean, with each point's min–max band)` : ''}
      </figcaption>
    </figure>
  );
}

const BAR_CHART_WIDTH = 480;
const BAR_CHART_HEIGHT = 120;
/** Labels under every bar up to this many bars (11 px labels on a 480-unit chart); beyond, the first and last. */
const MAX_LABELLED_BARS = 48;

export interface Bar {
  key: string;
  /** Under the bar (layer numbers); long labels are left to the tooltip. */
  label: string;
  value: number;
  /** The tooltip: what the bar stands for, with its figure. */
  title: string;
}

/** Bars scaled to the tallest, each with its tooltip: the per-layer charts of the value views. */
export function BarChart({
  bars,
  label,
  caption,
  testId,
}: {
  bars: readonly Bar[];
  label: string;
  caption: string;
  testId: string;
}) {
  if (bars.length === 0) {
    return null;
  }
  const top = Math.max(...bars.map((bar) => bar.value), 1e-12);
  const width = BAR_CHART_WIDTH / bars.length;
  const labelled = (i: number) =>
    bars.length <= MAX_LABELLED_BARS || i === 0 || i === bars.length - 1 ? bars[i].label.length <= 6 : false;
  return (
    <figure className="values-figure" data-testid={testId}>
      <svg viewBox={`0 0 ${BAR_CHART_WIDTH} ${BAR_CHART_HEIGHT + 16}`} role="img" aria-label={label}>
        {bars.map((bar, i) => {
          const h = (bar.value / top) * BAR_CHART_HEIGHT;
          return (
            <rect
              key={bar.key}
              x={i * width}
              y={BAR_CHART_HEIGHT - h}
              width={Math.max(1, width - 1)}
              height={h}
              className="values-bar"
            >
              <title>{bar.title}</title>
            </rect>
          );
        })}
        {bars.map((bar, i) => {
          if (!labelled(i)) {
            return null;
          }
          // Narrow bars: the first and last labels start and end at the chart's edges, not beyond them.
          const edge = width < 24 && (i === 0 || i === bars.length - 1);
          const anchor = edge ? (i === 0 ? 'start' : 'end') : 'middle';
          const x = edge ? (i === 0 ? 0 : BAR_CHART_WIDTH) : i * width + width / 2;
          return (
            <text key={bar.key} x={x} y={BAR_CHART_HEIGHT + 13} textAnchor={anchor} className="values-tick">
              {bar.label}
            </text>
          );
        })}
      </svg>
      <figcaption>{caption}</figcaption>
    </figure>
  );
}

/**
 * One bar per layer, layer numbers under the bars: `what` names the figure in the caption ("Mean relative L2 change
 * ‖b − a‖ / ‖a‖"), `format` writes it, `title` says what a bar holds.
 */
export function LayerChart<T extends StackLayer>({
  entries,
  value,
  format,
  title,
  what,
  label,
  testId,
}: {
  entries: readonly T[];
  value: (entry: T) => number;
  format: (value: number) => string;
  title: (entry: T) => string;
  what: string;
  label: string;
  testId: string;
}) {
  const top = Math.max(0, ...entries.map(value));
  const stacks = stacksText(entries);
  // Every bar at zero draws nothing worth a chart (no layer changed): the lines around it say so.
  if (entries.length === 0 || !(top > 0)) {
    return null;
  }
  return (
    <BarChart
      testId={testId}
      label={label}
      bars={entries.map((entry) => ({
        key: `${entry.stack}${entry.layer}`,
        label: String(entry.layer),
        value: value(entry),
        title: `${stacks ? entry.stack : 'layer '}${entry.layer}: ${title(entry)}`,
      }))}
      caption={
        `${what} per layer (layer numbers under the bars` +
        (stacks ? `; the bars run through ${stacks}` : '') +
        `); tallest bar ${format(top)}`
      }
    />
  );
}
