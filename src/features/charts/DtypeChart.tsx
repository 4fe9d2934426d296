/** Tensors, elements or bytes per dtype, with a switch between the three. Totals come from the worker. */
import { useMemo } from 'react';
import type { HeaderTotals } from '../../core/stats';
import { DtypeTotalsTable } from './DtypeTotalsTable';
import { formatBytes, formatCount, groupDigits } from '../../core/number-format';
import { CHART_METRICS, type ChartMetric } from '../../state/view-slice';
import { useAppStore } from '../../state/store';
import { Segmented } from '../../lib/Segmented';
import { BarsChart } from '../../lib/bars/LazyBars';

const FORMATTERS: Record<ChartMetric, (value: number) => string> = {
  tensors: groupDigits,
  elements: formatCount,
  bytes: formatBytes,
};

function chartHeight(dtypes: number): number {
  return Math.max(160, 44 * dtypes + 40);
}

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
        <BarsChart
          data={data}
          height={chartHeight(data.length)}
          layout="vertical"
          categoryKey="dtype"
          valueKey={metric}
          formatValue={format}
          labelWidth={110}
          everyValueTick
          grid
        />
      )}
      <DtypeTotalsTable label="Dtype totals" rows={data} />
    </section>
  );
}
