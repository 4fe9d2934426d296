/**
 * The app's recharts line chart, loaded on demand (lib/lines/LazyLines.tsx) as the bar chart is: each series drawn
 * from its own points over one numeric axis, without animation, dots only where a series has few points.
 */
import { useEffect } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ReferenceArea, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { XAxisTickContentProps, YAxisTickContentProps } from 'recharts';
import { groupDigits } from '../../core/number-format';
import type { ChartBoxProps } from '../charts/ChartBox';
import { TickLabel } from '../charts/recharts-ticks';
import type { LinesSpec } from './lines-spec';

/** A series with at most this many points shows each as a dot: a handful of evaluations reads as points, not a line. */
const MAX_DOTTED_POINTS = 40;
/** Width of the value labels ("1.25e-4"), in pixels. */
const VALUE_LABEL_PX = 64;

export default function Lines(spec: LinesSpec & ChartBoxProps) {
  const { onMounted } = spec;
  useEffect(() => onMounted(), [onMounted]);
  const tick = (props: XAxisTickContentProps | YAxisTickContentProps) => <TickLabel {...props} />;
  return (
    <LineChart width={spec.width} height={spec.height} margin={{ left: 8, right: 24, top: 8, bottom: 8 }}>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis
        type="number"
        dataKey="x"
        domain={spec.xDomain ? [...spec.xDomain] : ['dataMin', 'dataMax']}
        allowDecimals={false}
        tickFormatter={(value: number) => groupDigits(value)}
        tick={tick}
        name={spec.xName}
      />
      <YAxis
        type="number"
        dataKey="y"
        scale={spec.logScale ? 'log' : 'auto'}
        domain={['auto', 'auto']}
        width={VALUE_LABEL_PX}
        tickFormatter={spec.formatValue}
        tick={tick}
      />
      {spec.tooltip && (
        <Tooltip
          formatter={(value) => spec.formatValue(Number(value))}
          labelFormatter={(label) => `${spec.xName} ${groupDigits(Number(label))}`}
        />
      )}
      {/* In the series' own order (the run's loss first), not by name. */}
      {spec.series.length > 1 && <Legend itemSorter={null} />}
      {spec.shade && (
        <ReferenceArea
          x1={spec.shade.from}
          x2={spec.shade.to}
          fill="var(--bad)"
          fillOpacity={0.12}
          label={{ value: spec.shade.label, position: 'insideTop', fill: 'var(--bad)' }}
        />
      )}
      {spec.marker && (
        <ReferenceLine
          x={spec.marker.x}
          stroke="var(--muted)"
          strokeDasharray="4 4"
          label={{ value: spec.marker.label, position: 'insideTopRight', fill: 'var(--muted)' }}
        />
      )}
      {spec.series.map((series) => (
        <Line
          key={series.name}
          name={series.name}
          data={series.xs.map((x, at) => ({ x, y: series.values[at] }))}
          dataKey="y"
          stroke={series.color}
          strokeDasharray={series.dashed ? '6 3' : undefined}
          dot={series.values.length <= MAX_DOTTED_POINTS ? { r: 2.5, fill: series.color } : false}
          isAnimationActive={false}
        />
      ))}
    </LineChart>
  );
}
