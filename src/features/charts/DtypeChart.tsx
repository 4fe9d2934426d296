/** Tensors, elements or bytes per dtype, with a switch between the three. Totals come from the worker. */
import { useMemo } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { HeaderTotals } from '../../core/stats';
import { DtypeTotalsTable } from './DtypeTotalsTable';
import { formatBytes, formatCount, groupDigits } from '../../core/number-format';
import { CHART_METRICS, type ChartMetric } from '../../state/view-slice';
import { useAppStore } from '../../state/store';
import { Segmented } from '../../lib/Segmented';
import { useMountedAfterFirstPaint } from '../../lib/mount-after-paint';

const FORMATTERS: Record<ChartMetric, (value: number) => string> = {
  tensors: groupDigits,
  elements: formatCount,
  bytes: formatBytes,
};

function chartHeight(dtypes: number): number {
  return Math.max(160, 44 * dtypes + 40);
}

export function DtypeChart({ totals }: { totals: HeaderTotals }) {
  const chartMounted = useMountedAfterFirstPaint();
  const metric = useAppStore((state) => state.chartMetric);
  const setMetric = useAppStore((state) => state.setChartMetric);
  const data = useMemo(
    () =>
      Object.entries(totals.byDtype)
        .map(([dtype, totals]) => ({ dtype, ...totals }))
        .sort((a, b) => b.bytes - a.bytes),
    [totals],
  );
  const format = FORMATTERS[metric];
  return (
    <section className="dtype-chart" aria-label="Dtype chart">
      <Segmented label="Chart metric" name="chart-metric" options={CHART_METRICS} value={metric} onChange={setMetric} />
      {data.length === 0 ? (
        <p className="muted">No tensors, so nothing to chart.</p>
      ) : (
        <div className="chart-box" style={{ height: chartHeight(data.length) }}>
          {chartMounted && (
            <ResponsiveContainer width="100%" height={chartHeight(data.length)}>
              <BarChart data={data} layout="vertical" margin={{ left: 24, right: 48, top: 8, bottom: 8 }}>
                <CartesianGrid strokeDasharray="3 3" horizontal={false} />
                {/* interval 0: every tick is drawn without measuring each label's width in the DOM first, the
                  single largest cost of the mount (about 40 ms); there are a handful of ticks, all fit. */}
                <XAxis type="number" tickFormatter={format} interval={0} />
                <YAxis type="category" dataKey="dtype" width={110} interval={0} />
                <Tooltip formatter={(value) => format(Number(value))} />
                <Bar dataKey={metric} fill="var(--accent)" isAnimationActive={false} name={metric} />
              </BarChart>
            </ResponsiveContainer>
          )}
        </div>
      )}
      <DtypeTotalsTable label="Dtype totals" rows={data} />
    </section>
  );
}
