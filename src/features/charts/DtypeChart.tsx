/** Tensors, elements or bytes per dtype, with a switch between the three. Totals come from the worker. */
import { useMemo } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { HeaderTotals } from '../../core/stats';
import { DtypeTotalsTable } from './DtypeTotalsTable';
import { formatBytes, formatCount, groupDigits } from '../../core/number-format';
import { CHART_METRICS, type ChartMetric } from '../../state/view-slice';
import { useAppStore } from '../../state/store';
import { Segmented } from '../../lib/Segmented';

const FORMATTERS: Record<ChartMetric, (value: number) => string> = {
  tensors: groupDigits,
  elements: formatCount,
  bytes: formatBytes,
};

export function DtypeChart({ totals }: { totals: HeaderTotals }) {
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
        <div className="chart-box">
          <ResponsiveContainer width="100%" height={Math.max(160, 44 * data.length + 40)}>
            <BarChart data={data} layout="vertical" margin={{ left: 24, right: 48, top: 8, bottom: 8 }}>
              <CartesianGrid strokeDasharray="3 3" horizontal={false} />
              <XAxis type="number" tickFormatter={format} />
              <YAxis type="category" dataKey="dtype" width={110} />
              <Tooltip formatter={(value) => format(Number(value))} />
              <Bar dataKey={metric} fill="var(--accent)" isAnimationActive={false} name={metric} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
      <DtypeTotalsTable label="Dtype totals" rows={data} />
    </section>
  );
}
