/**
 * "Compare values" of a LoRA against its base: how far the adapter moves each weight it adapts, ‖ΔW‖ / ‖W‖, per
 * layer and largest first.
 */
import { formatValue, plural } from '../../core/number-format';
import type { LoraRelativeUpdates } from '../../core/values/compare-values';
import { numeric, TableHead } from '../../lib/TableHead';
import { BarChart } from './ValueCharts';

/** Modules in the table; the report has them all. */
const LISTED_MODULES = 50;

function percent(ratio: number): string {
  return `${formatValue(ratio * 100)} %`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function LoraRelativeCard({ lora }: { lora: LoraRelativeUpdates }) {
  const modules = [...lora.modules].sort((x, y) => y.relative - x.relative);
  const sampled = modules.some((module) => module.sampled);
  const side = lora.adapterSide.toUpperCase();
  return (
    <div className="lora-updates" data-testid="lora-relative">
      <h4>How far the adapter moves each weight</h4>
      {modules.length > 0 ? (
        <p data-testid="lora-relative-summary">
          The adapter (side {side}) moves its {plural(modules.length, 'module')} by a median{' '}
          {percent(median(modules.map((m) => m.relative)))} of their base weights&apos; norm (‖ΔW‖ / ‖W‖, Frobenius
          norms; ΔW = scale · B·A from the adapter&apos;s factors, W read from the base
          {sampled ? ', weights over 16 MiB over HTTP as a row sample' : ''}). Largest:{' '}
          <span className="mono">{modules[0].module}</span> ({percent(modules[0].relative)}).
        </p>
      ) : (
        <p>No module of the adapter could be measured against its base weight.</p>
      )}
      {lora.unmeasured > 0 && (
        <p className="muted" data-testid="lora-relative-unmeasured">
          {plural(lora.unmeasured, 'module')} not measured:{' '}
          {lora.unmeasuredExamples
            .slice(0, 3)
            .map(({ module, reason }) => `${module} (${reason})`)
            .join('; ')}
          {lora.unmeasured > 3 ? '; …' : ''}.
        </p>
      )}
      {lora.byLayer.length > 1 && (
        <BarChart
          testId="lora-relative-layers"
          label="Relative update per layer"
          bars={lora.byLayer.map((entry) => ({
            key: String(entry.layer),
            label: String(entry.layer),
            value: entry.relative,
            title: `layer ${entry.layer}: mean ‖ΔW‖ / ‖W‖ ${percent(entry.relative)} over ${plural(entry.modules, 'module')}`,
          }))}
          caption={`Mean ‖ΔW‖ / ‖W‖ per layer (layer numbers under the bars); tallest bar ${percent(Math.max(...lora.byLayer.map((entry) => entry.relative)))}`}
        />
      )}
      {modules.length > 0 && (
        <table className="values-compare-table" data-testid="lora-relative-table">
          <caption>
            Largest relative update first
            {modules.length > LISTED_MODULES ? ` (${LISTED_MODULES} of ${modules.length})` : ''}
          </caption>
          <TableHead columns={['module', 'base tensor', numeric('‖ΔW‖'), numeric('‖W‖'), numeric('‖ΔW‖ / ‖W‖')]} />
          <tbody>
            {modules.slice(0, LISTED_MODULES).map((module) => (
              <tr key={module.module}>
                <td className="mono values-scan-module">{module.module}</td>
                <td className="mono values-scan-module">{module.base}</td>
                <td className="num">{formatValue(module.norm)}</td>
                <td className="num">
                  {formatValue(module.baseNorm)}
                  {module.sampled ? ' (sample)' : ''}
                </td>
                <td className="num">{percent(module.relative)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
