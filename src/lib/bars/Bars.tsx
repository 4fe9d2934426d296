/**
 * The app's one recharts bar chart. Loaded on demand (lib/bars/LazyBars.tsx): recharts is about 440 KB of minified
 * script, half of the app's, and the first screen draws no chart, so it stays out of the boot.
 */
import { useEffect } from 'react';
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import type { BarShapeProps, XAxisTickContentProps, YAxisTickContentProps } from 'recharts';
import { TickLabel } from '../charts/recharts-ticks';
import { elideMiddle } from '../display-text';
import type { BarsSpec } from './bars-spec';

/** Pixels per character of recharts' 12 px tick labels, for fitting a category label to its axis width. */
const TICK_CHAR_PX = 7;
/** Room between two category labels along a horizontal chart's bottom axis, in pixels. */
const TICK_GAP_PX = 16;
/** A tooltip shows the whole category name up to this many characters (hostile names can be megabytes). */
const MAX_TOOLTIP_TITLE_CHARS = 200;
/** Estimated width of a value tick label ("1,023.9 MB" and its gap), in pixels. */
const VALUE_TICK_PX = 10 * TICK_CHAR_PX + TICK_GAP_PX;
/** Value ticks recharts draws by default (its `tickCount`), plus one for a nice range that adds a tick. */
const VALUE_TICKS = 6;
/**
 * Right margin of a chart whose value axis runs along the bottom: its last tick label ("8.00 TB") is centred on the
 * axis' end and would be cut at the chart's edge by a narrower margin.
 */
const VALUE_AXIS_END_MARGIN = 48;

type Row = Record<string, unknown>;

/**
 * Which category labels a horizontal chart draws: every n-th, with n from the longest label's estimated width, so
 * labels never crowd and recharts measures none of them in the DOM (its default measures each label, which cost
 * about a second for a few hundred bars on a busy machine).
 */
function categoryInterval(data: readonly Row[], key: string, plotWidth: number): number {
  let longest = 1;
  for (const row of data) {
    longest = Math.max(longest, String(row[key]).length);
  }
  const fitting = Math.max(1, Math.floor(plotWidth / (longest * TICK_CHAR_PX + TICK_GAP_PX)));
  return Math.max(0, Math.ceil(data.length / fitting) - 1);
}

/**
 * One bar as a plain SVG rect. recharts' default shape is a `Rectangle` that builds a path for rounded corners and
 * carries animation hooks; these bars have neither, and a chart of 64 bars mounts measurably faster without them.
 */
function BarShape({ x, y, width, height, fill }: BarShapeProps) {
  // A negative extent (a bar below its base) is drawn from the other corner, as `Rectangle` draws it.
  return (
    <rect
      x={width < 0 ? x + width : x}
      y={height < 0 ? y + height : y}
      width={Math.abs(width)}
      height={Math.abs(height)}
      fill={fill}
    />
  );
}

/**
 * Rows arrive typed by the caller (lib/bars/LazyBars.tsx); here they are plain records read by key. `tooltip`: the
 * tooltip is wanted (the pointer or the focus has been in the chart's box). recharts' tooltip measures its box in
 * the DOM as it mounts and renders again with the size it found, a forced layout and a second render inside the
 * chart's first commit; a chart nobody pointed at yet does without.
 */
export default function Bars(spec: BarsSpec<Row> & { width: number; tooltip: boolean; onMounted: () => void }) {
  const { onMounted } = spec;
  // After this chart's commit: the next chart of the page may mount (lib/mount-in-turn).
  useEffect(() => onMounted(), [onMounted]);
  const vertical = spec.layout === 'vertical';
  const labelWidth = spec.labelWidth ?? (vertical ? 110 : 80);
  const format = spec.formatValue;
  const data = spec.data as Row[];
  const rowOf = (payload: unknown): Row | undefined =>
    Array.isArray(payload) ? (payload[0] as { payload?: Row } | undefined)?.payload : undefined;
  // Every value tick when they fit by estimate; recharts' own choice measures each label in the DOM first.
  const valueAxisLength = vertical ? spec.width - labelWidth - 48 : spec.height - 16;
  const valueInterval =
    spec.everyValueTick || !vertical || valueAxisLength >= VALUE_TICKS * VALUE_TICK_PX ? 0 : 'preserveEnd';
  const tick = (props: XAxisTickContentProps | YAxisTickContentProps) => <TickLabel {...props} />;
  return (
    <BarChart
      width={spec.width}
      height={spec.height}
      data={data}
      layout={spec.layout}
      margin={{ left: 24, right: vertical ? VALUE_AXIS_END_MARGIN : 24, top: 8, bottom: 8 }}
    >
      {spec.grid && <CartesianGrid strokeDasharray="3 3" horizontal={!vertical} vertical={vertical} />}
      {vertical ? (
        <>
          <XAxis type="number" tickFormatter={format} interval={valueInterval} tick={tick} />
          {/* Every category label: the chart's height gives each bar its row, so they never crowd. */}
          <YAxis
            type="category"
            dataKey={spec.categoryKey}
            width={labelWidth}
            interval={0}
            tick={tick}
            tickFormatter={(label) => elideMiddle(String(label), Math.floor((labelWidth - 12) / TICK_CHAR_PX))}
          />
        </>
      ) : (
        <>
          <XAxis
            dataKey={spec.categoryKey}
            interval={
              spec.sparseCategoryLabels
                ? 'preserveStartEnd'
                : categoryInterval(data, spec.categoryKey, spec.width - labelWidth - 48)
            }
            tick={tick}
          />
          <YAxis tickFormatter={format} width={labelWidth} interval={valueInterval} tick={tick} />
        </>
      )}
      {spec.tooltip && (
        <Tooltip
          formatter={format ? (value) => format(Number(value)) : undefined}
          labelFormatter={(label, payload) => {
            const row = rowOf(payload);
            const title = spec.tooltipTitle && row ? spec.tooltipTitle(row) : String(label);
            return elideMiddle(title, MAX_TOOLTIP_TITLE_CHARS);
          }}
        />
      )}
      <Bar
        dataKey={spec.valueKey}
        name={spec.valueName ?? spec.valueKey}
        fill="var(--accent)"
        isAnimationActive={false}
        shape={BarShape}
        onClick={spec.onBarClick ? (_bar, index) => spec.onBarClick?.(data[index]) : undefined}
      />
    </BarChart>
  );
}
