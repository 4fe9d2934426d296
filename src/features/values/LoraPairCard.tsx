/**
 * "Compare values" of two LoRAs: each module both adapt, compared as updates (the factors themselves are not
 * comparable one by one), per layer and largest difference first.
 */
import { median } from '../../core/median';
import { formatValue, plural } from '../../core/number-format';
import type { LoraPairComparison } from '../../core/values/compare-values';
import { numeric, TableHead } from '../../lib/TableHead';
import { LayerChart } from './ValueCharts';
import { UnmeasuredNote } from './UnmeasuredNote';

/** Modules in the table; the report has them all. */
const LISTED_MODULES = 50;

const orDash = (value: number | null, digits?: number) =>
  value === null ? '—' : digits === undefined ? formatValue(value) : value.toFixed(digits);

export function LoraPairCard({ pair }: { pair: LoraPairComparison }) {
  const modules = [...pair.modules].sort((x, y) => (y.relDiff ?? -1) - (x.relDiff ?? -1));
  const cosine = median(modules.flatMap((m) => (m.cosine === null ? [] : [m.cosine])));
  const relDiff = median(modules.flatMap((m) => (m.relDiff === null ? [] : [m.relDiff])));
  return (
    <div className="lora-updates" data-testid="lora-pair">
      <h4>The two LoRAs, update against update</h4>
      <p data-testid="lora-pair-summary">
        {plural(modules.length, 'module')} both adapt
        {cosine !== null && relDiff !== null
          ? `: median cosine ${cosine.toFixed(4)} between their updates, median ‖ΔW_B − ΔW_A‖ / ‖ΔW_A‖ ${formatValue(relDiff)}`
          : ''}
        {pair.onlyA + pair.onlyB > 0 ? `; ${pair.onlyA} only in A, ${pair.onlyB} only in B (or with other sizes)` : ''}.
        Updates ΔW = scale · B·A are compared, from the factors&apos; Gram matrices (a LyCORIS LoKr&apos;s or
        LoHa&apos;s written as one such product of its parts, so a module trained as LoKr on one side compares with its
        LoRA on the other): factors trained twice can differ tensor by tensor (B·R and R⁻¹·A give the same update) where
        the updates agree.
      </p>
      <UnmeasuredNote
        count={pair.unmeasured}
        examples={pair.unmeasuredExamples}
        verb="compared"
        testId="lora-pair-unmeasured"
      />
      {pair.byLayer.length > 1 && (
        <LayerChart
          entries={pair.byLayer}
          value={(entry) => entry.relDiff}
          format={formatValue}
          title={(entry) =>
            `mean ‖ΔW_B − ΔW_A‖ / ‖ΔW_A‖ ${formatValue(entry.relDiff)}, mean cosine ${entry.cosine.toFixed(4)} over ${plural(entry.modules, 'module')}`
          }
          what="Mean ‖ΔW_B − ΔW_A‖ / ‖ΔW_A‖"
          label="Relative difference of the updates per layer"
          testId="lora-pair-layers"
        />
      )}
      {modules.length > 0 && (
        <table className="values-compare-table" data-testid="lora-pair-table">
          <caption>
            Largest difference first{modules.length > LISTED_MODULES ? ` (${LISTED_MODULES} of ${modules.length})` : ''}
          </caption>
          <TableHead
            columns={[
              'module',
              numeric('‖ΔW_A‖'),
              numeric('‖ΔW_B‖'),
              numeric('cosine'),
              numeric('‖ΔW_B − ΔW_A‖ / ‖ΔW_A‖'),
            ]}
          />
          <tbody>
            {modules.slice(0, LISTED_MODULES).map((module) => (
              <tr key={module.module}>
                <td className="mono values-scan-module">{module.module}</td>
                <td className="num">{formatValue(module.normA)}</td>
                <td className="num">{formatValue(module.normB)}</td>
                <td className="num">{orDash(module.cosine, 4)}</td>
                <td className="num">{orDash(module.relDiff)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
