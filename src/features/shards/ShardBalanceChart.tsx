/**
 * How evenly the model is split: data bytes (or tensors) per shard, in shard order. Writers cut shards at a size
 * limit, so a healthy split is flat with a smaller last shard; a tall or empty bar is worth a look.
 */
import { useMemo, useState } from 'react';
import { BarsChart } from '../../lib/bars/LazyBars';
import type { ShardSummary } from '../../core/shards/report-types';
import { formatBytes, groupDigits } from '../../core/number-format';
import { median } from '../../core/median';

type BalanceMetric = 'dataBytes' | 'tensors';

const METRICS: Array<{ id: BalanceMetric; label: string; format: (value: number) => string }> = [
  { id: 'dataBytes', label: 'bytes', format: formatBytes },
  { id: 'tensors', label: 'tensors', format: groupDigits },
];

export function ShardBalanceChart({ shards }: { shards: readonly ShardSummary[] }) {
  const [metric, setMetric] = useState<BalanceMetric>('dataBytes');
  const data = useMemo(
    () =>
      shards.map((shard, position) => ({
        shard: position + 1,
        file: shard.file,
        dataBytes: shard.dataBytes,
        tensors: shard.tensors,
      })),
    [shards],
  );
  const format = METRICS.find((entry) => entry.id === metric)?.format ?? groupDigits;
  const present = shards.filter((shard) => shard.present);
  const values = present.map((shard) => (metric === 'dataBytes' ? shard.dataBytes : shard.tensors));
  const largest = values.length > 0 ? Math.max(...values) : 0;
  const smallest = values.length > 0 ? Math.min(...values) : 0;
  const typical = median(values) ?? 0;
  return (
    <section className="shard-balance" aria-label="Shard balance">
      <h3>Balance between shards</h3>
      <div className="segmented" role="radiogroup" aria-label="Balance metric">
        {METRICS.map((entry) => (
          <label key={entry.id}>
            <input
              type="radio"
              name="balance-metric"
              value={entry.id}
              checked={metric === entry.id}
              onChange={() => setMetric(entry.id)}
            />
            {entry.label}
          </label>
        ))}
      </div>
      <p className="muted" data-testid="balance-summary">
        Smallest {format(smallest)}, median {format(typical)}, largest {format(largest)}
        {typical > 0 && ` (${(largest / typical).toFixed(2)}× the median)`}.
      </p>
      <BarsChart
        data={data}
        height={240}
        layout="horizontal"
        categoryKey="shard"
        valueKey={metric}
        valueName={metric === 'dataBytes' ? 'bytes' : 'tensors'}
        formatValue={format}
        sparseCategoryLabels
        grid
        tooltipTitle={(row) => row.file}
      />
    </section>
  );
}
