/**
 * "Compare values" of a LoRA against its base: how far the adapter moves each weight it adapts, ‖ΔW‖ / ‖W‖, per
 * layer and largest first.
 */
import { median } from '../../core/median';
import { formatValue, groupDigits, plural } from '../../core/number-format';
import { byTarget } from '../../core/values/lora-update-summary';
import type { LoraRelativeUpdates } from '../../core/values/compare-values';
import { numeric, TableHead } from '../../lib/TableHead';
import { LayerChart } from './ValueCharts';
import { UnmeasuredNote } from './UnmeasuredNote';

/** Modules in the table; the report has them all. */
const LISTED_MODULES = 50;

function percent(ratio: number): string {
  return `${formatValue(ratio * 100)} %`;
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
          {percent(median(modules.map((m) => m.relative)) ?? 0)} of their base weights&apos; norm (‖ΔW‖ / ‖W‖, Frobenius
          norms; ΔW = scale · B·A from the adapter&apos;s factors, a LyCORIS LoKr&apos;s or LoHa&apos;s from all its
          parts, W read from the base
          {sampled ? ', weights over 16 MiB over HTTP as a row sample' : ''}). Largest:{' '}
          <span className="mono">{modules[0].module}</span> ({percent(modules[0].relative)}).
        </p>
      ) : (
        <p>No module of the adapter could be measured against its base weight.</p>
      )}
      <UnmeasuredNote
        count={lora.unmeasured}
        examples={lora.unmeasuredExamples}
        verb="measured"
        testId="lora-relative-unmeasured"
      />
      {lora.byLayer.length > 1 && (
        <LayerChart
          entries={lora.byLayer}
          value={(entry) => entry.relative}
          format={percent}
          title={(entry) => `mean ‖ΔW‖ / ‖W‖ ${percent(entry.relative)} over ${plural(entry.modules, 'module')}`}
          what="Mean ‖ΔW‖ / ‖W‖"
          label="Relative update per layer"
          testId="lora-relative-layers"
        />
      )}
      {modules.length > 0 && (
        <table className="values-compare-table" data-testid="lora-relative-targets">
          <caption>By target, largest median first</caption>
          <TableHead
            columns={['target', numeric('modules'), numeric('median ‖ΔW‖ / ‖W‖'), numeric('max ‖ΔW‖ / ‖W‖')]}
          />
          <tbody>
            {byTarget(modules, (module) => module.relative).map((row) => (
              <tr key={row.target}>
                <td className="mono lora-updates-target">{row.target}</td>
                <td className="num">{groupDigits(row.modules)}</td>
                <td className="num">{percent(row.median)}</td>
                <td className="num">{percent(row.max)}</td>
              </tr>
            ))}
          </tbody>
        </table>
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
